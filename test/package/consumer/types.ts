// Strict TypeScript against the packed client: the spec's types flow through to the responses, and a
// wrong path, parameter or option does not compile (each `@ts-expect-error` fails the check if it compiles).
import { type components, createGatewayClient, errorCodeOf, type GatewayClient, signerFromSeed } from '@gateway/client';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<_ extends true>(): void {}

type Movement = components['schemas']['Movement'];
expectType<Equal<Movement['amount'], number>>();
expectType<Equal<Movement['status'], 'in_progress' | 'pending_approval' | 'confirmed' | 'rejected'>>();

export async function latest(client: GatewayClient): Promise<string> {
  await client.login(signerFromSeed('a seed phrase'), { lifetime: 3600 });
  const { data, error } = await client.api.GET('/v1/movements', { params: { query: { limit: 20 } } });
  if (error) return `failed: ${errorCodeOf(error)}`;
  const movement = data.items[0];
  if (!movement) return 'none';
  expectType<Equal<typeof movement.amount, number>>();
  expectType<Equal<typeof movement.status, 'in_progress' | 'pending_approval' | 'confirmed' | 'rejected'>>();
  for await (const each of client.movements({ pageSize: 50 })) expectType<Equal<typeof each, Movement>>();
  return `${movement.amount.toFixed(2)} ${movement.status.toUpperCase()}`;
}

export async function plainCalls(client: GatewayClient): Promise<string> {
  const platform = await client.calls.getPlatform({ id: 'ETH' });
  expectType<Equal<typeof platform, components['schemas']['Platform']>>();
  const page = await client.calls.listMovements({ limit: 20 });
  expectType<Equal<(typeof page.items)[number], Movement>>();
  // @ts-expect-error: the path parameter is `id`
  await client.calls.getPlatform({ platform: 'ETH' });
  // @ts-expect-error: the path parameter is missing
  await client.calls.getMovement({});
  // @ts-expect-error: limit is a number
  await client.calls.listMovements({ limit: 'twenty' });
  // @ts-expect-error: no such operation
  await client.calls.getMovements();
  return platform.name;
}

export async function mistakes(client: GatewayClient): Promise<void> {
  // @ts-expect-error: limit is a number
  await client.api.GET('/v1/movements', { params: { query: { limit: 'twenty' } } });
  // @ts-expect-error: no operation at this path
  await client.api.GET('/v1/movement');
  // @ts-expect-error: the path parameter is `id`
  await client.api.GET('/v1/movements/{id}', { params: { path: { movement: 'x' } } });
  // @ts-expect-error: the path parameter is missing
  await client.api.GET('/v1/movements/{id}');
  const { data } = await client.api.GET('/v1/movements/{id}', { params: { path: { id: 'x' } } });
  // @ts-expect-error: amount is a number, not a string
  data?.amount.toUpperCase();
  // @ts-expect-error: the chain id is 'W' or 'T'
  createGatewayClient({ baseUrl: 'http://127.0.0.1:3000', chainId: 'X', clientId: 'waves.exchange' });
  // @ts-expect-error: pageSize is a number
  client.movements({ pageSize: '20' });
}
