#!/usr/bin/env node
/**
 * The same build on each supported Node line (scripts/node-lines.mjs: the pinned one, 24 and 22), in one run:
 * each line's gateway started as `npm start` starts it (its Node flags, read from the root package.json's
 * `start` script: the 160 MiB old space and the 16 MiB semi-space; `serve --demo` on a fresh SQLite database
 * of its own; the bench's environment, bench/gateway.mjs), pinned to core 0, and one more Node 24 gateway with
 * the old-space flag alone (the slow mode the semi-space flag avoids, issue 42). Then (lib/load.mjs,
 * autocannon on core 1, as bench/run.mjs measures):
 *
 * - a public read, `GET /v1/platforms/ETH`: first each gateway alone from its first request on, its rounds
 *   back to back (load from the start, as a deployment meets it: the slow mode is entered, or not, in the
 *   first seconds), then every gateway side by side, their rounds alternating, many rounds (every round's
 *   req/s and CPU per request are printed: a second speed shows as rounds far below the others);
 * - the three lines side by side, their rounds alternating: a signed-in page, `GET /v1/movements?limit=100`
 *   with each gateway's own access token (the demo account), and password grants, `POST /v1/oauth2/token`, a
 *   distinct password per request, cycled (scenarios/tokens.mjs);
 * - an import, `gateway movements import FILE` of 100,000 lines of the bench's movements file on each line's
 *   Node into a fresh database (scenarios/imports.mjs), lines alternating, the order reversed every round.
 *
 *   npm run build && node bench/node-lines.mjs [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                                              [--connections N] [--wait-idle S] [--quick]
 *
 * `--rounds N`: the public read's rounds side by side (12; 6 with --quick); alone, the page and the grants
 * take half as many (at least 3), the import 2 per line (1 with --quick). Run on another Node than the pinned one (`node` of the
 * machine), the script runs itself again on the pinned Node, so that the load generator and the operator
 * commands preparing the databases run there. Writes bench/results/<date>-node-lines.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LINES, nodeBinary, PINNED } from '../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The pinned Node: the `node` devDependency's binary, or one installed like the other lines'. */
function pinnedNode() {
  const bin = path.join(ROOT, 'node_modules/.bin/node');
  try {
    if (existsSync(bin) && execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim() === `v${PINNED}`) return bin;
  } catch {}
  return nodeBinary(PINNED, (line) => process.stderr.write(`${line}\n`));
}

