/** A client of GET /v1/events for the tests: a connected stream, its messages as they arrive, whether it ended. */

const WAIT_MS = 15_000;

export interface SseMessage {
  event?: string;
  id?: string;
  data?: string;
}

/** A connected event stream: its messages as they arrive, and whether it ended. */
export class Sse {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  ended = false;
  readonly #abort = new AbortController();
  status = 0;
  headers = new Headers();

  /** `via: 'query'` sends the id as `last_event_id` instead of the `Last-Event-ID` header. */
  static async open(
    base: string,
    token: string,
    lastEventId?: string,
    via: 'header' | 'query' = 'header',
  ): Promise<Sse> {
    const sse = new Sse();
    const query = lastEventId !== undefined && via === 'query' ? `?last_event_id=${lastEventId}` : '';
    const response = await fetch(`${base}/v1/events${query}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        ...(lastEventId !== undefined && via === 'header' ? { 'last-event-id': lastEventId } : {}),
      },
      signal: sse.#abort.signal,
    });
    sse.status = response.status;
    sse.headers = response.headers;
    void sse.#read(response);
    // The opening (`retry` and a position or the resumed events) has arrived once the first message has.
    await sse.until(() => sse.messages.length > 0);
    return sse;
  }

  async #read(response: Response) {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const message: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
            const match = /^(event|id|data): ?(.*)$/.exec(line);
            if (match) message[match[1] as keyof SseMessage] = match[2];
          }
          if (Object.keys(message).length > 0) this.messages.push(message);
        }
      }
    } catch {
      // aborted
    }
    this.ended = true;
  }

  get events(): SseMessage[] {
    return this.messages.filter((m) => m.event !== undefined);
  }

  /** The movements received: their ids and statuses. */
  get movements(): string[] {
    return this.events
      .filter((m) => m.event === 'movement')
      .map((m) => {
        const movement = JSON.parse(m.data ?? '{}') as { id: string; status: string };
        return `${movement.id}:${movement.status}`;
      });
  }

  /** The last id received. */
  get lastId(): string | undefined {
    return this.messages.findLast((m) => m.id !== undefined)?.id;
  }

  async until(condition: () => boolean, ms = WAIT_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out; messages: ${JSON.stringify(this.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  close() {
    this.#abort.abort();
  }
}
