/**
 * Raw HTTP/1.1 requests with node:http: the path is sent exactly as given (no WHATWG URL normalisation, so
 * `%2e%2e/` and invalid percent escapes reach the server), headers may repeat, the body is sent as bytes.
 */
import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, sent as they are. */
  path: string;
  /** A value given as an array is sent as repeated header lines. */
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  /** Send the body with chunked transfer encoding instead of a Content-Length. */
  chunked?: boolean;
  timeoutMs?: number;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON when the answer says it is JSON and parses, else the text. */
  body: unknown;
  /** Set when no complete answer came back: a timeout (hang), a reset, a parse error. */
  error?: string;
  ms: number;
}

// No keep-alive: a reused socket the server has just closed would fail the next request for no fault of the server.
const agent = new http.Agent({ keepAlive: false, maxSockets: 64 });

export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? 5000;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string | string[]> = { ...request.headers };
  const hasHeader = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (body !== undefined && !request.chunked && !hasHeader('content-length')) {
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<RawAnswer, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, ms: Date.now() - started });
    };
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: request.path,
        headers,
        agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // The client refused to send it (e.g. a character Node does not allow in a header): not the server's doing.
      finish({ status: -1, headers: {}, text: '', body: '', error: `client refused: ${(error as Error).message}` });
      return;
    }
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      // An event stream does not end while its token lives: its answer is what it opens with.
      if (/^text\/event-stream/i.test(String(response.headers['content-type'] ?? ''))) {
        response.once('data', (chunk: Buffer) => {
          const text = chunk.toString('utf8');
          finish({ status: response.statusCode ?? 0, headers: response.headers, text, body: text });
          req.destroy();
        });
        return;
      }
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) =>
        finish({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: '',
          body: '',
          error: error.message,
        }),
      );
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if (text && /json/i.test(String(response.headers['content-type'] ?? ''))) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        finish({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
      });
    });
    req.on('error', (error: Error & { code?: string }) => {
      const hang = error.name === 'AbortError' || error.name === 'TimeoutError' || error.code === 'ABORT_ERR';
      finish({
        status: 0,
        headers: {},
        text: '',
        body: '',
        error: hang ? `no answer within ${timeoutMs} ms (hang)` : `${error.code ?? error.name}: ${error.message}`,
      });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Runs `tasks` with at most `concurrency` in flight, keeping their order in the result. */
export async function pool<T>(tasks: readonly (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return results;
}

export function destroyAgent(): void {
  agent.destroy();
}
