/**
 * Configuration: one validated schema, read from the environment (and a `.env` file when present).
 * The defaults make the embedded mode work with no setup. `.env.example` documents every key.
 */
import envSchema from 'env-schema';

export interface Config {
  /** TCP port to listen on. */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** `sqlite:<file>` (embedded, default) or `postgres://…`. */
  databaseUrl: string;
  /** Folder for the embedded database and the secrets generated in embedded mode. */
  dataDir: string;
  /** The ledger's chain id: `W` (main network) or `T` (test network). */
  chainId: 'W' | 'T';
  /** Client ids accepted in token requests (the signature covers the client id). */
  clientIds: string[];
  /** PKCS#8 PEM of the Ed25519 key that signs access tokens; generated into dataDir when empty (embedded only). */
  tokenSigningKey: string;
  /** Public keys (PKCS#8/SPKI PEM, comma-separated) of earlier signing keys whose tokens are still accepted. */
  tokenPreviousPublicKeys: string[];
  /** Refresh-token lifetime, seconds. */
  refreshTokenTtl: number;
  /** Secret seed phrase that withdrawal proxy addresses derive from; generated into dataDir when empty (embedded only). */
  proxySeed: string;
  /** Secret that authenticates page cursors (hex, at least 32 bytes); generated into dataDir when empty (embedded only). */
  cursorSecret: string;
  /** Browser origins allowed to call the API (CORS); `*` for any; empty for none. */
  corsOrigins: string[];
  /** Redis for limits shared by every instance (`redis://host:6379`); empty: limits in memory, per instance. */
  redisUrl: string;
  /** Trust X-Forwarded-* from this many proxy hops (behind a load balancer), so limits see client addresses. */
  trustProxyHops: number;
  /** Token requests allowed per client IP per minute. */
  tokenRateLimit: number;
  /** Maximum PostgreSQL connections per instance. */
  databasePoolSize: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const schema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    DATABASE_URL: {
      type: 'string',
      pattern: '^(sqlite:|file:|postgres(ql)?://).+',
      default: 'sqlite:./data/gateway.db',
    },
    DATA_DIR: { type: 'string', minLength: 1, default: './data' },
    CHAIN_ID: { type: 'string', enum: ['W', 'T'], default: 'W' },
    CLIENT_IDS: {
      type: 'string',
      pattern: '^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$',
      default: 'waves.exchange,wx.network',
    },
    TOKEN_SIGNING_KEY: { type: 'string', default: '' },
    TOKEN_PREVIOUS_PUBLIC_KEYS: { type: 'string', default: '' },
    REFRESH_TOKEN_TTL: { type: 'integer', minimum: 60, maximum: 31_536_000, default: 2_592_000 },
    PROXY_SEED: { type: 'string', default: '' },
    CURSOR_SECRET: { type: 'string', pattern: '^([0-9a-fA-F]{64,})?$', default: '' },
    DATABASE_POOL_SIZE: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    TOKEN_RATE_LIMIT: { type: 'integer', minimum: 1, maximum: 100_000, default: 60 },
    REDIS_URL: { type: 'string', pattern: '^(rediss?://.+)?$', default: '' },
    TRUST_PROXY_HOPS: { type: 'integer', minimum: 0, maximum: 10, default: 0 },
    CORS_ORIGINS: { type: 'string', pattern: '^(\\*|(https?://[^,\\s/]+)(,https?://[^,\\s/]+)*)?$', default: '' },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
  },
} as const;

interface RawConfig {
  PORT: number;
  HOST: string;
  DATABASE_URL: string;
  DATA_DIR: string;
  CHAIN_ID: 'W' | 'T';
  CLIENT_IDS: string;
  TOKEN_SIGNING_KEY: string;
  TOKEN_PREVIOUS_PUBLIC_KEYS: string;
  REFRESH_TOKEN_TTL: number;
  PROXY_SEED: string;
  CURSOR_SECRET: string;
  DATABASE_POOL_SIZE: number;
  TOKEN_RATE_LIMIT: number;
  CORS_ORIGINS: string;
  REDIS_URL: string;
  TRUST_PROXY_HOPS: number;
  LOG_LEVEL: Config['logLevel'];
}

export class ConfigError extends Error {}

/** Reads and validates the configuration; throws ConfigError naming the bad keys. */
export function loadConfig(env: Record<string, string | undefined> = process.env, dotenv = true): Config {
  let raw: RawConfig;
  try {
    raw = envSchema<RawConfig>({ schema, data: env, dotenv: dotenv ? { quiet: true } : false });
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
  const config: Config = {
    port: raw.PORT,
    host: raw.HOST,
    databaseUrl: raw.DATABASE_URL,
    dataDir: raw.DATA_DIR,
    chainId: raw.CHAIN_ID,
    clientIds: raw.CLIENT_IDS.split(','),
    tokenSigningKey: raw.TOKEN_SIGNING_KEY,
    tokenPreviousPublicKeys: raw.TOKEN_PREVIOUS_PUBLIC_KEYS ? raw.TOKEN_PREVIOUS_PUBLIC_KEYS.split(',') : [],
    refreshTokenTtl: raw.REFRESH_TOKEN_TTL,
    proxySeed: raw.PROXY_SEED,
    cursorSecret: raw.CURSOR_SECRET,
    tokenRateLimit: raw.TOKEN_RATE_LIMIT,
    redisUrl: raw.REDIS_URL,
    trustProxyHops: raw.TRUST_PROXY_HOPS,
    corsOrigins: raw.CORS_ORIGINS ? raw.CORS_ORIGINS.split(',') : [],
    databasePoolSize: raw.DATABASE_POOL_SIZE,
    logLevel: raw.LOG_LEVEL,
  };
  return config;
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
  return { ...loadConfig({}, false), logLevel: 'silent', ...overrides };
}
