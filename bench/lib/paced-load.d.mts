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
}
export function pacedRun(options: PacedRunOptions): Promise<PacedRunResult>;
