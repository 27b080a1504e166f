/**
 * The application, as a composition: the server's options, one plugin per concern, the error handler, and
 * the spec mounted by fastify-openapi-glue over the handler map, each route completed from its generated
 * metadata. `buildApp` never listens; `server.ts` does.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import formbody from '@fastify/formbody';
import type { HandlerMap } from '@gateway/generated';
import Fastify, { type FastifyInstance } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { bearer } from './bearer.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { watchRevocations } from './domain/revocations.js';
import { errorHandling } from './error-handler.js';
import { BODY_LIMIT, fastifyOptions } from './fastify-options.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { ConnectionSlots, connectionLimits } from './lib/connection-caps.js';
import type { Metrics } from './metrics.js';
import { databaseRetry } from './operator/database-wait.js';
import { connections } from './plugins/connections.js';
import { corsFor } from './plugins/cors.js';
import { docs } from './plugins/docs.js';
import { negotiation } from './plugins/negotiation.js';
import { observability, returnRequestIds } from './plugins/observability.js';
import { overload } from './plugins/overload.js';
import { protocolRules } from './plugins/protocol-rules.js';
import { rateLimits } from './plugins/rate-limit.js';
import { securityHeaders } from './plugins/security-headers.js';
import { routeResolver } from './routes.js';
import { createServices } from './services.js';
import { DatabaseAhead } from './store/migrator.js';
import { openStore, type Store } from './store/store.js';
import { appCreated } from './test-hooks.js';
import type { Tracing } from './tracing.js';
import { VERSION } from './version.js';

/** The bundled spec (generated). */
export const specification = createRequire(import.meta.url)('@gateway/generated/openapi.json') as Record<
  string,
  unknown
>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics: served at /metrics, or by server.ts on METRICS_PORT when it is set. */
    gatewayMetrics: Metrics;
  }
}

export interface AppOptions {
  /** A store to use instead of opening `config.databaseUrl` (the app then does not close it). */
  store?: Store;
  /** The clock, milliseconds (tests move it). */
  now?: () => number;
  /** The handler map (the real one by default; tests replace it). */
  handlers?: HandlerMap<Context>;
  /** Where log lines go (standard output by default). */
  logStream?: { write(line: string): void };
  /** Demo mode: CORS also accepts local development origins (`http://localhost:<port>`, `http://127.0.0.1:<port>`). */
  localDevelopmentOrigins?: boolean;
  /**
   * How long to wait at start for a database that does not answer yet, ms (`serve`: DATABASE_WAIT_SECONDS);
   * none by default: its failure is thrown at once.
   */
  databaseWaitMs?: number;
  /** Tracing, when on (tracing.ts): each request's span, around everything the app does for it. */
  tracing?: Tracing | null;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  // Names this process in request ids, logs and metrics: random at each start, unique across instances.
  const instanceId = randomBytes(4).toString('hex');
  const app = Fastify(fastifyOptions(config, instanceId, options.logStream));
  for (const created of appCreated) created(app);
  if (options.tracing) await options.tracing.instrument(app);

  const store =
    options.store ??
    openStore(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      poolMode: config.databasePoolMode,
      directUrl: config.databaseDirectUrl,
      notice: (message) => app.log.warn(message),
    });
  if (!options.store) app.addHook('onClose', () => store.close());
  const retry = databaseRetry({
    waitMs: options.databaseWaitMs ?? 0,
    setting: 'DATABASE_WAIT_SECONDS',
    say: (level, line) => app.log[level](line),
  });
  try {
    await (retry ? retry(() => store.migrate(), { to: 'start', done: 'starting' }) : store.migrate());
  } catch (error) {
    // A newer release migrated the database (a rolling upgrade, or a rollback to this release): its schema
    // is this release's and more, so serve on it as it is.
    if (!(error instanceof DatabaseAhead)) throw error;
    app.log.warn(error.notice('serving'));
  }
  const now = options.now ?? Date.now;
  const connectionSlots = new ConnectionSlots(connectionLimits(config));
  const services = createServices(config, store, { now, log: app.log, connections: connectionSlots });
  app.addHook('onClose', async () => services.database.close());
  app.decorate('gatewayMetrics', services.metrics);
  const { sharedLimits } = services;
  if (sharedLimits) app.addHook('onClose', () => sharedLimits.close());
  // Revoked sign-ins are known before the first request is answered, and followed until the app closes.
  const revocations = watchRevocations(
    store,
    services.tokens.revoked,
    () => Math.floor(now() / 1000),
    (message) => app.log.warn(message),
  );
  app.addHook('onClose', () => revocations.close());
  await revocations.ready;
  // The accounts' events are followed from the start; their streams end before the server waits for its
  // connections to close.
  await services.events.start();
  app.addHook('preClose', async () => {
    await services.events.close();
  });

  // At the socket, before a byte is read: connections over a cap, and new ones that send nothing, let go.
  connections(app, connectionSlots, { idleConnectionTimeoutMs: config.idleConnectionTimeoutMs });
  returnRequestIds(app);
  securityHeaders(app);
  // Before any other work: a request refused for overload costs next to nothing.
  await overload(app, config, services.metrics);
  protocolRules(app);
  negotiation(app);
  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  await corsFor(app, config.corsOrigins, { localDevelopment: options.localDevelopmentOrigins });
  await rateLimits(app, sharedLimits);
  observability(app, services.metrics);
  // What an operator needs to know of a start, in one line: which release, where its data is, which keys.
  app.addHook('onListen', function started(done) {
    this.log.info(
      {
        version: VERSION,
        instance: instanceId,
        database: store.dialect,
        keyId: services.tokens.keyId,
        acceptedKeyIds: [...services.tokens.verifyingKeys.keys()].filter((id) => id !== services.tokens.keyId),
        redis: config.redisUrl !== '',
        trustProxyHops: config.trustProxyHops,
        connectionLimits: connectionSlots.limits,
        corsOrigins: config.corsOrigins.length,
        addresses: this.addresses().map((a) => (typeof a === 'string' ? a : `${a.address}:${a.port}`)),
      },
      `gateway ${VERSION} started (instance ${instanceId}, ${store.dialect}, signing key ${services.tokens.keyId})`,
    );
    done();
  });
  // Before every route, the reference's included: a route keeps the handlers in force when it is added.
  errorHandling(app, services);
  await docs(app, specification);

  // Every request has the property from the start (one object shape for all requests, signed in or not:
  // a property added by the bearer check made two, and every hook that reads a request saw both).
  app.decorateRequest('caller', null);
  const securityChecks = { bearer: bearer(services) };
  await app.register(openapiGlue, {
    specification,
    operationResolver: routeResolver({
      handlers: options.handlers ?? defaultHandlers,
      specification,
      securityChecks,
      publicContext: Object.freeze({ ...services, caller: null, client: null }),
      rateLimit: config.tokenRateLimit,
    }),
    securityHandlers: securityChecks,
  });

  return app;
}
