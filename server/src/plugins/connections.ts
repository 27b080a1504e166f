/**
 * Connections, at the socket, before any byte is read: each one takes a slot of its client address and of
 * the instance (lib/connection-caps.ts) and one over a cap is reset at once; a new connection that sends
 * nothing is let go after IDLE_CONNECTION_TIMEOUT_MS. The other timeouts are Node's own, set in
 * fastify-options.ts: headers (HEADERS_TIMEOUT_MS, then 408), the whole request (30 s), idle between requests
 * (KEEP_ALIVE_TIMEOUT_MS). An answer being written (an event stream) is cut by none of them: only by 60 s
 * without a byte either way, which a stream's heartbeat (every 15 s) never leaves.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConnectionSlots, Refusal } from '../lib/connection-caps.js';

/** A refusal is logged at most this often (ms), with the count since the last line. */
const LOG_EVERY_MS = 60_000;

const ADVICE: Record<Refusal, string> = {
  address: 'CONNECTIONS_PER_ADDRESS (behind a proxy, set TRUST_PROXY_HOPS: its connections all come from one address)',
  instance: 'CONNECTIONS_PER_INSTANCE (or derived from the open-file limit)',
};

export function connections(
  app: FastifyInstance,
  slots: ConnectionSlots,
  options: { idleConnectionTimeoutMs: number; now?: () => number },
): void {
  const server = app.server;
  const now = options.now ?? Date.now;
  /** Connections that have not sent a whole request yet. */
  const fresh = new WeakSet<Socket>();
  const lastLogged: Record<Refusal, number> = { address: Number.NEGATIVE_INFINITY, instance: Number.NEGATIVE_INFINITY };
  const loggedCount: Record<Refusal, number> = { address: 0, instance: 0 };

  const refuse = (socket: Socket, reason: Refusal) => {
    // A reset frees the descriptor at once and leaves nothing for the kernel to linger over.
    socket.resetAndDestroy();
    const at = now();
    if (at - lastLogged[reason] < LOG_EVERY_MS) return;
    const count = slots.refused[reason] - loggedCount[reason];
    lastLogged[reason] = at;
    loggedCount[reason] = slots.refused[reason];
    const cap = reason === 'address' ? slots.limits.perAddress : slots.limits.perInstance;
    app.log.warn(
      { reason, cap, address: socket.remoteAddress, refused: count },
      `${count} connection(s) refused: ${reason === 'address' ? `${socket.remoteAddress} holds` : 'the instance holds'} ${cap} (${ADVICE[reason]})`,
    );
  };

  // After Node's own listener, which reads the socket and set its timeout to the server's.
  server.on('connection', (socket: Socket) => {
    const admitted = slots.admit(socket.remoteAddress ?? '');
    if ('refused' in admitted) {
      refuse(socket, admitted.refused);
      return;
    }
    // Plain listeners, not `once`: a socket closes once, and `once` costs a wrapper, its state and a bound
    // function per connection (about 300 bytes of heap for these two, 1.5 MB at 5,000 event streams).
    socket.on('close', () => slots.release(admitted.key));
    fresh.add(socket);
    socket.setTimeout(options.idleConnectionTimeoutMs);
    // Node's own timeout listener closes the socket; this one counts it, if it never sent a request.
    socket.on('timeout', () => {
      if (fresh.delete(socket)) slots.timedOut.idle++;
    });
  });
  // Its first request arrived: the server's own timeouts take over (Node moves between them from here).
  server.on('request', (request: { socket: Socket }) => {
    if (fresh.delete(request.socket)) request.socket.setTimeout(server.timeout);
  });
  server.on('clientError', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') slots.timedOut.request++;
  });
}
