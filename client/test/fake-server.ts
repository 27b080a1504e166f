/** A fake gateway behind an injected fetch: records requests and answers from a handler. */
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
