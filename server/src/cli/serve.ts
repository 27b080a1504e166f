/** `gateway serve`: the API on HOST:PORT, traced from the start. */
import { loadConfig } from '../config.js';
import { startTracing } from '../tracing.js';

/** Serves until stopped; the process exits when the server closes. */
export async function serveCommand(demo: boolean): Promise<void> {
  const config = loadConfig();
  // Before the server is loaded: tracing instruments the database and Redis clients as it starts.
  const tracing = await startTracing();
  // Loaded only to serve: the server (Fastify, its plugins, the spec) is most of the command's start-up.
  const { startServer } = await import('../server.js');
  await startServer(config, { demo, tracing });
}
