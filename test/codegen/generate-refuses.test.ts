/**
 * The generator refuses a structurally broken document before writing anything: a copy of the spec with a
 * misspelled key where OpenAPI 3.1 allows none (`respones:` in an operation) is refused, naming the file and
 * the line, and the output folder is left exactly as it was; so is a public document that holds an operator
 * record (those belong in spec/operator/). The unchanged copy generates (the control).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gateway-generate-refuses-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the generator from `work` (so that it names files relative to it) on a spec into an output folder. */
function generate(specDir: string, outDir: string) {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [path.join(root, 'scripts/generate.mjs'), '--spec', path.join(specDir, 'openapi.yaml'), '--out', outDir],
    { cwd: work, encoding: 'utf8' },
  );
  console.log(
    `generate ${path.basename(specDir)}: exit ${result.status} in ${Math.round(performance.now() - started)} ms`,
  );
  return result;
}

/** Every file under `dir` with its bytes and modification time. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((name) => path.join(dir, name))
      .filter((file) => statSync(file).isFile())
      .map((file) => [path.relative(dir, file), `${statSync(file).mtimeMs} ${readFileSync(file, 'base64')}`]),
  );
}

/** A copy of generated/ (the generator's outputs and its hand-written types) to generate into. */
function copyOfGenerated(name: string): string {
  const out = path.join(work, name);
  cpSync(path.join(root, 'generated/src'), path.join(out, 'src'), { recursive: true });
  cpSync(path.join(root, 'generated/openapi.json'), path.join(out, 'openapi.json'));
  return out;
}

describe('npm run generate on a structurally broken spec', () => {
  it('refuses `respones:` in an operation, naming its file and line, and writes nothing', () => {
    const spec = path.join(work, 'spec-respones');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const file = path.join(spec, 'paths/platforms.yaml');
    const lines = readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex((line) => /^ {4}responses:$/.test(line));
    expect(index).toBeGreaterThan(-1);
    lines[index] = '    respones:';
    writeFileSync(file, lines.join('\n'));

    const out = copyOfGenerated('out-respones');
    const before = snapshot(out);
    const result = generate(spec, out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`spec-respones/paths/platforms.yaml:${index + 1}:5: Property \`respones\``);
    expect(result.stderr).toContain('nothing was written');
    // One message for a person: no stack trace.
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(snapshot(out)).toEqual(before);
  }, 60_000);

  it('refuses an ErrorCode whose enum and x-codes do not list the same codes, and writes nothing', () => {
    const spec = path.join(work, 'spec-codes');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const file = path.join(spec, 'components/errors.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('  enum:\n    - 10000\n    - 10101\n');
    writeFileSync(file, text.replace('  enum:\n    - 10000\n    - 10101\n', '  enum:\n    - 10000\n'));

    const out = copyOfGenerated('out-codes');
    const before = snapshot(out);
    const result = generate(spec, out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('must list the same codes in the same order');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(snapshot(out)).toEqual(before);
  }, 60_000);

  it('refuses an operator record in the public document, naming it and where it belongs, and writes nothing', () => {
    const spec = path.join(work, 'spec-record');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const file = path.join(spec, 'openapi.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('  schemas:\n');
    writeFileSync(
      file,
      text.replace(
        '  schemas:\n',
        '  schemas:\n    MovementRecord:\n      $ref: operator/feeds.yaml#/MovementRecord\n',
      ),
    );

    const out = copyOfGenerated('out-record');
    const before = snapshot(out);
    const result = generate(spec, out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the public document holds operator records (MovementRecord');
    expect(result.stderr).toContain('spec-record/operator/openapi.yaml');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(snapshot(out)).toEqual(before);
  }, 60_000);

  it('refuses a deprecated path parameter (every request sends it: none could be counted), and writes nothing', () => {
    const spec = path.join(work, 'spec-deprecated-path');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const file = path.join(spec, 'components/parameters.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('CurrencyPath:\n  name: currency\n  in: path\n');
    writeFileSync(
      file,
      text.replace(
        'CurrencyPath:\n  name: currency\n  in: path\n',
        'CurrencyPath:\n  name: currency\n  in: path\n  deprecated: true\n',
      ),
    );

    const out = copyOfGenerated('out-deprecated-path');
    const before = snapshot(out);
    const result = generate(spec, out);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/the path parameter currency is deprecated; only query and header parameters can be/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(snapshot(out)).toEqual(before);
  }, 60_000);

  it('generates from the unchanged copy (the control)', () => {
    const spec = path.join(work, 'spec-unchanged');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const out = path.join(work, 'out-unchanged');
    const result = generate(spec, out);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(readFileSync(path.join(out, 'openapi.json'), 'utf8')).toBe(
      readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'),
    );
    expect(readFileSync(path.join(out, 'operator.json'), 'utf8')).toBe(
      readFileSync(path.join(root, 'generated/operator.json'), 'utf8'),
    );
  }, 60_000);
});
