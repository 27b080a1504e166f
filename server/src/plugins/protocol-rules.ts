/**
 * Two rules of HTTP/1.1 that Node's server would otherwise apply itself, answering before any hook with a
 * bare status (no security headers, no request id, no error body): a request without `Host` (RFC 9112
 * §3.2: 400) and an expectation other than `100-continue` (RFC 9110 §10.1.1: the server may refuse it). Here
 * they reach the app (`requireHostHeader: false` in fastify-options.ts, and Node's `checkExpectation` event)
 * and are refused in the spec's error body, with every header any answer has. `Expect: 100-continue` is
 * still Node's: it sends `100 Continue` and then the request goes on as usual.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export function protocolRules(app: FastifyInstance): void {
  /** Requests whose `Expect` Node handed over (not `100-continue`). */
  const unmetExpectations = new WeakSet<IncomingMessage>();
  app.server.on('checkExpectation', (request: IncomingMessage, response) => {
    unmetExpectations.add(request);
    app.routing(request, response);
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(
        new ApiError('missing_parameter', 'An HTTP/1.1 request must have a Host header', {
          details: { parameter: 'host' },
        }),
      );
      return;
    }
    if (unmetExpectations.has(request.raw)) {
      done(
        new ApiError('invalid_parameter', 'The only expectation understood is 100-continue', {
          details: { parameter: 'expect' },
        }),
      );
      return;
    }
    done();
  });
}
