/**
 * @hey-api/openapi-ts (its fetch client and SDK) from the public document: compiled strict, the shared
 * scenario against the real server, and the account's event stream through its SSE client.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@hey-api/openapi-ts';
import { expect, it } from 'vitest';
import { importMovement } from '../src/movements.js';
import { BUNDLED_SPEC } from '../src/prism.js';
import type { EventStreamScenario } from './fixtures/scenario.js';
import { describeGeneratedClient } from './generated-client.js';

describeGeneratedClient({
  generator: '@hey-api/openapi-ts',
  fixture: 'hey-api',
  async generate(outputFolder) {
    await createClient({
      input: BUNDLED_SPEC,
      output: outputFolder,
      plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
      logs: { level: 'silent', file: false },
    });
  },
  more(context) {
    it('hears a movement imported while its event stream is open, as the event after the position', async () => {
      const { gateway, accessToken, load } = context();
      const { eventStream } = await load<{ eventStream: EventStreamScenario }>();
      const movementId = randomUUID();
      const reading = new AbortController();
      let imported: Promise<string> | undefined;
      let position: string | undefined;
      try {
        const eventId = await eventStream.movementEvent(
          accessToken,
          movementId,
          (opened) => {
            position = opened;
            imported = importMovement(gateway.dataDir, 'in_progress', movementId);
          },
          reading.signal,
        );
        expect(await imported).toBe(movementId);
        expect(BigInt(eventId)).toBe(BigInt(position ?? Number.NaN) + 1n);
      } finally {
        reading.abort();
      }
    });
  },
});
