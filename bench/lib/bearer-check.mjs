#!/usr/bin/env node
/**
 * The bearer check alone, in-process: `verifyAccessToken` of a build's server/dist on an access token found
 * in the verified-token cache (the signed-in read path's state under load), a million calls a round. Takes
 * builds in turn (alternating, so a slow spell falls on each), for the cost a change adds to every signed-in
 * request without the HTTP and database noise of the bench. Builds of revocation (8b8b215 on) also check
 * the sign-in against their revoked sign-ins (100 others revoked here); earlier ones have no such check.
 *
 *   taskset -c 0 node bench/lib/bearer-check.mjs DIR [DIR …] [--rounds N]   (DIR: a checkout, built)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './common.mjs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '7' } },
});
const CALLS = 1_000_000;
const token = 'eyJhbGciOiJFZERTQSJ9.eyJhIjoiM1AifQ.c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl';
const header = `Bearer ${token}`;

const builds = [];
for (const dir of positionals) {
  const dist = path.resolve(dir, 'server/dist/domain');
  const { verifyAccessToken } = await import(path.join(dist, 'access-token.js'));
  let revoked;
  try {
    const { RevokedFamilies } = await import(path.join(dist, 'revocations.js'));
    revoked = new RevokedFamilies();
    for (let i = 0; i < 100; i++) revoked.add(`revoked-${i}`, 1);
  } catch {
    revoked = undefined; // a build before revocation
  }
  const caller = { account: '3P', username: 'u', clientId: 'waves.exchange', family: 'sign-in-0' };
  const settings = { verified: new Map([[token, { caller, exp: 2e9 }]]), revoked, verifyingKeys: new Map() };
  builds.push({ dir, verifyAccessToken, settings, revocation: revoked !== undefined, us: [] });
}
for (let round = 0; round < Number(values.rounds); round++) {
  for (const build of round % 2 ? [...builds].reverse() : builds) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await build.verifyAccessToken(header, build.settings, 1e9);
    build.us.push(Number(process.hrtime.bigint() - started) / CALLS / 1000);
  }
}
for (const { dir, revocation, us } of builds) {
  const sorted = [...us].sort((a, b) => a - b);
  console.log(
    `${dir.padEnd(30)} revocation check ${revocation ? 'yes' : 'no '}  µs per call ${median(us).toFixed(3)} [${sorted[0].toFixed(3)}–${sorted.at(-1).toFixed(3)}]`,
  );
}
