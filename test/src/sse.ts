/** A client of GET /v1/events reading the raw stream: the server's tests' own (server/test/support/sse.ts), shared. */
export { Sse, type SseMessage } from '../../server/test/support/sse.js';
