/**
 * Requests at a fixed rate, evenly spaced (lib/load.mjs's `overallRate`): request i is due at i / rate
 * seconds after the start, whatever became of the ones before it, and goes out on one of `connections`
 * keep-alive connections, one request a connection at a time, taken in turn. Each request's latency counts
 * from the moment the generator found it due (a timer every millisecond or so), sent at once or not: one
 * that finds every connection busy waits for one, so a server that stalls is charged for every request that
 * waited behind the stall (what wrk2 calls coordinated omission: a generator that sends only when a
 * connection is free, as autocannon does, counts none of that wait). The timer's own lateness (a millisecond
 * or two, more while the generator itself pauses) is the generator's, not the server's, and is not counted.
 *
 * autocannon's `overallRate` is not this: each connection sends as fast as answers come until it has sent
 * its share of the second, then waits for the next second. At half a server's throughput, the server ran
 * flat out for the first half of every second and idled through the other (1,000 requests a second arrived
 * as 770 and 230 in the first two tenths of each second, nothing after), so the "p99 at half the floor's
 * rate" of bench/postgres-floor.mjs was the p99 of a saturated server (bench/postgres-floor.md).
 *
 * The client is a few lines of HTTP/1.1 over `net`, not a library's: answers are read into one buffer a
 * connection (`onread`) and only framed (status, Content-Length), so that reading 2,000 pages of 50 KB a
 * second allocates next to nothing. Through undici the generator itself paused for up to 15 ms every tenth
 * of a second (mark-compacts forced by the Buffers of the bodies), and its p99 over a canned page was 83 ms.
 * Answers must carry a Content-Length (every answer the benches read does); anything else fails the run.
 */
import net from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');
const NOTHING = Buffer.alloc(0);

/**
 * The slow requests of a run as stalls: those due within 50 ms of the one before, together. Each: when its
 * first request came due (ms after the run's start), how many, the longest latency, and from its first
 * request due to its last answer (ms).
 */
function stallsOf(slow) {
  const stalls = [];
  for (const [due, latency] of slow.sort((a, b) => a[0] - b[0])) {
    const last = stalls.at(-1);
    if (last && due - last.lastDueMs < 50) {
      last.requests += 1;
      last.maxMs = Math.max(last.maxMs, latency);
      last.lastDueMs = due;
      last.untilMs = Math.max(last.untilMs, due + latency);
    } else stalls.push({ atMs: due, requests: 1, maxMs: latency, lastDueMs: due, untilMs: due + latency });
  }
  return stalls.map(({ atMs, requests, maxMs, untilMs }) => ({ atMs, requests, maxMs, spanMs: untilMs - atMs }));
}

/**
 * `rate` requests a second for `seconds`, then waits for the last answer. Resolves with what lib/load.mjs
 * reports of a run: its requests, statuses, latencies (ms, sorted, when `record`), bytes, how many
 * waited for a connection (`queued`), when it started (`startedAt`, ms since the epoch) and, with `slowMs`
 * and `record`, its requests slower than that as `stalls` (`stallsOf`): when each stall began, to set beside
 * what else happened on the machine then (a checkpoint in PostgreSQL's log, a collection in a server's).
 * The connections are opened before the clock starts.
 */
