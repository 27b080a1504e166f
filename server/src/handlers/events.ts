/** The signed-in account's event stream (Server-Sent Events). */
import type { HandlerMap } from '@gateway/generated';
import { type Context, callerOf } from '../context.js';
import { openEventStream } from '../domain/event-stream.js';

export const eventsHandlers: Pick<HandlerMap<Context>, 'listEvents'> = {
  async listEvents({ query, headers }, context) {
    const caller = callerOf(context);
    // The header (what EventSource sends) wins over the query parameter; both are validated by the spec.
    const header = headers['last-event-id'];
    const lastEventId = (typeof header === 'string' ? header : undefined) ?? query.last_event_id;
    return {
      status: 200,
      body: await openEventStream(context.events, caller, lastEventId, context.tokens.revoked),
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'x-accel-buffering': 'no',
        // The connection is not kept for another request once the stream ends: a stream ended at shutdown
        // must not leave an idle connection for the server to wait out.
        connection: 'close',
      },
    };
  },
};