if (process.versions.node !== PINNED) {
  // Not on the pinned Node (the machine's `node`): run again on it; ^C reaches both, the child cleans up.
  const child = spawn(pinnedNode(), [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

async function main() {
  // Loaded here, not at the top: the parent that only runs this script again on the pinned Node needs none of it.
  const { cleanup, fmt, log, options, QUICK, results, running, SETTINGS, stamp, startedAt, THIS_BUILD, tmpRoot } =
    await import('./context.mjs');
  const { capture, gatewayEnv, prepareDatabase, signIn } = await import('./gateway.mjs');
  const { loadSideBySide } = await import('./side-by-side.mjs');
  const { makeGrants } = await import('./scenarios/tokens.mjs');
  const { freshDatabase, machineAfter, machineBefore, storedMovements } = await import('./scenarios/feed-setup.mjs');
  const { movementsFile, runTimed } = await import('./lib/feeds.mjs');
  const { BENCH, canPin, CLI, freePort, isFile, median, peakRssMiB, startService } = await import('./lib/common.mjs');
  const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const os = await import('node:os');

  /** The demo exchange's account (docs/applications.md, "The demo exchange"): the signed-in page is its movements. */
  const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
  const IMPORT_LINES = 100_000;
  const PUBLIC = { label: 'GET /v1/platforms/ETH', path: '/v1/platforms/ETH' };
  const PAGE = { label: 'GET /v1/movements?limit=100', path: '/v1/movements?limit=100', signedIn: true };

  const publicRounds = Number(options.rounds ?? (QUICK ? 6 : 12));
  const otherRounds = Math.max(3, Math.ceil(publicRounds / 2));
  const importRounds = QUICK ? 1 : 2;
  SETTINGS.roundSeconds = Number(options['round-seconds'] ?? (QUICK ? 2 : 3));
  SETTINGS.warmupSeconds = Number(options['warmup-seconds'] ?? (QUICK ? 1 : 2));

  /** `npm start`'s Node flags (`node FLAGS server/dist/cli.js serve --demo`), so that the bench follows it. */
  const startScript = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts?.start ?? '';
  const startFlags = /\bnode((?:\s+--\S+)*)\s+server\/dist\/cli\.js\s+serve\b/
    .exec(startScript)?.[1]
    ?.trim()
    .split(/\s+/)
    .filter(Boolean) ?? ['--max-old-space-size=160', '--max-semi-space-size=16'];
  const variantFlags = startFlags.filter((flag) => !flag.startsWith('--max-semi-space-size'));

  for (const dist of ['server/dist/cli.js', 'client/dist/index.js', 'ledger/dist/index.js']) {
    if (!isFile(path.join(ROOT, dist))) throw new Error(`${dist} is missing: run \`npm run build\` first`);
  }
  const lines = LINES.map((line) => ({
    ...line,
    node: line.pinned ? process.execPath : nodeBinary(line.version, log),
  }));
  for (const line of lines) {
    const version = execFileSync(line.node, ['--version'], { encoding: 'utf8' }).trim();
    if (version !== `v${line.version}`) throw new Error(`${line.node} is ${version}, not v${line.version}`);
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    pinned: canPin() ? 'servers and CLI core 0, load generator core 1' : 'no (needs 2 cores and taskset)',
    loadAvgAtStart: os.loadavg(),
  };
  log(
    `node lines: ${lines.map((l) => l.version).join(', ')}; build ${THIS_BUILD.label}; ${machine.cpu} x${machine.cores}, pinning: ${machine.pinned}; load ${machine.loadAvgAtStart.map((v) => v.toFixed(2)).join(' ')}`,
  );
  log(`npm start's flags: ${startFlags.join(' ')}`);

  /** A gateway of the build on `node` with `flags`, started as `npm start` starts it, on a database of its own. */
  async function startGateway(label, node, flags) {
    const dir = mkdtempSync(path.join(tmpRoot, 'gateway-'));
    const env = gatewayEnv(`sqlite:${path.join(dir, 'gateway.db')}`, dir);
    const port = await freePort();
    const service = await startService(`gateway ${label}`, [CLI, 'serve', '--demo'], {
      port,
      core: 0,
      node,
      nodeArgs: flags,
      env: { ...env, PORT: String(port) },
      timeoutMs: 120_000,
    });
    running.add(service);
    started.push(service);
    log(`[${label}] gateway up at ${service.url} (pid ${service.pid}): ${path.basename(node)} ${flags.join(' ')}`);
    return { label, flags, service, pid: service.pid, url: service.url };
  }

  /**
   * Medians and every round of one target's measurement, and its req/s against the pinned line's: the median
   * of the ratios of rounds run back to back (side by side), or of the medians (`paired` false: each alone).
   */
  function summarize(m, pinned, paired = true) {
    const rps = m.rounds.map((r) => r.rps);
    const ratios = pinned && paired ? m.rounds.map((r, i) => r.rps / pinned.rounds[i].rps) : [];
    return {
      rps: m.rps,
      roundsRps: rps,
      minRps: Math.min(...rps),
      maxRps: Math.max(...rps),
      p50: m.p50,
      p99: m.p99,
      peakRssMiB: m.peakRssMiB,
      cpuUsPerRequest: m.cpuUsPerRequest,
      errors: m.errors,
      non2xx: m.non2xx,
      statusCodes: m.statusCodes,
      backgroundCpu: m.backgroundCpu,
      versusPinned: pinned ? (paired ? median(ratios) : m.rps / pinned.rps) : null,
      rounds: m.rounds,
    };
  }

  /**
   * One HTTP scenario: each target's summary, keyed by its label. Side by side (lib/load.mjs: the targets'
   * rounds alternating), or with `alone` each target in turn, its warm-up and rounds back to back (a target
   * given as a function that starts it is started just before). Returns the targets.
   */
  async function measure(id, request, targets, rounds, alone = false) {
    SETTINGS.rounds = rounds;
    log(
      `${request.label}: ${targets.length} gateways${alone ? ', each alone' : ''}, ${rounds} rounds of ${SETTINGS.roundSeconds} s (warm-up ${SETTINGS.warmupSeconds} s) …`,
    );
    const loadAvgBefore = os.loadavg()[0];
    const measured = [];
    if (alone) {
      // A target given as a function is started here, just before its first request.
      for (const [i, target] of targets.entries()) {
        if (typeof target === 'function') targets[i] = await target();
        measured.push(...(await loadSideBySide([targets[i]], request)));
      }
    } else measured.push(...(await loadSideBySide(targets, request)));
    const byLabel = {};
    for (const [i, m] of measured.entries()) {
      byLabel[targets[i].label] = summarize(m, i === 0 ? null : measured[0], !alone);
    }
    results.scenarios[id] = {
      id,
      label: request.label,
      alone,
      rounds,
      roundSeconds: SETTINGS.roundSeconds,
      loadAvg1Before: loadAvgBefore,
      loadAvg1After: os.loadavg()[0],
      measurements: byLabel,
    };
    for (const [label, s] of Object.entries(byLabel)) {
      log(
        `  ${label.padEnd(30)} ${fmt(s.rps).padStart(7)} req/s [${fmt(s.minRps)}–${fmt(s.maxRps)}]  p99 ${fmt(s.p99, 2)} ms  RSS ${fmt(s.peakRssMiB, 1)} MB  CPU ${fmt(s.cpuUsPerRequest)} µs` +
          (s.non2xx || s.errors ? `  !! non-2xx ${s.non2xx}, errors ${s.errors} ${JSON.stringify(s.statusCodes)}` : ''),
      );
    }
    return targets;
  }

  const labelOf = (line) => `Node ${line.version}${line.pinned ? ' (pinned)' : ''}`;
  const started = [];
  const gateways = [];
  try {
    // The public read, first each gateway alone, started just before it and loaded from its first request
    // on, its rounds back to back: traffic as a deployment meets it, with no pause after the start (V8 sizes
    // its heap in the first seconds: Node 24 without the semi-space flag ran into the slow mode under load
    // from its start, and kept clear of it when an idle spell followed a first burst, as alternating rounds
    // give). The gateways: one per line as `npm start` starts it, then Node 24 without the semi-space flag.
    const line24 = lines.find((l) => l.line === 24);
    const starts = lines.map((line) => async () => {
      const gateway = { ...(await startGateway(labelOf(line), line.node, startFlags)), line };
      gateways.push(gateway);
      return gateway;
    });
    if (line24 && variantFlags.length < startFlags.length) {
      starts.push(() => startGateway(`Node ${line24.version}, ${variantFlags.join(' ')}`, line24.node, variantFlags));
    }
    const all = await measure(
      'public-platform-alone',
      { ...PUBLIC, label: `${PUBLIC.label}, each alone from its start` },
      starts,
      otherRounds,
      true,
    );
    // Every gateway gives the same answers: the public read, then the demo account's page with its own token.
    const reference = await capture(gateways[0], PUBLIC);
    for (const g of all) {
      if (JSON.stringify(await capture(g, PUBLIC)) !== JSON.stringify(reference)) {
        log(`  !! ${g.label}: ${PUBLIC.path} answers differently`);
      }
    }
    let items = null;
    for (const g of gateways) {
      g.token = await signIn(g, DEMO_SEED);
      const page = await capture(g, { path: PAGE.path, headers: { authorization: `Bearer ${g.token}` } });
      if (!page.items?.length) throw new Error(`${g.label}: the demo account's page is empty`);
      if (items !== null && page.items.length !== items) {
        log(`  !! ${g.label}: ${page.items.length} items, not ${items}`);
      }
      items ??= page.items.length;
    }
    const pageRequest = { ...PAGE, label: `${PAGE.label} (demo account, ${items} items)` };
    // Then all of them side by side, their rounds alternating: many rounds, every round's req/s printed.
    await measure('public-platform', { ...PUBLIC, label: `${PUBLIC.label}, side by side` }, all, publicRounds);
    await measure('movements-page', pageRequest, gateways, otherRounds);
    const grants = await makeGrants();
    await measure(
      'tokens',
      {
        label: 'POST /v1/oauth2/token password',
        path: '/v1/oauth2/token',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bodies: grants.bodies,
      },
      gateways,
      otherRounds,
    );
    results.servers = [];
    for (const g of all) {
      results.servers.push({ label: g.label, flags: g.flags, lifetimePeakRssMiB: peakRssMiB(g.pid) });
      await g.service.stop();
      running.delete(g.service);
    }

    // The import: the same file on each line's Node, each into a fresh database, lines alternating.
    const source = movementsFile(SETTINGS.seed, IMPORT_LINES, log);
    results.importFile = { ...source, file: path.relative(ROOT, source.file) };
    const imports = Object.fromEntries(lines.map((line) => [labelOf(line), []]));
    for (let round = 0; round < importRounds; round++) {
      const order = round % 2 === 0 ? lines : [...lines].reverse();
      for (const line of order) {
        const { url, dataDir } = await freshDatabase('sqlite', `import-${line.line}`);
        const env = gatewayEnv(url, dataDir);
        await prepareDatabase('sqlite', env, false);
        const before = await machineBefore();
        const run = await runTimed([CLI, 'movements', 'import', source.file], {
          core: 0,
          env,
          cwd: ROOT,
          node: line.node,
          usageFile: path.join(dataDir, 'usage.json'),
        });
        const stored = await storedMovements(env);
        const done = {
          rps: source.lines / run.wallSeconds,
          wallSeconds: run.wallSeconds,
          cpuSeconds: run.cpuSeconds,
          peakRssMiB: run.peakRssMiB,
          stored,
          countOk: stored === source.lines,
          ...machineAfter(before),
        };
        imports[labelOf(line)].push(done);
        log(
          `  import ${labelOf(line).padEnd(24)} ${fmt(done.rps)} records/s, ${fmt(done.wallSeconds, 1)} s wall, CPU ${fmt(done.cpuSeconds, 1)} s, peak RSS ${fmt(done.peakRssMiB, 1)} MB, stored ${fmt(stored)}` +
            `; machine ${fmt((done.machineBusyDuring ?? 0) * 100)}% busy${done.countOk ? '' : '  !! count differs'}`,
        );
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    results.scenarios.import = {
      id: 'import',
      label: `gateway movements import FILE (${fmt(source.lines)} lines)`,
      rounds: importRounds,
      measurements: Object.fromEntries(
        Object.entries(imports).map(([label, runs]) => [
          label,
          {
            rps: median(runs.map((r) => r.rps)),
            roundsRps: runs.map((r) => r.rps),
            minRps: Math.min(...runs.map((r) => r.rps)),
            maxRps: Math.max(...runs.map((r) => r.rps)),
            wallSeconds: median(runs.map((r) => r.wallSeconds)),
            cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
            peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB ?? 0)),
            countOk: runs.every((r) => r.countOk),
            machineBusyDuring: median(runs.map((r) => r.machineBusyDuring)),
            versusPinned: null,
            rounds: runs,
          },
        ]),
      ),
    };
    const pinnedImport = imports[labelOf(lines[0])];
    for (const [label, entry] of Object.entries(results.scenarios.import.measurements)) {
      if (label !== labelOf(lines[0])) {
        entry.versusPinned = median(entry.rounds.map((r, i) => pinnedImport[i] && r.rps / pinnedImport[i].rps));
      }
    }
  } catch (error) {
    for (const service of running) log(`--- ${service.name} log:\n${service.log().slice(-3000)}`);
    await cleanup();
    throw error;
  } finally {
    for (const service of started) if (running.has(service)) await service.stop();
  }

  /* ------------------------------------------------------------------ the table */

  const minutes = (Date.now() - startedAt) / 60_000;
  machine.loadAvgAtEnd = os.loadavg();
  const header = ['scenario', 'Node', 'req/s', 'rounds: lowest–highest', 'x pinned', 'p99 ms', 'RSS MB', 'CPU µs'];
  const table = [];
  for (const s of Object.values(results.scenarios)) {
    let first = true;
    for (const [label, m] of Object.entries(s.measurements)) {
      const notes = [
        ...(m.non2xx || m.errors ? [`!! ${m.non2xx} non-2xx, ${m.errors} errors`] : []),
        ...(m.backgroundCpu > 0.1 ? [`!! machine ${(m.backgroundCpu * 100).toFixed(0)}% busy before`] : []),
        ...(m.countOk === false ? ['!! stored count differs'] : []),
        ...(m.wallSeconds ? [`${fmt(m.wallSeconds, 1)} s wall, ${fmt(m.cpuSeconds, 1)} s CPU`] : []),
      ];
      table.push({
        cells: [
          first ? `${s.label}${s.id === 'import' ? '' : `, ${s.rounds} × ${s.roundSeconds} s`}` : '',
          label,
          fmt(m.rps),
          `${fmt(m.minRps)}–${fmt(m.maxRps)}`,
          m.versusPinned == null ? '' : m.versusPinned.toFixed(2),
          fmt(m.p99, 2),
          fmt(m.peakRssMiB, 1),
          fmt(m.cpuUsPerRequest ?? (m.cpuSeconds ? (m.cpuSeconds * 1e6) / IMPORT_LINES : null)),
          notes.join(' | '),
        ],
      });
      first = false;
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r.cells[i].length)));
  const right = new Set([2, 3, 4, 5, 6, 7]);
  const format = (cells) =>
    cells
      .map((c, i) => (i >= widths.length ? c : right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(
    `\nThe build ${THIS_BUILD.label} on the Node lines, ${new Date().toISOString()} (${minutes.toFixed(1)} min)`,
  );
  console.log(`${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB; pinned: ${machine.pinned}`);
  console.log(
    `gateways: \`serve --demo\` as npm start (${startFlags.join(' ')}), SQLite; ${SETTINGS.connections} connections, medians of the rounds; ` +
      `x pinned: the median of round-by-round ratios to the pinned line (each alone: of the medians); CPU µs: per request (import: per line); ` +
      `load average ${machine.loadAvgAtStart[0].toFixed(2)} at the start, ${machine.loadAvgAtEnd[0].toFixed(2)} at the end`,
  );
  console.log('');
  console.log(format(header));
  console.log(format(widths.map((w) => '-'.repeat(w))));
  for (const row of table) console.log(format(row.cells));
  for (const id of ['public-platform-alone', 'public-platform']) {
    const publicRead = results.scenarios[id];
    if (!publicRead) continue;
    console.log(`\n${publicRead.label}: req/s of every round, in order (CPU µs a request)`);
    for (const [label, m] of Object.entries(publicRead.measurements)) {
      const rounds = m.rounds.map((r) => `${fmt(r.rps)} (${fmt(r.serverCpuUsPerRequest)})`.padStart(12));
      console.log(`  ${label.padEnd(widths[1])} ${rounds.join(' ')}`);
    }
  }

  mkdirSync(path.join(BENCH, 'results'), { recursive: true });
  const file = path.join(BENCH, 'results', `${stamp}${QUICK ? '-quick' : ''}-node-lines.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        minutes,
        machine,
        build: THIS_BUILD,
        lines: lines.map((l) => ({ ...l, node: path.relative(ROOT, l.node) || l.node })),
        startFlags,
        variantFlags,
        settings: { ...SETTINGS, publicRounds, otherRounds, importRounds, importLines: IMPORT_LINES },
        table: table.map((r) => Object.fromEntries([...header, 'notes'].map((h, i) => [h, r.cells[i]]))),
        ...results,
      },
      null,
      2,
    )}\n`,
  );
  // The repository's `biome check .` covers bench/: leave the file formatted its way (best effort).
  try {
    execFileSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file], {
      cwd: ROOT,
      stdio: 'ignore',
    });
  } catch {}
  console.log(`results: ${path.relative(ROOT, file)}`);
  await cleanup();
}
