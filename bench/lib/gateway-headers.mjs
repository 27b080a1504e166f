/**
 * The headers the gateway's answers carry besides the body's own, written by a bare Fastify app in one hook:
 * a request id of the gateway's length (its instance's 8 hex digits, a dash, a counter in base 36), the
 * security headers of the build's plugins/security-headers.js, and `Cache-Control: no-store` where the
 * answer is a signed-in one. The floors that answer what the gateway answers, headers and all
 * (lib/bare.mjs --gateway-headers, lib/canned-reads.mjs floor-headers, lib/pg-floor.mjs gatewayHeaders).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

/** Adds the hook to `app`: `noStore` for a signed-in answer; `dist`, the build's server/dist (this checkout's). */
export async function writeGatewayHeaders(app, { noStore, dist = path.join(ROOT, 'server/dist') }) {
  const { API_HEADERS } = await import(`${pathToFileURL(path.resolve(dist)).href}/plugins/security-headers.js`);
  let count = 0;
  app.addHook('onRequest', (_request, reply, done) => {
    count += 1;
    reply.header('x-request-id', `0123abcd-${count.toString(36)}`);
    reply.headers(API_HEADERS);
    if (noStore) reply.header('cache-control', 'no-store');
    done();
  });
}
