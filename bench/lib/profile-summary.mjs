#!/usr/bin/env node
/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time, and self
 * time by package (node_modules/<pkg>, the server's own code, Node internals).
 *
 *   node bench/lib/profile-summary.mjs FILE.cpuprofile [TOP]
 */
import { readFileSync } from 'node:fs';

export function summarizeProfile(file, top = 20) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => {
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
  const rank = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({
        name,
        ms: Math.round(micros / 1000),
        percent: Math.round((micros / total) * 1000) / 10,
      }));
  return { totalMs: Math.round(total / 1000), functions: rank(functions), packages: rank(packages) };
}

export function formatSummary(summary) {
  const lines = [`total sampled ${summary.totalMs} ms; top self time:`];
  for (const f of summary.functions) lines.push(`  ${String(f.percent).padStart(5)}%  ${f.name}`);
  lines.push('by package:');
  for (const p of summary.packages.slice(0, 12)) lines.push(`  ${String(p.percent).padStart(5)}%  ${p.name}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  console.log(formatSummary(summarizeProfile(file, Number(top ?? 25))));
}
