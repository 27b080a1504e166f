#!/usr/bin/env node
/**
 * A CPU profile's busy time per request, by where it is spent (a package, a Node module, a file of the
 * server's build, a native function): to set two servers' profiles side by side under the same load.
 *
 *   node bench/lib/profile-per-request.mjs FILE.cpuprofile REQUESTS [SKIP_SECONDS]
 *
 * REQUESTS: the requests answered while profiled; SKIP_SECONDS: the start to leave out (the server's own
 * start-up, compiling the spec's schemas). The profiler samples wall time: on a shared core, time the process
 * spends waiting for it lands on whatever function was running, so compare profiles taken at the same time.
 */
import { readFileSync } from 'node:fs';

const [file, requests, skipSeconds = '0'] = process.argv.slice(2);
if (!file || !requests) {
  console.error('usage: node bench/lib/profile-per-request.mjs FILE.cpuprofile REQUESTS [SKIP_SECONDS]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const from = profile.startTime + Number(skipSeconds) * 1e6;
const self = new Map();
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i];
  if (at >= from) self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i]);
});

/** Where a function belongs. */
function groupOf({ functionName, url }) {
  if (!url) return functionName.startsWith('(') ? functionName : `[native ${functionName}]`;
  if (url.includes('node_modules/')) {
    const parts = url.split('node_modules/').pop().split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url;
  return url.replace(/.*\/server\/dist\//, 'server/dist/');
}

const groups = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)') continue;
  const group = groupOf(callFrame);
  groups.set(group, (groups.get(group) ?? 0) + us);
}
const busy = [...groups.values()].reduce((a, b) => a + b, 0);
console.log(`busy ${(busy / 1000).toFixed(0)} ms: ${(busy / Number(requests)).toFixed(2)} µs per request`);
for (const [group, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${(us / Number(requests)).toFixed(2).padStart(7)}  ${group}`);
}
