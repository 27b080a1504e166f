import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fake gateway: behind an injected fetch, or on a real HTTP server; records requests and answers from a handler. */
export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Handler = (request: Recorded) => Response | Promise<Response>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

export const errorBody = (code: number, message = 'error') => ({ errors: [{ code, message }] });

export function fakeFetch(handler: Handler) {
  const requests: Recorded[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const recorded = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: await request.text(),
    };
    requests.push(recorded);
    return handler(recorded);
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

/** A fake gateway on a real HTTP server (127.0.0.1, a free port). */
export interface HttpGateway {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: Recorded[];
  /** Stops listening and drops every connection: later calls are refused (a network error). */
  close(): Promise<void>;
}

/**
 * `handler` behind a real HTTP server: its Response is sent as it comes (a streamed body too); a promise that
 * never settles is a server that accepts and never answers; a handler that throws drops the connection.
 */
export async function httpServer(handler: Handler): Promise<HttpGateway> {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const recorded = {
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', 'http://127.0.0.1'),
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    let response: Response;
    try {
      response = await handler(recorded);
    } catch {
      req.socket.destroy();
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => undefined));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
