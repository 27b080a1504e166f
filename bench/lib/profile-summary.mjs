#!/usr/bin/env node
/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time, and self
 * time by package (node_modules/<pkg>, the server's own code, Node internals).
 *
 *   node bench/lib/profile-summary.mjs FILE.cpuprofile [TOP] [START_US END_US]
 */
import { readFileSync } from 'node:fs';

export function summarizeProfile(file, top = 20, window = null) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  // With a window ({ startUs, endUs } on the monotonic clock), only the samples taken inside it count:
  // the measured rounds, without start-up and warm-up.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += deltas[i] ?? 0;
    if (window && (at < window.startUs || at > window.endUs)) return;
    self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((s, v) => s + v, 0) || 1;
  const functions = new Map();
  const packages = new Map();
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id);
    const url = callFrame.url ?? '';
    const where = url.replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '');
    const name =
      `${callFrame.functionName || '(anonymous)'} ${where ? `${where}:${callFrame.lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + micros);
    const pkg =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1] ??
      (/^(server|client|generated)\//.exec(where)?.[1] ? `[${/^(\w+)\//.exec(where)[1]}]` : null) ??
      (where.startsWith('node:')
        ? '[node internals]'
        : callFrame.functionName
          ? `[${callFrame.functionName}]`
          : '[other]');
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros);
  }
  // Inclusive ("total") time per function of the gateway's own code and its main libraries: every sample
  // counts once for each distinct function on its stack.
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nameOf = (node) => {
    const where = (node.callFrame.url ?? '').replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '');
    return `${node.callFrame.functionName || '(anonymous)'} ${where ? `${where}:${node.callFrame.lineNumber + 1}` : ''}`.trim();
  };
  const stacks = new Map();
  const stackOf = (id) => {
    let names = stacks.get(id);
    if (!names) {
      const set = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const name = nameOf(byId.get(at));
        if (/^(\(anonymous\)|\(root\)|\(program\)|\(idle\))/.test(name)) continue;
        set.add(name);
      }
      names = [...set];
      stacks.set(id, names);
    }
    return names;
  };
  const inclusive = new Map();
  for (const [id, micros] of self)
    for (const name of stackOf(id)) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
  for (const name of [...inclusive.keys()]) {
    if (
      !/ (server|client|ledger)\/dist\/|node_modules\/(kysely|jose|fastify|fast-json-stringify|better-sqlite3|pg|@fastify|openapi-fetch|undici|@noble)/.test(
        name,
      )
    )
      inclusive.delete(name);
  }
  const rank = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({
        name,
        ms: Math.round(micros / 1000),
        percent: Math.round((micros / total) * 1000) / 10,
      }));
  return {
    totalMs: Math.round(total / 1000),
    functions: rank(functions),
    packages: rank(packages),
    inclusive: rank(inclusive),
  };
}

export function formatSummary(summary) {
  const lines = [`total sampled ${summary.totalMs} ms; top self time:`];
  for (const f of summary.functions) lines.push(`  ${String(f.percent).padStart(5)}%  ${f.name}`);
  lines.push('by package:');
  for (const p of summary.packages.slice(0, 12)) lines.push(`  ${String(p.percent).padStart(5)}%  ${p.name}`);
  lines.push('inclusive (the gateway and its main libraries):');
  for (const f of summary.inclusive ?? []) lines.push(`  ${String(f.percent).padStart(5)}%  ${f.name}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top, startUs, endUs] = process.argv.slice(2);
  const window = startUs && endUs ? { startUs: Number(startUs), endUs: Number(endUs) } : null;
  console.log(formatSummary(summarizeProfile(file, Number(top ?? 25), window)));
}
