/** Requests by operation and status, with their latency (metrics.ts registers them). */

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Requests by (operation, status): a counter and a duration histogram, accumulated in plain numbers and
 * handed to prom-client's registry (which formats them) at scrape time: prom-client's own metrics validate
 * and hash the labels on every observation, even through `labels()`, a cost of its own on every request
 * (measured in bench/README.md). Both label sets are bounded
 * (operationIds and routes; statuses). The test renders the same observations with prom-client's classes.
 */
export function requestMetrics() {
  interface Series {
    labels: { operation: string; status: string };
    count: number;
    sum: number;
    /** Observations per bucket (not cumulative); the last one is above every bound. */
    buckets: number[];
  }
  // By operation, then status: both keys are hashed once (an operation name is one of a fixed set of strings,
  // a status a small integer), where a joined key would be built and hashed on every observation.
  const series = new Map<string, Map<number, Series>>();
  const all = () => [...series.values()].flatMap((byStatus) => [...byStatus.values()]);
  const counter = {
    name: 'gateway_http_requests_total',
    help: 'Requests answered, by operation and status.',
    type: 'counter',
    aggregator: 'sum',
    async get() {
      const values = all().map((s) => ({ labels: { ...s.labels }, value: s.count }));
      return { name: counter.name, help: counter.help, type: counter.type, aggregator: counter.aggregator, values };
    },
    reset: () => series.clear(),
  };
  const histogram = {
    name: 'gateway_http_request_duration_seconds',
    help: 'Time to answer, by operation and status.',
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const name = histogram.name;
      const values = all().flatMap((s) => {
        let cumulative = 0;
        return [
          ...DURATION_BUCKETS.map((le, i) => {
            cumulative += s.buckets[i] ?? 0;
            return { labels: { le, ...s.labels }, value: cumulative, metricName: `${name}_bucket` };
          }),
          { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` },
          { labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` },
          { labels: { ...s.labels }, value: s.count, metricName: `${name}_count` },
        ];
      });
      return { name, help: histogram.help, type: histogram.type, aggregator: histogram.aggregator, values };
    },
    reset: () => series.clear(),
  };
  const observe = (operation: string, status: number, seconds: number) => {
    let byStatus = series.get(operation);
    if (!byStatus) {
      byStatus = new Map();
      series.set(operation, byStatus);
    }
    let s = byStatus.get(status);
    if (!s) {
      s = { labels: { operation, status: String(status) }, count: 0, sum: 0, buckets: DURATION_BUCKETS.map(() => 0) };
      s.buckets.push(0);
      byStatus.set(status, s);
    }
    s.count += 1;
    s.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    s.buckets[bucket] = (s.buckets[bucket] ?? 0) + 1;
  };
  return { counter, histogram, observe };
}
