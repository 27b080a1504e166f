/**
 * The Redis that holds the limits every instance shares (REDIS_URL), and whether it answers: 'ok' while it
 * does, 'lost' from the first connection or command that fails until it answers again. The rate limit
 * counts on this instance alone while it is lost (plugins/rate-limit.ts); one log line says it is lost and
 * one that it is back, however many requests and reconnection attempts come in between.
 */
import type { Redis } from 'ioredis';
import { redisDriver } from './lib/drivers.js';

export type SharedLimitsState = 'ok' | 'lost';

export interface SharedLimits {
  readonly redis: Redis;
  /** 'lost' while Redis does not answer (rate limits are then counted per instance); never a reason to be unready. */
  state(): SharedLimitsState;
  /** Settles once the first connection has opened or failed (bounded by the connection timeout). */
  readonly started: Promise<void>;
  /** A command answered: Redis is (back) in use. */
  answered(): void;
  /** A command failed: Redis is lost until a connection is ready or a command answers again. */
  failed(error: Error): void;
  close(): Promise<void>;
}

/**
 * No request waits long on a Redis that does not answer: commands are refused at once while disconnected
 * (no offline queue), those in flight fail when the connection closes (no retry), and a Redis that accepts
 * commands without answering them fails them after COMMAND_TIMEOUT_MS. Reconnection goes on meanwhile, with
 * ioredis's backoff (up to 2 s between attempts).
 */
const CONNECT_TIMEOUT_MS = 2000;
const COMMAND_TIMEOUT_MS = 1000;
/**
 * While lost over a connection that stays open (a Redis that stopped answering), no reconnection will say
 * when it answers again: a PING at this interval does, with or without requests to count.
 */
const PROBE_INTERVAL_MS = 2000;

export function createSharedLimits(url: string, log: { warn(message: string): void }) {
  const redis = new (redisDriver().Redis)(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  const { host, port } = redis.options;
  // Unknown until the first connection opens or fails; then announced once per change.
  let current: SharedLimitsState | 'starting' = 'starting';
  let lastError = '';
  let start: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    start = resolve;
  });
  const startTimer = setTimeout(() => start(), CONNECT_TIMEOUT_MS + 500);
  startTimer.unref();
  let probe: NodeJS.Timeout | undefined;

  const ok = () => {
    // At warning level like the loss, so that a log filtered to warnings shows the end of the outage too.
    if (current === 'lost') log.warn(`Redis at ${host}:${port} is back: rate limits are shared again`);
    current = 'ok';
    lastError = '';
    clearInterval(probe);
    probe = undefined;
    start();
  };
  const lost = (reason: string) => {
    if (current !== 'lost') {
      log.warn(
        `Redis at ${host}:${port} is lost (${reason || 'connection closed'}): ` +
          'rate limits are counted by each instance alone until it is back',
      );
    }
    current = 'lost';
    // Refused at once while disconnected (no offline queue): the probe costs nothing then.
    probe ??= setInterval(() => redis.ping().then(ok, () => {}), PROBE_INTERVAL_MS).unref();
    start();
  };
  // Every reconnection attempt fails with an error event: remembered for the one line, never logged itself
  // (and listened to, so that ioredis does not print it either).
  redis.on('error', (error: Error) => {
    lastError = error.message;
  });
  redis.on('ready', ok);
  redis.on('close', () => lost(lastError));

  const limits: SharedLimits = {
    redis,
    state: () => (current === 'ok' ? 'ok' : 'lost'),
    started,
    answered: ok,
    failed: (error) => lost(error.message),
    async close() {
      clearTimeout(startTimer);
      clearInterval(probe);
      redis.removeAllListeners('close');
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return limits;
}
