/** Types of scripts/dev-copy.mjs, for the tests. */
export function copyForDev(root: string, dir: string): string;
