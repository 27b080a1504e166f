/**
 * Announcements made by the database: PostgreSQL `LISTEN` on a connection of its own, reconnected after a
 * loss. A `NOTIFY` is delivered when the transaction that made it commits, to every session listening on
 * its channel, whichever process wrote; channels are per database, so a topic's channel is named after the
 * schema too (`<topic>_<schema>`, as the triggers that announce name it).
 */
import type pg from 'pg';
import { postgresDriver } from '../lib/drivers.js';

export interface Listening {
  /** Settles when listening first started (and `connected` ran), or first failed: the caller may go on. */
  readonly ready: Promise<void>;
  /** Whether it listens now (false from a loss until it listens again). */
  readonly up: boolean;
  close(): Promise<void>;
}

export interface ListenHandlers {
  message(payload: string): void;
  /**
   * Runs each time listening (re)starts, after `LISTEN`: announcements made while nobody listened are
   * lost, so what they announced is read here. A failure here starts over on a new connection.
   */
  connected(): Promise<void>;
  /**
   * Told once when listening is lost (or cannot start), with the reason, and once when it listens again:
   * not at every reconnection attempt in between.
   */
  changed?(up: boolean, reason: string): void;
}

export function listenPostgres(
  connection: pg.ClientConfig,
  topic: string,
  on: ListenHandlers,
  retryMs = 1000,
): Listening {
  let closed = false;
  let up = false;
  /** Whether a loss was told (a return is told only after one). */
  let toldLost = false;
  const lost = (reason: string) => {
    up = false;
    if (closed || toldLost) return;
    toldLost = true;
    on.changed?.(false, reason);
  };
  let client: pg.Client | null = null;
  let retrying: NodeJS.Timeout | undefined;
  let started: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });

  const retry = () => {
    if (closed || retrying) return;
    retrying = setTimeout(() => {
      retrying = undefined;
      void connect();
    }, retryMs);
    retrying.unref();
  };

  async function connect() {
    const current = new (postgresDriver().Client)(connection);
    client = current;
    // A lost connection ends the client; listening starts over on a new one.
    current.on('error', () => {});
    current.on('end', () => {
      if (client !== current) return;
      lost('the connection ended');
      retry();
    });
    try {
      await current.connect();
      const { rows } = await current.query<{ channel: string }>(
        "select left($1 || '_' || current_schema(), 63) as channel",
        [topic],
      );
      const channel = rows[0]?.channel ?? topic;
      current.on('notification', (notice) => {
        if (notice.channel === channel && notice.payload !== undefined) on.message(notice.payload);
      });
      await current.query(`listen ${current.escapeIdentifier(channel)}`);
      await on.connected();
      up = true;
      if (toldLost && !closed) {
        toldLost = false;
        on.changed?.(true, '');
      }
    } catch (error) {
      lost((error instanceof Error && error.message.split('\n')[0]) || String(error));
      current.end().catch(() => {});
      retry();
    } finally {
      started();
    }
  }

  void connect();
  return {
    ready,
    get up() {
      return up;
    },
    async close() {
      closed = true;
      clearTimeout(retrying);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
