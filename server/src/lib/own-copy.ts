/**
 * A string of its own with the same (ASCII or Latin-1) text. A slice of a larger string keeps all of that
 * string alive, and text joined piece by piece keeps every piece: what a cache or a long-lived object keeps
 * from a request is copied first.
 */
export const ownCopy = (text: string): string => Buffer.from(text, 'latin1').toString('latin1');
