/**
 * The largest records the spec allows and records over its bounds: the server's tests' own
 * (server/test/support/largest-records.ts), shared rather than copied.
 */
export * from '../../server/test/support/largest-records.js';
