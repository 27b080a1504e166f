/**
 * A Server-Sent Events body (text/event-stream): a readable stream the server pipes to the response as
 * events are written to it. It ends when `end()` is called or the client goes away; either way the
 * `onClose` callbacks run once.
 */
import { Readable } from 'node:stream';
import type { StreamedText } from '@gateway/generated';

/** What a stream buffers for a client that does not read, at most (characters). */
const MAX_BUFFERED = 4 * 1024 * 1024;

export class EventStream extends Readable implements StreamedText<string> {
  readonly streamed = true as const;
  readonly #closing: (() => void)[] = [];
  #closed = false;

  constructor() {
    super({ encoding: 'utf8' });
    // The client's going away (the response destroys its body) or the end of the stream. Plain listeners:
    // each event comes once, and `#runClosing` runs its callbacks once (`once` would cost a wrapper, its
    // state and a bound function a stream).
    this.on('close', () => this.#runClosing());
    this.on('end', () => this.#runClosing());
  }

  override _read(): void {}

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#runClosing();
    callback(error);
  }

  get over(): boolean {
    return this.#closed;
  }

  /** Runs `callback` when the stream ends or is abandoned (at once if it already has). */
  onClose(callback: () => void): void {
    if (this.#closed) callback();
    else this.#closing.push(callback);
  }

  /** An event: its kind, its id, and one line of data. */
  event(kind: string, id: number | string, data: string): void {
    this.#write(`event: ${kind}\nid: ${id}\ndata: ${data.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  /** A position without an event: the client takes `id` as its last event id, and no event fires. */
  position(id: number | string): void {
    this.#write(`id: ${id}\n\n`);
  }

  /** The reconnection delay the client should use (milliseconds). */
  retry(ms: number): void {
    this.#write(`retry: ${ms}\n`);
  }

  /** A comment line (heartbeats): clients ignore it, proxies see traffic. */
  comment(text: string): void {
    this.#write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  end(): void {
    if (this.#closed) return;
    this.push(null);
    this.#runClosing();
  }

  #write(text: string): void {
    if (this.#closed) return;
    // A client that does not read is let go rather than buffered for without end: it resumes by its id.
    if (this.readableLength > MAX_BUFFERED) {
      this.destroy();
      return;
    }
    this.push(text);
  }

  #runClosing(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const callback of this.#closing.splice(0)) callback();
  }
}
