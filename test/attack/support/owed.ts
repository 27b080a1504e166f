/**
 * What a running gateway owes its clients, read as another client would: a GET's status from an address of
 * its own, and the samples of /metrics (`gateway_unsent_answer_bytes`, the refusals by reason, the pool).
 */
import http from 'node:http';

/** GET `path` from `localAddress` on a connection of its own: the status and body (status 0: no answer). */
export function getFrom(
  url: string,
  path: string,
  localAddress: string,
  timeoutMs = 10_000,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const request = http.get(`${url}${path}`, { localAddress, agent: false, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', () => resolve({ status: 0, body }));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve({ status: 0, body: '' }));
  });
}

/** The samples of /metrics by series (`name` or `name{labels}`); empty when the server does not answer. */
export async function metricsOf(url: string, localAddress: string): Promise<Map<string, number>> {
  const { status, body } = await getFrom(url, '/metrics', localAddress);
  if (status !== 200) return new Map();
  return new Map(
    body
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => {
        const at = line.lastIndexOf(' ');
        return [line.slice(0, at), Number(line.slice(at + 1))] as const;
      }),
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the database pool has been idle (no query running or waiting) in three readings in a row:
 * every request the server took has had its answer made by then. False past `ms` (the server is gone).
 */
export async function poolIdle(url: string, localAddress: string, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  let quiet = 0;
  while (quiet < 3) {
    if (Date.now() > deadline) return false;
    const m = await metricsOf(url, localAddress);
    const total = m.get('gateway_db_pool_connections{state="total"}');
    const idle = m.get('gateway_db_pool_connections{state="idle"}');
    const waiting = m.get('gateway_db_pool_connections{state="waiting"}');
    quiet = total !== undefined && idle === total && waiting === 0 ? quiet + 1 : 0;
    await sleep(100);
  }
  return true;
}
