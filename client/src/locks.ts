/**
 * One refresh at a time among the clients of a shared storage: the Web Locks API (`navigator.locks`, held
 * across the tabs of a site) where the runtime has it, else locks within this JavaScript realm.
 * @see https://w3c.github.io/web-locks/
 */

/** What the session uses of the Web Locks API: `navigator.locks` is one. */
export interface LockManagerLike {
  /** Runs `callback` holding the lock `name` (waiting for it first), and gives its result. */
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

const tails = new Map<string, Promise<unknown>>();

/** Locks of this realm (one page, one Node process): for runtimes without the Web Locks API, such as Node 20. */
export const realmLocks: LockManagerLike = {
  request(name, callback) {
    const run = (tails.get(name) ?? Promise.resolve()).then(() => callback());
    const tail = run.catch(() => undefined);
    tails.set(name, tail);
    void tail.then(() => tails.get(name) === tail && tails.delete(name));
    return run;
  },
};

/** `navigator.locks` where there is one, else the realm's locks. */
export const defaultLocks = (): LockManagerLike =>
  (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks ?? realmLocks;