export async function pacedRun({
  url,
  method = 'GET',
  headers = {},
  bodyOf,
  connections,
  rate,
  seconds,
  record,
  timeoutMs,
  slowMs,
}) {
  const target = new URL(url);
  const head = [
    `${method} ${target.pathname}${target.search} HTTP/1.1`,
    `host: ${target.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  const requestText = () => {
    const body = bodyOf?.();
    return body === undefined
      ? `${head}\r\n\r\n`
      : `${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const total = Math.max(1, Math.round(rate * seconds));
  const interval = 1000 / rate;
  const latencies = [];
  /** [when it came due (ms after the start), its latency] of each request slower than `slowMs`. */
  const slow = [];
  const statusCodes = {};
  const result = { requests: 0, ok: 0, non2xx: 0, errors: 0, timeouts: 0, bytes: 0, queued: 0 };
  /** Connections free for a request, in the order they became free. */
  const free = [];
  /** When the requests waiting for a connection were found due. */
  const waiting = [];
  const open = new Set();
  let settled = 0;
  let end = 0;
  let failure = null;
  let finished;
  const allSettled = new Promise((resolve) => {
    finished = resolve;
  });

  /** Ends the run with `error` (thrown by pacedRun). */
  const fail = (error) => {
    failure ??= error;
    finished();
  };
  const settle = () => {
    settled += 1;
    end = performance.now();
    if (settled === total) finished();
  };

  /** A keep-alive connection; resolves once connected. */
  const connect = () =>
    new Promise((resolve) => {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      const connection = {
        socket: null,
        connected: false,
        timedOut: false,
        from: 0,
        sentAt: 0,
        busy: false,
        status: 0,
        remaining: -1,
        /** The part of an answer's head read so far, when it came in pieces. */
        head: NOTHING,
      };
      const done = () => {
        const status = connection.status;
        connection.busy = false;
        connection.remaining = -1;
        const latency = performance.now() - connection.from;
        if (record) {
          latencies.push(latency);
          if (slowMs !== undefined && latency > slowMs) slow.push([connection.from - start, latency]);
        }
        result.requests += 1;
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (status >= 200 && status < 300) result.ok += 1;
        else result.non2xx += 1;
        settle();
        release(connection);
      };
      const read = (length) => {
        let at = 0;
        while (at < length) {
          if (connection.remaining < 0) {
            // The answer's head, up to its blank line: searched in what came of it so far, since a head may
            // arrive in pieces and its blank line split between them.
            const before = connection.head.length;
            const piece = buffer.subarray(at, length);
            const joined = before === 0 ? piece : Buffer.concat([connection.head, piece]);
            const ended = joined.indexOf(HEAD_END, Math.max(0, before - HEAD_END.length + 1));
            if (ended < 0) {
              connection.head = Buffer.from(joined); // `buffer` is read into again
              result.bytes += length - at;
              return;
            }
            const headLength = ended + HEAD_END.length;
            const text = joined.toString('latin1', 0, headLength);
            connection.head = NOTHING;
            connection.status = Number(text.slice(9, 12));
            const declared = /\r\ncontent-length: *(\d+)/i.exec(text);
            if (!declared) {
              fail(new Error(`${url}: an answer without Content-Length (${text.split('\r\n')[0]})`));
              return;
            }
            connection.remaining = Number(declared[1]);
            const stop = at + headLength - before;
            result.bytes += stop - at;
            at = stop;
          }
          const taken = Math.min(connection.remaining, length - at);
          connection.remaining -= taken;
          result.bytes += taken;
          at += taken;
          if (connection.remaining === 0) done();
        }
      };
      const socket = net.connect({
        host: target.hostname,
        port: Number(target.port),
        noDelay: true,
        onread: { buffer, callback: (length) => read(length) },
      });
      connection.socket = socket;
      open.add(connection);
      socket.once('connect', () => {
        connection.connected = true;
        resolve(connection);
      });
      socket.on('error', () => {});
      socket.once('close', () => {
        open.delete(connection);
        const index = free.indexOf(connection);
        if (index >= 0) free.splice(index, 1);
        if (connection.busy) {
          connection.busy = false;
          if (connection.timedOut) result.timeouts += 1;
          else result.errors += 1;
          settle();
        }
        if (!connection.connected) {
          fail(new Error(`${url}: cannot connect`));
          resolve(null);
          return;
        }
        // Another in its place, for the requests still to come (a server's keep-alive timeout, a timeout).
        if (settled < total && failure === null) connect().then((next) => next && release(next));
      });
    });

  const send = (connection, from) => {
    connection.busy = true;
    connection.from = from;
    connection.sentAt = performance.now();
    connection.socket.write(requestText());
  };
  /** A connection free again: the oldest request waiting, or the free list. */
  const release = (connection) => {
    if (waiting.length > 0) send(connection, waiting.shift());
    else free.push(connection);
  };
  const fire = () => {
    const connection = free.shift();
    if (connection) send(connection, performance.now());
    else {
      result.queued += 1;
      waiting.push(performance.now());
    }
  };

  for (const connection of await Promise.all(Array.from({ length: connections }, connect))) {
    if (connection) free.push(connection);
  }
  // A request unanswered after `timeoutMs` is counted a timeout and its connection replaced.
  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const connection of open) {
      if (connection.busy && now - connection.sentAt > timeoutMs) {
        connection.timedOut = true;
        connection.socket.destroy();
      }
    }
  }, 100);

  const start = performance.now();
  // Every millisecond or so, each request that has come due (the requests due meanwhile go out together:
  // a burst of a few, not of half a second).
  let sent = 0;
  const tick = () => {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    while (sent < due) {
      fire();
      sent += 1;
    }
    if (sent < total && failure === null) setTimeout(tick, 1);
  };
  tick();
  await allSettled;
  clearInterval(watchdog);
  for (const connection of open) connection.socket.destroy();
  if (failure) throw failure;
  latencies.sort((a, b) => a - b);
  return {
    ...result,
    statusCodes,
    latencies,
    seconds: (end - start) / 1000,
    startedAt: performance.timeOrigin + start,
    stalls: slowMs === undefined ? null : stallsOf(slow),
  };
}
