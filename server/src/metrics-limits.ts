/**
 * The metrics of what an instance holds open and refuses past its limits: event streams and connections,
 * read at scrape time from their counts.
 */
import client from 'prom-client';
import type { StreamCounts } from './domain/event-stream-limits.js';
import type { ConnectionCounts } from './lib/connection-caps.js';

/** What the metrics read of the event streams at scrape time (the app's `AccountEvents`). */
export interface EventStreamSource {
  streamCounts(): StreamCounts;
}

/** Open event streams, the limit of the instance, and the streams refused by limit (read at scrape time). */
export function registerEventStreams(registry: client.Registry, source: EventStreamSource): void {
  new client.Gauge({
    name: 'gateway_event_streams_open',
    help: 'Event streams (GET /v1/events) open on this instance.',
    registers: [registry],
    collect() {
      this.set(source.streamCounts().open);
    },
  });
  new client.Gauge({
    name: 'gateway_event_streams_limit',
    help: 'Event streams this instance holds open at most (EVENT_STREAMS_PER_INSTANCE or derived from the heap).',
    registers: [registry],
    collect() {
      this.set(source.streamCounts().limits.perInstance);
    },
  });
  new client.Counter({
    name: 'gateway_event_streams_refused_total',
    help: 'Event streams refused, by the limit reached: account (429) or instance (503).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const { refused } = source.streamCounts();
      this.reset();
      this.inc({ reason: 'account' }, refused.account);
      this.inc({ reason: 'instance' }, refused.instance);
    },
  });
}

/**
 * Open connections, the caps (the instance's; a client address's, 0 when off), and the connections refused
 * by cap or closed for being too slow (read at scrape time).
 */
export function registerConnections(registry: client.Registry, source: ConnectionCounts): void {
  new client.Gauge({
    name: 'gateway_connections_open',
    help: 'TCP connections open on the API port of this instance.',
    registers: [registry],
    collect() {
      this.set(source.open);
    },
  });
  new client.Gauge({
    name: 'gateway_connections_limit',
    help: 'Connections held at most, by scope: the instance, or one client address (0: no cap per address).',
    labelNames: ['scope'],
    registers: [registry],
    collect() {
      this.set({ scope: 'instance' }, source.limits.perInstance);
      this.set({ scope: 'address' }, source.limits.perAddress);
    },
  });
  new client.Counter({
    name: 'gateway_connections_refused_total',
    help: 'Connections closed as they opened, by the cap reached: the client address or the instance.',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ reason: 'address' }, source.refused.address);
      this.inc({ reason: 'instance' }, source.refused.instance);
    },
  });
  new client.Counter({
    name: 'gateway_connections_timed_out_total',
    help: 'Connections closed for slowness: idle before their first request, or a request not in time (408).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ reason: 'idle' }, source.timedOut.idle);
      this.inc({ reason: 'request' }, source.timedOut.request);
    },
  });
}
