/** The housekeeper's metrics (operator/housekeeper.ts), read at scrape time. */
import client from 'prom-client';

/** What the housekeeper says of itself. */
export interface HousekeeperSource {
  readonly holding: boolean;
  readonly deleted: Readonly<Record<string, number>>;
  readonly lastRunAt: number;
  readonly failures: number;
}

export function registerHousekeeper(registry: client.Registry, source: HousekeeperSource): void {
  new client.Gauge({
    name: 'gateway_housekeeper',
    help: 'Whether this instance is the housekeeper of its database now (1; one instance holds its lock) or not (0).',
    registers: [registry],
    collect() {
      this.set(source.holding ? 1 : 0);
    },
  });
  new client.Counter({
    name: 'gateway_housekeeping_deleted_total',
    help: 'Rows the housekeeper of this instance deleted, by task (events, sign-outs, sign-ins).',
    labelNames: ['task'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [task, n] of Object.entries(source.deleted)) this.inc({ task }, n);
    },
  });
  new client.Gauge({
    name: 'gateway_housekeeping_last_run_timestamp_seconds',
    help: "When this instance's housekeeping last ran to its end (seconds since the epoch; 0 before any).",
    registers: [registry],
    collect() {
      this.set(source.lastRunAt / 1000);
    },
  });
  new client.Counter({
    name: 'gateway_housekeeping_failures_total',
    help: 'Housekeeping runs of this instance that failed (each also one log line).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(source.failures);
    },
  });
}
