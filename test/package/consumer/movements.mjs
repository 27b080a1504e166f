// Node 22+: sign in with a seed phrase and page through the account's movements.
//   GATEWAY_URL=http://127.0.0.1:3000 node movements.mjs
import { createGatewayClient, signerFromSeed } from '@gateway/client';

const client = createGatewayClient({
  baseUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000',
  chainId: 'W',
  clientId: 'waves.exchange',
});
await client.login(
  signerFromSeed('uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine'),
);
let count = 0;
for await (const movement of client.movements({ pageSize: 20 })) {
  if (count < 3) console.log(movement.created_at, movement.direction, movement.amount, movement.currency_id);
  count += 1;
}
console.log(`${count} movements`);
// The plain call of an operation (generated from the spec): its answer, or a GatewayError thrown.
const [first] = (await client.calls.listMovements({ limit: 1 })).items;
console.log(`movement ${(await client.calls.getMovement({ id: first.id })).id} by client.calls`);
await client.logout();
