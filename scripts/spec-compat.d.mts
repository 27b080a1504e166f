/** Types of scripts/spec-compat.mjs, for the tests. */
export interface Change {
  message: string;
  path: string;
}
export interface Comparison {
  breaking: Change[];
  nonBreaking: Change[];
  other: Change[];
  text: number;
}
export interface Verdict extends Comparison {
  ok: boolean;
  baseVersion: string;
  headVersion: string;
  allowedByMajor: boolean;
  versionError: string | null;
}
export const releasedDir: string;
export const PACKAGES: readonly string[];
export function releasedVersions(dir?: string): string[];
export function compareVersions(a: string, b: string): number;
export function compareDocuments(before: unknown, after: unknown): Comparison;
export function errorCodeChanges(
  before: unknown,
  after: unknown,
): { breaking: boolean; path: string; message: string }[];
/** The components an operation uses, directly or through other components, as `kind/name`. */
export function usedComponents(doc: unknown): Set<string>;
export function checkCompatibility(base: unknown, head: unknown): Verdict;
export function report(r: Verdict, options?: { verbose?: boolean }): string;
