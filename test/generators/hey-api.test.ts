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
      let position: string | undefined;
      let imported: Promise<unknown> = Promise.resolve();
      const importFailures: unknown[] = [];
      try {
        const eventId = await eventStream
          .movementEvent(
            accessToken,
            movementId,
            (opened) => {
              position = opened;
              // A failed import ends the reading, so that the test fails with the import's error.
              imported = importMovement(gateway.dataDir, 'in_progress', movementId).catch((error: unknown) => {
                importFailures.push(error);
                reading.abort();
              });
            },
            reading.signal,
          )
          .catch((error: unknown) => {
            throw importFailures[0] ?? error;
          });
        expect(Number(eventId)).toBe(Number(position) + 1);
      } finally {
        reading.abort();
        await imported;
      }
    });
  },
});
