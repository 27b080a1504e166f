/** A small seeded PRNG (sfc32 seeded through splitmix32), so a failing fuzz run can be replayed exactly. */

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: [[weight, value], …]. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T;
  /** n random characters from `alphabet`. */
  string(alphabet: string, n: number): string;
  /** A child generator, independent of how much the parent is used later. */
  fork(label: string): Rng;
}

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function hashLabel(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function createRng(seed: number): Rng {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    weighted: (entries) => {
      const total = entries.reduce((sum, [w]) => sum + w, 0);
      let x = next() * total;
      for (const [w, value] of entries) {
        x -= w;
        if (x < 0) return value;
      }
      return (entries.at(-1) as (typeof entries)[number])[1];
    },
    string: (alphabet, n) => {
      let out = '';
      for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
      return out;
    },
    fork: (label) => createRng((seed ^ hashLabel(label)) >>> 0),
  };
  return rng;
}
