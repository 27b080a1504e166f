/**
 * The README's and docs/'s snippets, as printed: every `ts`, `js` and `sh` block is typechecked (all the
 * TypeScript in one tsc run against the built client) and run against one real gateway (the demo exchange on
 * a free port: `localhost:3000` and `127.0.0.1:3000` in a snippet become its address, the one change made),
 * except the blocks whose first line says why not (`# not run by npm test: …`, `// not compiled by npm test:
 * …`): that set is listed here, so that a new one is a decision. Relative links must reach a file, and a
 * `#anchor` into a Markdown file one of its headings.
 *
 * How each kind runs: `ts` with the pinned Node (it runs TypeScript as is) after the typecheck; `js` with the
 * command line its usage comment gives (`//   GATEWAY_URL=… node events.mjs ARG`), a snippet that waits for
 * events started before the shell snippets (which make them happen) and awaited after; `sh` with bash
 * (`set -euo pipefail`) in the checkout, `npx gateway` on the gateway's data folder, as on `./data` after
 * `npm start`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORK = path.join(ROOT, 'test/.cache/doc-snippets');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** The blocks a reader may meet; only these three are snippets, and a block must say its kind. */
const SNIPPET_KINDS = new Set(['ts', 'js', 'sh']);
const OTHER_KINDS = new Set(['text', 'json', 'yaml', 'ini', 'nginx']);
const NOT_RUN = /^(?:#|\/\/) not (?:run|compiled) by npm test: \S.{9,}/;

/**
 * The snippets not run, by document and their first command: each says why in its first line. A new one must
 * be added here, on purpose.
 */
const EXPECTED_NOT_RUN = [
  'README.md: npm ci && npm start    # the demo exchange on http://127.0.0.1:3000, embedded database in ./data',
  'README.md: npm run mock        # http://127.0.0.1:4010',
  'docs/applications.md: npm run build && (cd client && npm pack)     # in this repository: client/gateway-client-<version>.tgz',
  'docs/changing-the-api.md: // domain/staking.ts',
  'docs/changing-the-api.md: cd server && npx vitest run test/store/stored-fields.test.ts test/store/stored-round-trip.test.ts',
  'docs/changing-the-api.md: curl -s localhost:3000/v1/apy/staking',
  "docs/changing-the-api.md: memo: { column: 'updated', served: { as: 'memo', value: (r) => r.memo ?? undefined } },",
  'docs/changing-the-api.md: npm ci',
  'docs/changing-the-api.md: npm run lint          # lint:spec, spec:compat, biome, the dependency rules',
  "docs/contributing.md: npm test -w test -- docs    # the docs' snippets and links alone",
  'docs/deployment.md: bridge-events --ndjson | npx gateway movements import - --follow              # batches of 1,000, or 200 ms',
  'docs/deployment.md: npm run gateway -- backup /backups/gateway-$(date +%F).db     # while serving, e.g. from cron',
  'docs/deployment.md: npx turbo run build --output-logs=errors-only',
  'docs/testing.md: npm test                                         # every workspace (turbo builds what they test first)',
  'docs/testing.md: CI=true npm test -- --summarize --continue -- --reporter=default --reporter=json --outputFile.json=.vitest-times.json',
  "docs/frontend.md: npm run mock                 # http://127.0.0.1:4010, the spec's examples, CORS on",
  'docs/frontend.md: npm start           # the demo server on http://127.0.0.1:3000',
  'docs/frontend.md: npx @stoplight/prism-cli mock node_modules/@gateway/client/dist/openapi.json   # http://127.0.0.1:4010, CORS on',
  'docs/operations.md: bridge-events --ndjson | npx gateway movements import - --follow',
];

interface Block {
  doc: string;
  line: number;
  kind: string;
  code: string;
}

/** The fenced blocks of a Markdown file, dedented by their fence's indent (blocks inside list items). */
function blocksOf(doc: string): Block[] {
  const lines = readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const indent = open[1]?.length ?? 0;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^ *```\s*$/.test(lines[j] ?? ''); j++) body.push((lines[j] ?? '').slice(indent));
    blocks.push({ doc, line: i + 1, kind: open[2] ?? '', code: `${body.join('\n')}\n` });
    i = j;
  }
  return blocks;
}

const blocks = DOCS.flatMap(blocksOf);
const snippets = blocks.filter((b) => SNIPPET_KINDS.has(b.kind));
const notRun = snippets.filter((b) => NOT_RUN.test(b.code.split('\n')[0] ?? ''));
/** Commands that run until stopped or run suites (this one among them): never run here, whatever a block says. */
const LONG_RUNNING = /\bnpm (?:start|test|run (?:dev|mock|wallet|bench|prove|smoke))\b|\bvitest\b|\.ci\/run\b/;
const unmarkedLongRunning = snippets.filter((b) => !notRun.includes(b) && LONG_RUNNING.test(b.code));
const toRun = snippets.filter((b) => !notRun.includes(b) && !unmarkedLongRunning.includes(b));
const where = (b: Block) => `${b.doc}:${b.line}`;

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The pinned Node (it runs TypeScript files as they are), whichever Node runs the test. */
const NODE =
  Number(process.versions.node.split('.')[0]) >= 23 ? process.execPath : path.join(ROOT, 'node_modules/.bin/node');

function withGateway(code: string, url: string): string {
  return code.replaceAll(/(localhost|127\.0\.0\.1):3000\b/g, url.replace('http://', ''));
}

/** The file name and command line of a `js` snippet's usage comment (`//   A=b node name.mjs args`). */
function usageOf(code: string): { file: string; env: Record<string, string>; args: string[] } | undefined {
  const usage = /^\/\/\s+((?:[A-Z_]+=\S+\s+)*)node (\S+\.mjs)((?: \S+)*)\s*$/m.exec(code);
  if (!usage) return undefined;
  const env = Object.fromEntries(
    (usage[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  return { file: usage[2] ?? 'snippet.mjs', env, args: (usage[3] ?? '').trim().split(/\s+/).filter(Boolean) };
}

describe('the docs', () => {
  it('link only to files that exist, and to headings that exist', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(path.join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^(https?:|mailto:)/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file ? path.resolve(path.dirname(path.join(ROOT, doc)), file) : path.join(ROOT, doc);
        if (!existsSync(resolved)) broken.push(`${doc}: ${target} (no such file)`);
        else if (anchor && resolved.endsWith('.md')) {
          const headings = readFileSync(resolved, 'utf8')
            .replace(/```[\s\S]*?```/g, '')
            .split('\n')
            .filter((l) => /^#{1,6} /.test(l))
            .map((l) => slug(l.replace(/^#+ /, '')));
          if (!headings.includes(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('give every block its kind, and write snippets as ts, js or sh', () => {
    const unnamed = blocks.filter((b) => !SNIPPET_KINDS.has(b.kind) && !OTHER_KINDS.has(b.kind)).map(where);
    expect(unnamed, 'a block without a kind, or of a kind the snippet test does not know').toEqual([]);
    expect(snippets.length).toBeGreaterThan(10);
  });

  it('say, in a snippet not run, why, and not run only the snippets listed here', () => {
    expect(unmarkedLongRunning.map(where), 'a server or a suite in a snippet not marked as not run').toEqual([]);
    const listed = notRun.map((b) => `${b.doc}: ${b.code.split('\n')[1] ?? ''}`).sort();
    expect(listed).toEqual([...EXPECTED_NOT_RUN].sort());
  });
});

describe('the docs’ snippets, against a running gateway', () => {
  let gateway: RunningGateway;
  const files = new Map<Block, string>();

  beforeAll(async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    gateway = await startGateway();
    for (const [n, b] of toRun.entries()) {
      const name =
        b.kind === 'js'
          ? `${n}-${usageOf(b.code)?.file ?? 'snippet.mjs'}`
          : `${n}-${path.basename(b.doc, '.md')}-${b.line}.${b.kind === 'ts' ? 'mts' : 'sh'}`;
      files.set(b, path.join(WORK, name));
      writeFileSync(path.join(WORK, name), withGateway(b.code, gateway.url));
    }
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('typecheck, every TypeScript snippet in one run of tsc against the built client', () => {
    const typescript = toRun.filter((b) => b.kind === 'ts');
    writeFileSync(
      path.join(WORK, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2023'],
          types: ['node'],
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: typescript.map((b) => path.basename(files.get(b) ?? '')),
      }),
    );
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', WORK], {
      encoding: 'utf8',
    });
    const named = typescript.map((b) => `${path.basename(files.get(b) ?? '')} is ${where(b)}`).join('\n');
    expect(tsc.status, `${tsc.stdout}${tsc.stderr}\n${named}`).toBe(0);
  }, 120_000);

  it('run, every ts, js and sh snippet not marked otherwise, waiting for the events the shell snippets make', async () => {
    const env = {
      ...process.env,
      PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}`,
      GATEWAY_URL: gateway.url,
      DATA_DIR: gateway.dataDir,
      DATABASE_URL: `sqlite:${path.join(gateway.dataDir, 'gateway.db')}`,
      LOG_FORMAT: 'json',
    };
    const failures: string[] = [];
    const program = (b: Block) => {
      const file = files.get(b) ?? '';
      const usage = b.kind === 'js' ? usageOf(b.code) : undefined;
      const args = usage?.args ?? [];
      const extra = Object.fromEntries(
        Object.entries(usage?.env ?? {}).map(([k, v]) => [k, withGateway(v, gateway.url)]),
      );
      return b.kind === 'sh'
        ? { command: 'bash', args: ['-euo', 'pipefail', file], env, cwd: ROOT }
        : { command: NODE, args: [file, ...args], env: { ...env, ...extra }, cwd: WORK };
    };

    // The snippets that wait for events: started first, each until it says its stream is open.
    const waiting = toRun.filter((b) => b.kind === 'js' && b.code.includes('.events('));
    const background = waiting.map((b) => {
      const { command, args, env: childEnv, cwd } = program(b);
      const child: ChildProcess = spawn(command, args, { env: childEnv, cwd });
      let output = '';
      const opened = new Promise<void>((resolve) => {
        const take = (chunk: Buffer) => {
          output += chunk;
          if (/^open$/m.test(output)) resolve();
        };
        child.stdout?.on('data', take);
        child.stderr?.on('data', take);
      });
      const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return { b, child, opened, ended, output: () => output };
    });
    await Promise.all(background.map((p) => Promise.race([p.opened, p.ended])));

    for (const b of toRun.filter((each) => !waiting.includes(each))) {
      // A sign-out ends the passwords signed for an expiry up to its sign-in's (11309): the next snippet's
      // password, signed for a lifetime from now, must expire at least a second later.
      if (/\.login\(/.test(b.code)) await new Promise((resolve) => setTimeout(resolve, 1100));
      const { command, args, env: childEnv, cwd } = program(b);
      const run = spawnSync(command, args, { env: childEnv, cwd, encoding: 'utf8', timeout: 60_000 });
      const output = `${run.stdout}${run.stderr}`;
      if (run.status !== 0) failures.push(`${where(b)} exited ${run.status}:\n${output}`);
      else if (/\bcurl\b/.test(b.code) && (!run.stdout.trim() || run.stdout.includes('"errors":['))) {
        failures.push(`${where(b)}: curl answered an error or nothing:\n${output}`);
      }
    }

    for (const p of background) {
      const code = await Promise.race([
        p.ended,
        new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 15_000)),
      ]);
      if (code === 'late') p.child.kill();
      if (code !== 0) failures.push(`${where(p.b)} (waiting for events) ended ${code}:\n${p.output()}`);
      else if (!/confirmed/.test(p.output())) failures.push(`${where(p.b)} saw no event:\n${p.output()}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
