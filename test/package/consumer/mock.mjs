// The client against the mock of the package's own contract:
//   npx @stoplight/prism-cli mock node_modules/@gateway/client/dist/openapi.json
//   MOCK_URL=http://127.0.0.1:4010 node mock.mjs
import { createGatewayClient } from '@gateway/client';

const client = createGatewayClient({
  baseUrl: process.env.MOCK_URL ?? 'http://127.0.0.1:4010',
  chainId: 'W',
  clientId: 'waves.exchange',
});
const { data, error } = await client.api.GET('/v1/platforms');
if (error) throw new Error(JSON.stringify(error));
console.log(`platforms: ${data.items.map((platform) => platform.id).join(', ')}`);
