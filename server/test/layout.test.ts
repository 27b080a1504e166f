/** The house's size rule: a file of `server/src` holds one concern, in at most 250 lines. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const MAX_LINES = 250;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

it(`no file of server/src is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles(SRC);
  expect(files.length).toBeGreaterThan(50);
  const over = files
    .map((file) => ({ file: path.relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines (split it by concern)`);
  expect(over).toEqual([]);
});
