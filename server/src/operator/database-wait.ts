/**
 * Waiting for the database through an outage, as the operator commands and `serve` do: what fails because
 * the database does not answer (store/unavailable.ts) is tried again with backoff (lib/retry.ts) for at most
 * the time allowed, and the wait is said in a few lines: one when the database is lost, one every few
 * seconds while it stays away, one when it answers again. Anything else fails at once, as without a wait.
 */
import { RetryGaveUp, retrying } from '../lib/retry.js';
import { databaseTransient, storageFull } from '../store/unavailable.js';

/** What an attempt does, in the progress lines: `to` write lines 9–16; lines 9–16 written (`done`). */
export interface Task {
  to: string;
  done: string;
}

/** Runs `attempt`, retrying it while the database does not answer. */
export type DatabaseRetry = <T>(attempt: () => Promise<T>, task: Task) => Promise<T>;

/** The database did not come back within the time allowed (or a signal stopped the wait): exit 3. */
export class DatabaseGone extends Error {
  constructor(message: string) {
    super(message);
  }

  /** The same failure, with what was and was not done (`; nothing from line 9 on was written`). */
  with(consequence: string): DatabaseGone {
    return new DatabaseGone(`${this.message}; ${consequence}`);
  }
}

/** The first line of a failure: the driver's words, never its stack. */
export const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error)).split(
    '\n',
  )[0] as string;

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** What is wrong with the database, in the lines: its storage full, or it does not answer. */
export const unavailableWords = (error: unknown): string =>
  storageFull(error) ? "the database's storage is full" : 'the database is unavailable';

export interface WaitOptions {
  /** The longest wait, ms, from the first failure; 0: none (fail at once, as before). */
  waitMs: number;
  /** What sets it, named in the first line (`--retry-for`, `DATABASE_WAIT_SECONDS`). */
  setting: string;
  /** Where the lines go (standard error, or the server's log). */
  say(level: 'warn' | 'info', line: string): void;
  signal?: AbortSignal;
  /** The shortest time between two "still waiting" lines, ms. */
  everyMs?: number;
  now?: () => number;
  random?: () => number;
}

/** A retry for the operator's commands; undefined when no wait is allowed (the commands then fail at once). */
export function databaseRetry(options: WaitOptions): DatabaseRetry | undefined {
  if (options.waitMs <= 0) return undefined;
  const now = options.now ?? Date.now;
  const every = options.everyMs ?? 5000;
  return async (attempt, task) => {
    let lastSaid = 0;
    try {
      return await retrying(attempt, {
        retryForMs: options.waitMs,
        transient: databaseTransient,
        signal: options.signal,
        now,
        random: options.random,
        lost: (error) => {
          lastSaid = now();
          options.say(
            'warn',
            `${unavailableWords(error)} (${firstLine(error)}); waiting up to ${seconds(options.waitMs)} ` +
              `(${options.setting}) to ${task.to}`,
          );
        },
        failed: (error, waitedMs) => {
          if (now() - lastSaid < every) return;
          lastSaid = now();
          options.say('info', `still waiting for the database after ${seconds(waitedMs)} (${firstLine(error)})`);
        },
        back: (waitedMs) => options.say('info', `the database answers after ${seconds(waitedMs)}; ${task.done}`),
      });
    } catch (error) {
      if (!(error instanceof RetryGaveUp)) throw error;
      throw new DatabaseGone(
        error.stopped
          ? `${unavailableWords(error.last)} (${firstLine(error.last)}); stopped by a signal after waiting ${seconds(error.waitedMs)} for it`
          : `${unavailableWords(error.last)} (${firstLine(error.last)}) and did not come back within ${seconds(options.waitMs)}`,
      );
    }
  };
}
