/**
 * Preloaded into a gateway (`node --import bench/lib/hook-filter.mjs server/dist/cli.js serve`) by
 * bench/hook-costs.mjs: leaves out the per-request work named in HOOKS_OFF (comma-separated names of
 * `PARTS` below, or `all`), so that the cost of each part can be read as the CPU a request saves without
 * it. A part is recognised by where it is registered: the file or function (and hook name) on the stack of the
 * `addHook` call, or of the server's `on` call for the connection listeners. Benchmark only: a gateway
 * started this way skips headers and checks its tests require.
 */
import { appCreated } from '../../server/dist/test-hooks.js';

/**
 * Each part: the file or function that registers it (a path fragment or a function name on the stack) and,
 * where one file registers several, the hooks (Fastify's) or server events (Node's) that belong to it.
 */
export const PARTS = {
  'request-ids': { file: '/plugins/observability.js', hooks: ['onRequest'] },
  metrics: { file: '/plugins/observability.js', hooks: ['onResponse', 'onRequestAbort'] },
  'security-headers': { file: '/plugins/security-headers.js' },
  'under-pressure': { file: '/@fastify/under-pressure/' },
  'heap-guard': { file: 'shedOnHeldHeap' },
  'unsent-answers': { file: 'shedUnsentAnswers' },
  negotiation: { file: '/plugins/negotiation.js', hooks: ['onRequest'] },
  connections: { file: '/plugins/connections.js', events: ['connection', 'request', 'clientError'] },
};

const wanted = (process.env.HOOKS_OFF ?? '').split(',').filter(Boolean);
const off = wanted.includes('all') ? Object.keys(PARTS) : wanted;
for (const name of off) {
  if (!PARTS[name]) throw new Error(`HOOKS_OFF: no part named ${name} (parts: ${Object.keys(PARTS).join(', ')})`);
}

/** The first frame of the stack outside this file and Fastify's own: who registers. */
function registrant() {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const frame = frames.find((f) => !f.includes('hook-filter.mjs') && !f.includes('/node_modules/fastify/'));
  return frame?.trim() ?? '?';
}

/** Whether the caller (on the current stack) registering `key` belongs to a part that is off. */
function skipped(key, kind) {
  if (off.length === 0) return false;
  const stack = new Error().stack ?? '';
  return off.some((name) => {
    const part = PARTS[name];
    const keys = kind === 'hook' ? part.hooks : part.events;
    if (kind === 'event' && !part.events) return false;
    return stack.includes(part.file) && (!keys || keys.includes(key));
  });
}

appCreated.push((app) => {
  const addHook = app.addHook;
  app.addHook = function (name, ...rest) {
    if (process.env.HOOKS_LIST) process.stderr.write(`hook-filter: ${name} from ${registrant()}\n`);
    return skipped(name, 'hook') ? this : addHook.call(this, name, ...rest);
  };
  const server = app.server;
  const on = server.on;
  server.on = function (event, ...rest) {
    return skipped(event, 'event') ? this : on.call(this, event, ...rest);
  };
  process.stderr.write(`hook-filter: off ${off.join(', ') || '(none)'}\n`);
});
