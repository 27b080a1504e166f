/**
 * Configuration: one validated schema, read from the environment (and a `.env` file when present).
 * The defaults make the embedded mode work with no setup. `.env.example` documents every key.
 */
import { existsSync } from 'node:fs';
import dotenvFile from 'dotenv';
import { readSetting, type Setting } from './lib/settings.js';

/**
 * Every key of the configuration, once: its check and default (JSON Schema's words, read by `readSetting`) and
 * its meaning. The environment names a key in CONSTANT_CASE (`databasePoolSize` is DATABASE_POOL_SIZE); a
 * key with a `separator` is a list.
 */
const settings = {
  /** TCP port to listen on. */
  port: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
  /** Interface to listen on. */
  host: { type: 'string', minLength: 1, default: '127.0.0.1' },
  /** `sqlite:<file>` (embedded, default) or `postgres://…`. */
  databaseUrl: { type: 'string', pattern: '^(sqlite:|file:|postgres(ql)?://).+', default: 'sqlite:./data/gateway.db' },
  /** Folder for the embedded database and the secrets generated in embedded mode. */
  dataDir: { type: 'string', minLength: 1, default: './data' },
  /** The ledger's chain id: `W` (main network) or `T` (test network). */
  chainId: { type: 'string', enum: ['W', 'T'], default: 'W' },
  /** Client ids accepted in token requests (the signature covers the client id). */
  clientIds: {
    type: 'string',
    pattern: '^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$',
    separator: ',',
    default: 'waves.exchange,wx.network',
  },
  /** PKCS#8 PEM of the Ed25519 key that signs access tokens; generated into dataDir when empty (embedded only). */
  tokenSigningKey: { type: 'string', default: '' },
  /**
   * Public keys (SPKI PEM, comma-separated) whose tokens are accepted besides the signing key's: the next key
   * while a rotation is announced, the previous one until its tokens have expired.
   */
  tokenAcceptedPublicKeys: { type: 'string', separator: ',', default: '' },
  /** The earlier name of TOKEN_ACCEPTED_PUBLIC_KEYS, still read (both lists are accepted). */
  tokenPreviousPublicKeys: { type: 'string', separator: ',', default: '' },
  /** Refresh-token lifetime, seconds. */
  refreshTokenTtl: { type: 'integer', minimum: 60, maximum: 31_536_000, default: 2_592_000 },
  /**
   * Seconds after its exchange during which a spent refresh token presented again gets a new pair of the same
   * sign-in instead of revoking it: the tabs of a browser share the session through a storage whose writes
   * reach the other tabs late, so a tab may present the token another tab has just spent. 0: every replay
   * revokes the sign-in.
   */
  refreshReuseGraceSeconds: { type: 'integer', minimum: 0, maximum: 300, default: 30 },
  /** Secret seed phrase that withdrawal proxy addresses derive from; generated into dataDir when empty (embedded only). */
  proxySeed: { type: 'string', default: '' },
  /** Secret that authenticates page cursors (hex, at least 32 bytes); generated into dataDir when empty (embedded only). */
  cursorSecret: { type: 'string', pattern: '^([0-9a-fA-F]{64,})?$', default: '' },
  /**
   * How DATABASE_URL reaches PostgreSQL: `session`, directly (or through a pooler in session mode), or
   * `transaction`, through a transaction-mode pooler (PgBouncer's `pool_mode = transaction`, a managed
   * service's pooler), where a connection is the instance's for one transaction only: no statement is
   * prepared by name, and what needs a session of its own (LISTEN) takes DATABASE_DIRECT_URL.
   */
  databasePoolMode: { type: 'string', enum: ['session', 'transaction'], default: 'session' },
  /**
   * A direct connection to the same PostgreSQL database, past the pooler: what a transaction pooler cannot
   * carry (LISTEN for events and revocations across instances, migrations). Empty: DATABASE_URL.
   */
  databaseDirectUrl: { type: 'string', pattern: '^(postgres(ql)?://.+)?$', default: '' },
  /** Events older than this many hours are deleted by the housekeeper; a resume from before them gets a `reset`. */
  eventRetentionHours: { type: 'integer', minimum: 1, maximum: 8760, default: 24 },
  /** Seconds between two housekeeping runs (old events, sign-out marks, expired and long-revoked sign-ins). */
  housekeepingIntervalSeconds: { type: 'integer', minimum: 10, maximum: 86_400, default: 600 },
  /**
   * Password grants (new sign-ins) one client address (an IPv6 client by its /64) may make an hour; 0: no
   * bound. Accounts are free key pairs: this bounds the rows one client can make through many accounts.
   */
  signInsPerAddressHour: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 300 },
  /** New withdrawal proxies one client address may have created an hour, whatever the accounts; 0: no bound. */
  withdrawalAddressesPerAddressHour: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 60 },
  /** Maximum PostgreSQL connections per instance. */
  databasePoolSize: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
  /** Seconds `serve` and `migrate` wait at start for a database that does not answer yet; 0: exit 3 at once. */
  databaseWaitSeconds: { type: 'integer', minimum: 0, maximum: 3600, default: 60 },
  /** Token requests allowed per client IP per minute. */
  tokenRateLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 60 },
  /** Event streams (GET /v1/events) one account may hold open on an instance; the next one is refused (429). */
  eventStreamsPerAccount: { type: 'integer', minimum: 1, maximum: 10_000, default: 5 },
  /**
   * Event streams an instance holds open in all; the next one is refused (503 with Retry-After). 0: derived
   * from the process's heap limit (domain/event-stream-limits.ts).
   */
  eventStreamsPerInstance: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  /** Withdrawal proxy addresses an account may hold; a new one past it is refused (403, code 10102). */
  withdrawalAddressesPerAccount: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 100 },
  /**
   * New withdrawal proxy addresses an account may create per minute (one more: 429 with Retry-After), counted
   * in Redis with REDIS_URL; asking again for one it has is never limited.
   */
  withdrawalAddressRateLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 10 },
  /**
   * Redis for limits shared by every instance (`redis://host:6379`); empty, or while it does not answer: limits
   * in memory, per instance.
   */
  redisUrl: { type: 'string', pattern: '^(rediss?://.+)?$', default: '' },
  /** Trust X-Forwarded-* from this many proxy hops (behind a load balancer), so limits see client addresses. */
  trustProxyHops: { type: 'integer', minimum: 0, maximum: 10, default: 0 },
  /**
   * Connections one client address (an IPv6 address: its /64) may hold open; the next is closed at once. 0:
   * no such cap. Not applied with TRUST_PROXY_HOPS above 0, where every connection comes from the proxy.
   */
  connectionsPerAddress: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 256 },
  /**
   * Connections the instance holds open in all; the next is closed at once. 0: derived from the process's
   * open-file limit and heap, the lower (lib/connection-caps.ts).
   */
  connectionsPerInstance: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  /** A connection that has not sent a whole request yet is closed after this long without a byte (ms). */
  idleConnectionTimeoutMs: { type: 'integer', minimum: 100, maximum: 60_000, default: 5_000 },
  /** A request's line and headers must have arrived this long after its first byte (ms); else 408 and close. */
  headersTimeoutMs: { type: 'integer', minimum: 100, maximum: 30_000, default: 10_000 },
  /**
   * How long a connection is kept open, idle, after an answer (ms). 0: 5 s, or with TRUST_PROXY_HOPS above 0
   * 72 s (longer than the 60 s a load balancer keeps an idle connection to its targets).
   */
  keepAliveTimeoutMs: { type: 'integer', minimum: 0, maximum: 600_000, default: 0 },
  /** Browser origins allowed to call the API (CORS); `*` for any; empty for none. */
  corsOrigins: {
    type: 'string',
    pattern: '^(\\*|(https?://[^,\\s/]+)(,https?://[^,\\s/]+)*)?$',
    separator: ',',
    default: '',
  },
  /**
   * Shed requests (503, 11202) while the event loop lags more than this (milliseconds); 0 (the default): never
   * for it. Off by default: one long synchronous piece of work (a start-up load, an SQLite write of a large
   * batch) lags a whole one-second sample and would shed every request of the next second.
   */
  overloadEventLoopDelayMs: { type: 'integer', minimum: 0, maximum: 60_000, default: 0 },
  /**
   * Shed requests while the heap in use is above this share (percent) of the old generation's limit
   * (`--max-old-space-size`, where V8 stops the process); 0: never for it.
   */
  overloadHeapPercent: { type: 'integer', minimum: 0, maximum: 100, default: 90 },
  /**
   * Shed requests while the answers handed to their connections and not yet written to the network (clients
   * that read slowly, or not at all) hold more than this (MiB); 0: never for it. An answer is owed from when
   * it is made until it is written, discarded, or its connection is gone (an answer made after its client
   * left is not owed at all): `gateway_unsent_answer_bytes`. Whatever this is, a connection owes at most 16
   * answers at once (requests in progress or answered and unwritten: HTTP/1.1 pipelining); the 17th request
   * ends the connection (plugins/overload.ts, ANSWERS_OWED_PER_CONNECTION).
   */
  overloadUnsentMib: { type: 'integer', minimum: 0, maximum: 65_536, default: 64 },
  /** A port of its own for GET /metrics (the API's port then answers 404 there); 0: on the API's port. */
  metricsPort: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
  /** Interface of the metrics port. */
  metricsHost: { type: 'string', minLength: 1, default: '127.0.0.1' },
  /** Log level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
  /**
   * How log lines are written: `json` (one JSON object a line, for collectors), `pretty` (readable lines,
   * pino-pretty), or `auto` (default): pretty when standard output is a terminal, JSON otherwise.
   */
  logFormat: { type: 'string', enum: ['auto', 'json', 'pretty'], default: 'auto' },
} as const satisfies Record<string, Setting>;

