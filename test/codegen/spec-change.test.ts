/**
 * The API developer's loop: change the spec, run `npm run generate`, and the compiler shows where code
 * no longer matches. Here the spec gains an operation (and, separately, a response field changes type)
 * in a temporary copy; the server's handler map and a client call are compiled against types generated from
 * the copy and from the original.
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
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gateway-spec-change-'));

function generate(specDir: string, outDir: string): void {
  execFileSync(
    process.execPath,
    [path.join(root, 'scripts/generate.mjs'), '--spec', path.join(specDir, 'openapi.yaml'), '--out', outDir],
    {
      stdio: 'pipe',
    },
  );
}

/** Type errors of `file` (and of the sources it reaches under `within`) compiled against `generatedDir`. */
function typeErrors(file: string, generatedDir: string, within = file): string[] {
  const diagnostics = diagnosticsOf([file], {
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
    .filter((d) => d.file?.fileName.startsWith(within))
    .map(
      (d) => `${path.relative(root, d.file?.fileName ?? '')}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

const original = path.join(work, 'original');
const withNewOperation = path.join(work, 'with-new-operation');
const withChangedField = path.join(work, 'with-changed-field');

beforeAll(() => {
  generate(path.join(root, 'spec'), original);

  // A new operation, GET /v1/status -> getExchangeStatus.
  const specA = path.join(work, 'spec-a');
  cpSync(path.join(root, 'spec'), specA, { recursive: true });
  const rootFile = path.join(specA, 'openapi.yaml');
  const doc = parse(readFileSync(rootFile, 'utf8'));
  doc.paths['/v1/status'] = {
    get: {
      operationId: 'getExchangeStatus',
      summary: 'Exchange status',
      description: 'Whether the exchange is open.',
      security: [],
      responses: {
        '200': {
          description: 'Status',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
  writeFileSync(rootFile, stringify(doc));
  generate(specA, withNewOperation);

  // A changed field: the staking yield's `apy` becomes a string.
  const specB = path.join(work, 'spec-b');
  cpSync(path.join(root, 'spec'), specB, { recursive: true });
  const stakingFile = path.join(specB, 'components/schemas/staking.yaml');
  const staking = parse(readFileSync(stakingFile, 'utf8'));
  staking.StakingYield.properties.apy = { type: 'string', examples: ['6.22'] };
  staking.StakingYield.examples = [{ type: 'apy', apy: '6.22' }];
  writeFileSync(stakingFile, stringify(staking));
  generate(specB, withChangedField);
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('changing the spec shows up as compile errors', () => {
  // The server's real handler map, with every handler it reaches.
  const handlers = path.join(root, 'server/src/handlers/index.ts');
  const serverSources = path.join(root, 'server/src');
  const client = path.join(fixtures, 'client.ts');

  it("the server's handler map compiles against the spec as it is", () => {
    expect(typeErrors(handlers, original, serverSources)).toEqual([]);
  });

  it("a new operation makes the server's handler map fail until its handler exists", () => {
    const errors = typeErrors(handlers, withNewOperation, serverSources).join('\n');
    expect(errors).toMatch(/server\/src\/handlers\/index\.ts/);
    expect(errors).toMatch(/getExchangeStatus/);
  });

  it('a field whose type changes makes the handler that fills it fail', () => {
    const errors = typeErrors(handlers, withChangedField, serverSources).join('\n');
    // The getStakingYield handler still fills `apy` with a number.
    expect(errors).toMatch(/^server\/src\/handlers\/staking\.ts: .*getStakingYield/m);
    expect(errors).toMatch(/Types of property 'apy' are incompatible/);
    expect(errors).toMatch(/Type 'number' is not assignable to type 'string'/);
  });

  it('the client cannot call an operation the spec does not have', () => {
    // openapi-fetch reports an unknown path as a wrong overload, then the reply has no such field.
    const errors = typeErrors(client, original);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/'status' does not exist/);
  });

  it('after regenerating, the client has the new operation, typed', () => {
    expect(typeErrors(client, withNewOperation)).toEqual([]);
  });
});
