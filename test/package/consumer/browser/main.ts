// A browser app: signs in with a seed, keeps the session in localStorage, lists the movements.
// Bundled with `vite build browser`; the gateway's address comes from the page's `?gateway=` parameter.
import { createGatewayClient, signerFromSeed, webStorage } from '@gateway/client';

const result: { ok: boolean; count?: number; error?: string } = { ok: false };
try {
  const client = createGatewayClient({
    baseUrl: new URLSearchParams(location.search).get('gateway') ?? 'http://127.0.0.1:3000',
    chainId: 'W',
    clientId: 'waves.exchange',
    storage: webStorage(localStorage),
  });
  await client.login(
    signerFromSeed('uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine'),
  );
  const list = document.getElementById('movements');
  let count = 0;
  for await (const movement of client.movements({ pageSize: 20 })) {
    const item = document.createElement('li');
    item.textContent = `${movement.created_at} ${movement.direction} ${movement.amount} ${movement.currency_id}`;
    list?.append(item);
    count += 1;
  }
  Object.assign(result, { ok: true, count });
} catch (error) {
  result.error = String(error);
}
Object.assign(window, { __result: result });
