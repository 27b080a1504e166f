/** Types of bench/lib/paced-load.mjs, for its test (test/scripts/paced-load.test.ts). */
export interface PacedRunOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** A request's body, asked for each request (none when absent). */
  bodyOf?: () => string | undefined;
  connections: number;
  /** Requests a second, all connections together. */
  rate: number;
  seconds: number;
  /** Whether to keep each request's latency. */
  record: boolean;
  timeoutMs: number;
  /** With `record`: requests slower than this (ms) reported as `stalls`. */
  slowMs?: number;
}
export interface Stall {
  /** When its first request came due, in ms after the run's start. */
  atMs: number;
  requests: number;
  maxMs: number;
  /** From its first request due to its last answer. */
  spanMs: number;
}
export interface PacedRunResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytes: number;
  /** Requests found due while every connection was busy. */
  queued: number;
  statusCodes: Record<string, number>;
  /** Milliseconds, sorted, from when each request was found due to its answer's last byte. */
  latencies: number[];
  seconds: number;
  /** When the first request came due, in ms since the epoch. */
  startedAt: number;
  /** Slow requests due within 50 ms of each other, together; null without `slowMs`. */
  stalls: Stall[] | null;
}
export function pacedRun(options: PacedRunOptions): Promise<PacedRunResult>;
