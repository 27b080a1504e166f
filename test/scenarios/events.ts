import { prefer, type Scenario } from '../src/scenario.js';

export const eventScenarios: Scenario[] = [
  {
    name: "the signed-in account's event stream opens",
    operationId: 'listEvents',
    request: { path: '/v1/events', auth: 'token', headers: { Accept: 'text/event-stream' } },
    expect: { status: 200, headers: { 'content-type': /^text\/event-stream/, 'cache-control': /no-store/ } },
    // Prism's validating proxy waits for a whole answer, and a stream does not end while its token lives: the
    // real server's streams are tested in server/test/handlers/events.test.ts and by the example walk.
    only: 'mock',
  },
  {
    name: 'the event stream without a token: 401',
    operationId: 'listEvents',
    request: { path: '/v1/events', headers: { Accept: 'text/event-stream' } },
    expect: { status: 401, code: 10000, headers: { 'www-authenticate': /^Bearer/ } },
  },
  {
    name: 'the event stream with a malformed Last-Event-ID: 400',
    operationId: 'listEvents',
    request: {
      path: '/v1/events',
      auth: 'token',
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'abc', ...prefer(400) },
    },
    expect: { status: 400, code: 10201 },
  },
];
