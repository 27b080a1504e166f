// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

export type { components, operations, paths } from './schema.js';
export * from './handler-types.js';
export * from './operations.js';
export * from './errors.js';
export * from './records.js';
export * from './calls.js';