/** The value a setting gives: a list when it has a separator, one of its enum, a number or text. */
type SettingValue<S> = S extends { separator: string }
  ? string[]
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: 'integer' }
      ? number
      : string;

/** The configuration, as the rest of the code reads it (each key documented in `settings`). */
export type Config = { -readonly [K in keyof typeof settings]: SettingValue<(typeof settings)[K]> };
type ConfigKey = keyof Config;

/** The environment's name of a key: `databasePoolSize` → `DATABASE_POOL_SIZE`. */
const envName = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();

/** Every key's name in the environment (and in `.env.example`). */
export const configEnvNames: readonly string[] = Object.keys(settings).map(envName);

export class ConfigError extends Error {}

/**
 * Reads and checks the configuration from `env` (the process's environment, after a `.env` file of the working
 * folder when `dotenv` is set: it sets only what the environment does not); throws ConfigError naming every bad
 * key (never its value: some are secrets). A key that is not set takes its default.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, dotenv = true): Config {
  // dotenv's rules of quoting and lines; it sets only what `env` does not.
  if (dotenv && existsSync('.env')) dotenvFile.config({ quiet: true, processEnv: env as Record<string, string> });
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, setting] of Object.entries(settings) as [ConfigKey, Setting][]) {
    const read = readSetting(envName(key), setting, env[envName(key)]);
    if ('problem' in read) problems.push(read.problem);
    else config[key] = read.value;
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return config as Config;
}

/**
 * Serving with PostgreSQL needs the shared secrets from configuration: every instance must sign and check
 * tokens, derive proxies and read cursors the same way. (The embedded mode keeps generated ones on disk.)
 */
export function requireSharedSecrets(config: Config): void {
  if (!/^postgres/i.test(config.databaseUrl)) return;
  const missing = (
    [
      ['TOKEN_SIGNING_KEY', config.tokenSigningKey],
      ['PROXY_SEED', config.proxySeed],
      ['CURSOR_SECRET', config.cursorSecret],
    ] as const
  )
    .filter(([, value]) => !value)
    .map(([key]) => key);
  if (missing.length > 0) {
    throw new ConfigError(
      `invalid configuration: ${missing.join(', ')} must be set with a PostgreSQL DATABASE_URL (every instance needs the same secrets)`,
    );
  }
}

/** A configuration for tests and tools: defaults, then `overrides`. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // Tests and tools come from one address: the limits per address are lifted unless a test sets them.
  return {
    ...loadConfig({}, false),
    logLevel: 'silent',
    signInsPerAddressHour: 0,
    withdrawalAddressesPerAddressHour: 0,
    ...overrides,
  };
}
