// The client alone: sign in with a seed, list the movements, keep the session in localStorage.
import { createGatewayClient, signerFromSeed, webStorage } from '@gateway/client';

const client = createGatewayClient({
  baseUrl: 'http://127.0.0.1:3000',
  chainId: 'W',
  clientId: 'waves.exchange',
  storage: webStorage(localStorage),
});
await client.login(
  signerFromSeed('uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine'),
);
for await (const movement of client.movements()) console.log(movement.id);
