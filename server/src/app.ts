/**
 * The application, as a composition: the server's options, one plugin per concern, the error handler, and
 * the spec mounted by fastify-openapi-glue over the handler map, each route completed from its generated
 * metadata. `buildApp` never listens; `server.ts` does.
 */
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
import { corsFor } from './plugins/cors.js';
import { docs } from './plugins/docs.js';
import { negotiation } from './plugins/negotiation.js';
import { observability } from './plugins/observability.js';
import { rateLimits } from './plugins/rate-limit.js';
import { securityHeaders } from './plugins/security-headers.js';
import { routeResolver } from './routes.js';
import { createServices } from './services.js';
import { openStore, type Store } from './store/store.js';
import type { Tracing } from './tracing.js';

/** The bundled spec (generated). */
export const specification = createRequire(import.meta.url)('@gateway/generated/openapi.json') as Record<
  string,
  unknown
>;

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
  /** Tracing, when on (tracing.ts): each request's span, around everything the app does for it. */
  tracing?: Tracing | null;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(config, options.logStream));
  if (options.tracing) await options.tracing.instrument(app);

  const store = options.store ?? openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  if (!options.store) app.addHook('onClose', () => store.close());
  await store.migrate();
  const now = options.now ?? Date.now;
  const services = createServices(config, store, { now, warn: (message) => app.log.warn(message) });
  // Revoked sign-ins are known before the first request is answered, and followed until the app closes.
  const revocations = watchRevocations(store, services.tokens.revoked, () => Math.floor(now() / 1000));
  app.addHook('onClose', () => revocations.close());
  await revocations.ready;
  // The accounts' events are followed from the start; their streams end before the server waits for its
  // connections to close.
  await services.events.start();
  app.addHook('preClose', async () => {
    await services.events.close();
  });

  securityHeaders(app);
  negotiation(app);
  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  await corsFor(app, config.corsOrigins, { localDevelopment: options.localDevelopmentOrigins });
  await rateLimits(app, config.redisUrl);
  observability(app, services.metrics);
  await docs(app, specification);
  errorHandling(app, services.metrics);

  await app.register(openapiGlue, {
    specification,
    operationResolver: routeResolver({
      handlers: options.handlers ?? defaultHandlers,
      publicContext: Object.freeze({ ...services, caller: null }),
      rateLimit: config.tokenRateLimit,
    }),
    securityHandlers: { bearer: bearer(services) },
  });

  return app;
}
