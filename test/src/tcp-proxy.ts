/**
 * A TCP proxy that can cut its connections and refuse new ones (a database or Redis going away), or stall
 * them: the server's tests' own (server/test/support/tcp-proxy.ts), shared rather than copied.
 */
export { startTcpProxy, type TcpProxy } from '../../server/test/support/tcp-proxy.js';
