/**
 * The client's plain calls are generated: a spec copy that gains an operation gets its call (generated/src/
 * calls.ts: its shape, and its typed method, which a caller compiles against), with nothing written by hand.
 * A spec whose operation names a parameter twice (path, query, body) is refused with the operation's name.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { diagnosticsOf } from '../src/typecheck.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/calls.ts', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gateway-calls-'));

function generate(specDir: string, outDir: string): string {
  return execFileSync(
    process.execPath,
    [path.join(root, 'scripts/generate.mjs'), '--spec', path.join(specDir, 'openapi.yaml'), '--out', outDir],
    { stdio: 'pipe', encoding: 'utf8' },
  );
}

/** A copy of the spec with `edit` applied to its root document. */
function specCopy(name: string, edit: (doc: { paths: Record<string, unknown> }) => void): string {
  const dir = path.join(work, name);
  cpSync(path.join(root, 'spec'), dir, { recursive: true });
  const file = path.join(dir, 'openapi.yaml');
  const doc = parse(readFileSync(file, 'utf8'));
  edit(doc);
  writeFileSync(file, stringify(doc));
  return dir;
}

/** Type errors of the fixture compiled against the types in `generatedDir`. */
function typeErrors(generatedDir: string): string[] {
  const diagnostics = diagnosticsOf([fixture], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    baseUrl: root,
    paths: { '@gateway/generated': [path.join(generatedDir, 'src/index.ts')] },
  });
  return diagnostics
    .filter((d) => d.file?.fileName === fixture)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const marketStatus = {
  get: {
    operationId: 'getMarketStatus',
    summary: 'Market status',
    description: 'Whether a market is open.',
    security: [],
    parameters: [
      { name: 'market', in: 'path', required: true, description: 'The market.', schema: { type: 'string' } },
      { name: 'detail', in: 'query', description: 'With the details.', schema: { type: 'boolean' } },
    ],
    responses: {
      '200': {
        description: 'The status.',
        content: {
          'application/json': {
            schema: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } },
          },
        },
      },
    },
  },
};

const original = path.join(work, 'original');
const withOperation = path.join(work, 'with-operation');

beforeAll(() => {
  generate(path.join(root, 'spec'), original);
  generate(
    specCopy('spec-new', (doc) => {
      doc.paths['/v1/markets/{market}/status'] = marketStatus;
    }),
    withOperation,
  );
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the generated calls', () => {
  it('have no call for an operation the spec does not have', () => {
    expect(readFileSync(path.join(original, 'src/calls.ts'), 'utf8')).not.toMatch(/getMarketStatus/);
    expect(typeErrors(original).join('\n')).toMatch(/Property 'getMarketStatus' does not exist/);
  });

  it('give a new operation its call: parameters by name and where they travel, its answer typed', () => {
    const calls = readFileSync(path.join(withOperation, 'src/calls.ts'), 'utf8');
    expect(calls).toMatch(
      /^ {2}getMarketStatus: \{ path: \["market"\], query: \["detail"\], body: null, answer: "json" \},$/m,
    );
    expect(calls).toMatch(/^ {3}\* Market status\.\n {3}\* `GET \/v1\/markets\/\{market\}\/status`\.$/m);
    expect(typeErrors(withOperation)).toEqual([]);
  });

  it('refuse an operation that names a parameter twice, saying which', () => {
    const clash = specCopy('spec-clash', (doc) => {
      const get = structuredClone(marketStatus.get);
      get.parameters[1] = { ...get.parameters[1], name: 'market' } as (typeof get.parameters)[1];
      doc.paths['/v1/markets/{market}/status'] = { get };
    });
    let failure: { status?: number; stderr?: string } = {};
    try {
      generate(clash, path.join(work, 'out-clash'));
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr?.trim()).toBe(
      'getMarketStatus: the parameter market is named twice (path, query, body): its call cannot take it by name',
    );
  });
});
