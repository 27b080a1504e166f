/**
 * The catalogue served from memory: public reads use a snapshot of it, reloaded when the catalogue's
 * version changes (every catalogue load bumps it), which each instance checks at most once a second.
 * Answers built from a snapshot are serialized once per snapshot.
 */
import type { Kysely } from 'kysely';
import { JsonText } from '../lib/json-text.js';
import { type CatalogueSnapshot, catalogueVersion, loadCatalogueSnapshot } from '../store/catalogue.js';
import type { Database } from '../store/schema.js';

export type { CatalogueSnapshot } from '../store/catalogue.js';

export interface CatalogueCache {
  get(): Promise<CatalogueSnapshot>;
}

/** The snapshot, rechecking the catalogue's version at most every `maxAgeMs` (by `now`, milliseconds). */
export function createCatalogueCache(db: Kysely<Database>, now: () => number, maxAgeMs = 1000): CatalogueCache {
  let snapshot: CatalogueSnapshot | null = null;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<CatalogueSnapshot> | null = null;
  const refresh = async (): Promise<CatalogueSnapshot> => {
    const version = await catalogueVersion(db);
    if (!snapshot || snapshot.version !== version) snapshot = await loadCatalogueSnapshot(db);
    checkedAt = now();
    return snapshot;
  };
  return {
    get() {
      if (snapshot && now() - checkedAt < maxAgeMs) return Promise.resolve(snapshot);
      pending ??= refresh().finally(() => {
        pending = null;
      });
      return pending;
    },
  };
}

const answersBySnapshot = new WeakMap<CatalogueSnapshot, Map<string, JsonText<unknown>>>();
/** Distinct answers kept per snapshot (keys include query parameters, which a client chooses). */
const MAX_ANSWERS = 2000;

/**
 * The answer `build` gives for this catalogue snapshot, serialized once: the catalogue only changes by a
 * load, which makes a new snapshot (and so a new set of answers) within a second on every instance.
 */
export function catalogueAnswer<T>(snapshot: CatalogueSnapshot, key: string, build: () => T): JsonText<T> {
  let answers = answersBySnapshot.get(snapshot);
  if (!answers) {
    answers = new Map();
    answersBySnapshot.set(snapshot, answers);
  }
  let answer = answers.get(key) as JsonText<T> | undefined;
  if (!answer) {
    answer = new JsonText<T>(JSON.stringify(build()));
    if (answers.size < MAX_ANSWERS) answers.set(key, answer);
  }
  return answer;
}
