/**
 * The spec's `text/event-stream` examples are valid Server-Sent Events: every frame ends (a YAML `|` block
 * drops the final blank line, and the last event of such an example never reaches a client), and the
 * typed client reads them through the mock as a page would, without yielding an event twice when the mock
 * closes the stream and the client reconnects.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient, signerFromSeed } from '@gateway/client';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mockFront } from '../../scripts/mock-front.mjs';
import { DEMO_SEED } from '../src/sign-in.js';
import { spec } from '../src/spec.js';

interface MediaExamples {
  examples?: Record<string, { value: unknown }>;
}

/** Every `text/event-stream` example of the spec, by operation and name. */
function streamExamples(): { where: string; text: string }[] {
  const found: { where: string; text: string }[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, { responses?: object }>)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = (response as { content?: Record<string, MediaExamples> }).content?.['text/event-stream'];
        for (const [name, example] of Object.entries(media?.examples ?? {})) {
          found.push({ where: `${method.toUpperCase()} ${path} ${status} ${name}`, text: String(example.value) });
        }
      }
    }
  }
  return found;
}

/** The events a real SSE parser dispatches from `text`, and whether a frame was left unended. */
function parse(text: string): { events: EventSourceMessage[]; retry: number | undefined; unended: boolean } {
  const events: EventSourceMessage[] = [];
  let retry: number | undefined;
  const parser = createParser({ onEvent: (event) => events.push(event), onRetry: (ms) => (retry = ms) });
  parser.feed(text);
  const before = events.length;
  // A blank line ends a frame still open: an event dispatched now was left unended by the example.
  parser.feed('\n\n');
  return { events: events.slice(0, before), retry, unended: events.length > before };
}

const examples = streamExamples();

describe("the spec's event-stream examples", () => {
  it('there are some', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples.map((e) => [e.where, e.text] as const))('%s: every frame ends, each event is JSON', (_, text) => {
    const { events, retry, unended } = parse(text);
    expect(unended).toBe(false);
    expect(text.endsWith('\n\n')).toBe(true);
    expect(retry).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.id).toMatch(/^(0|[1-9][0-9]*)$/);
      expect(() => JSON.parse(event.data)).not.toThrow();
    }
  });
});

describe('the typed client reads the mock’s stream', () => {
  let front: Server;
  let base: string;
  beforeAll(async () => {
    front = mockFront({ upstream: inject('mockUrl'), document: spec });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => front.close(() => resolve())));

  it('yields the example’s movement once, through the mock’s reconnections', async () => {
    const client = createGatewayClient({ baseUrl: base, chainId: 'W', clientId: 'waves.exchange' });
    await client.login(signerFromSeed(DEMO_SEED), { lifetime: 600 });
    const [example] = examples;
    const expected = parse(example?.text ?? '').events.filter((e) => e.event === 'movement');
    const seen: string[] = [];
    const states: string[] = [];
    // The mock ends its stream after the example; the client reconnects after `retry` (2 s): 5 s see two
    // connections at least.
    const signal = AbortSignal.timeout(5_000);
    for await (const event of client.events({ signal, onStateChange: (state) => states.push(state.status) })) {
      if (event.type === 'movement') seen.push(event.movement.id);
    }
    expect(seen).toEqual(expected.map((e) => (JSON.parse(e.data) as { id: string }).id));
    expect(states.filter((s) => s === 'open').length).toBeGreaterThanOrEqual(2);
    expect(states.at(-1)).toBe('closed');
  });
});
