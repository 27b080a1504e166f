/**
 * The catalogue served from memory: public reads use a snapshot of it, reloaded when the catalogue's
 * version changes (every catalogue load bumps it), which each instance checks at most once a second.
 * Answers built from a snapshot are serialized once per snapshot.
 *
 * While the database does not answer, the last snapshot keeps being served (public reads stay up through an
 * outage): a failed check hands out the snapshot at once and is tried again in the background, at most once
 * a second, until one succeeds. `staleMs()` says how long ago the snapshot was last known current.
 */
import type { Kysely } from 'kysely';
import { JsonText } from '../lib/json-text.js';
import { type CatalogueSnapshot, catalogueVersion, loadCatalogueSnapshot } from '../store/catalogue.js';
import type { Database } from '../store/schema.js';

export type { CatalogueSnapshot } from '../store/catalogue.js';

export interface CatalogueCache {
  get(): Promise<CatalogueSnapshot>;
  /** Whether a snapshot is held (read from the database at least once). */
  loaded(): boolean;
  /**
   * When the last check failed, how long ago (milliseconds) the snapshot was last known current; null while
   * checks succeed. Read on every catalogue answer: it allocates nothing.
   */
  staleMs(): number | null;
}

export interface CatalogueCacheOptions {
  /** How long a snapshot is used before its version is checked again (milliseconds). */
  maxAgeMs?: number;
  /**
   * Told of a failed check; returns whether the failure is one to ride out on the last snapshot (the database
   * does not answer). Other failures reach the caller.
   */
  failed?: (error: unknown) => boolean;
}

/** The snapshot, rechecking the catalogue's version at most every `maxAgeMs` (by `now`, milliseconds). */
export function createCatalogueCache(
  db: Kysely<Database>,
  now: () => number,
  { maxAgeMs = 1000, failed = () => false }: CatalogueCacheOptions = {},
): CatalogueCache {
  let snapshot: CatalogueSnapshot | null = null;
  let checkedAt = Number.NEGATIVE_INFINITY;
  /** When the last check failed (the snapshot is served as it is meanwhile), else null. */
  let failedAt: number | null = null;
  let pending: Promise<CatalogueSnapshot> | null = null;
  const refresh = async (): Promise<CatalogueSnapshot> => {
    try {
      const version = await catalogueVersion(db);
      if (!snapshot || snapshot.version !== version) snapshot = await loadCatalogueSnapshot(db);
      checkedAt = now();
      failedAt = null;
      return snapshot;
    } catch (error) {
      if (!snapshot || !failed(error)) throw error;
      failedAt = now();
      return snapshot;
    }
  };
  const start = () => {
    pending ??= refresh().finally(() => {
      pending = null;
    });
    return pending;
  };
  return {
    get() {
      if (snapshot && failedAt !== null) {
        // Riding out an outage: nobody waits for the database; it is asked again at most once a second.
        if (now() - failedAt >= maxAgeMs) void start().catch(() => {});
        return Promise.resolve(snapshot);
      }
      if (snapshot && now() - checkedAt < maxAgeMs) return Promise.resolve(snapshot);
      return start();
    },
    loaded: () => snapshot !== null,
    staleMs: () => (failedAt === null ? null : now() - checkedAt),
  };
}

/** A snapshot's answers, and the characters they hold. */
interface Answers {
  byKey: Map<string, JsonText<unknown>>;
  chars: number;
}
const answersBySnapshot = new WeakMap<CatalogueSnapshot, Answers>();
/**
 * What is kept of a snapshot's answers: keys include query parameters, which a client chooses, so both the
 * count and the text are bounded (a page of currency terms is up to some tens of KiB; 8 MiB of text holds
 * every answer of a real catalogue many times over). Past either, answers are built for each request.
 */
const MAX_ANSWERS = 2000;
const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

/**
 * The answer `build` gives for this catalogue snapshot, serialized once: the catalogue only changes by a
 * load, which makes a new snapshot (and so a new set of answers) within a second on every instance.
 */
export function catalogueAnswer<T>(snapshot: CatalogueSnapshot, key: string, build: () => T): JsonText<T> {
  let answers = answersBySnapshot.get(snapshot);
  if (!answers) {
    answers = { byKey: new Map(), chars: 0 };
    answersBySnapshot.set(snapshot, answers);
  }
  let answer = answers.byKey.get(key) as JsonText<T> | undefined;
  if (!answer) {
    answer = new JsonText<T>(JSON.stringify(build()));
    if (answers.byKey.size < MAX_ANSWERS && answers.chars + answer.json.length <= MAX_ANSWER_CHARS) {
      answers.byKey.set(key, answer);
      answers.chars += answer.json.length;
    }
  }
  return answer;
}
