/** orval (its fetch client) from the public document: compiled strict, the shared scenario against the real server. */
import path from 'node:path';
import { generate } from 'orval';
import { BUNDLED_SPEC } from '../src/prism.js';
import { describeGeneratedClient } from './generated-client.js';

describeGeneratedClient({
  generator: 'orval',
  fixture: 'orval',
  async generate(outputFolder) {
    await generate(
      {
        input: { target: BUNDLED_SPEC },
        output: {
          target: path.join(outputFolder, 'gateway.ts'),
          client: 'fetch',
          mode: 'single',
          // The server's address is known when the test runs (fixtures/orval/gateway-url.ts).
          baseUrl: { runtime: 'gatewayUrl', imports: [{ name: 'gatewayUrl', importPath: '../gateway-url' }] },
        },
      },
      outputFolder,
      { throwOnError: true, logLevel: 'error' },
    );
  },
});
