/** Types of scripts/mock-front.mjs, for the tests. */
import type { Server } from 'node:http';

export function parsePrefer(value: string | undefined): Record<string, string>;
export function upstreamHeaders(
  method: string,
  url: URL,
  headers: Record<string, string | string[] | undefined>,
  operations: unknown[],
): Record<string, string | string[] | undefined>;
/** The error item of an invalid request, from Prism's violations (its `sl-violations` header). */
export function errorOfViolations(
  violations: unknown[],
  request: { document: unknown; method: string; pathname: string; contentType?: string; body?: string },
): { code: number; message: string; details?: Record<string, string> } | undefined;
export function mockFront(options: { upstream: string; document: unknown }): Server;
