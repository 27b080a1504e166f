/** Figures a proof suite records for `npm run prove` (server/test-results/prove/<name>.json). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIGURES = fileURLToPath(new URL('../../test-results/prove', import.meta.url));

export function recordFigures(name: string, figures: Record<string, unknown>): void {
  mkdirSync(FIGURES, { recursive: true });
  writeFileSync(path.join(FIGURES, `${name}.json`), `${JSON.stringify({ name, ...figures }, null, 2)}\n`);
}
