/**
 * Token grants (`tokens-sqlite`, `tokens-pg`): password grants against the gateway and against the floor of a
 * grant (lib/bare-grant.mjs: a bare route doing only what every grant must, on the same store), their rounds
 * alternating, beside the in-process signature-check rates measured just before and just after them
 * (lib/crypto-rate.mjs).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { passwordFor, signerFromSeed } from '@gateway/client';
import { CHAIN_ID, CLIENT_ID, fmt, log, results, running, SETTINGS, TARGETS, tmpRoot } from '../context.mjs';
import { BENCH, backgroundBusy, freePort, runNode, startService } from '../lib/common.mjs';
import { check, pick, ratio, rssCheck } from '../rows.mjs';
import { loadSideBySide, record } from '../side-by-side.mjs';

/* ------------------------------------------------------------------ token grant passwords */

export async function makeGrants() {
  const t = Date.now();
  const expiryBase = Math.floor(Date.now() / 1000) + 6 * 86_400;
  const grants = [];
  for (let s = 0; s < SETTINGS.grantSeeds; s++) {
    const signer = signerFromSeed(`${SETTINGS.seed} grant ${s}`);
    for (let k = 0; k < SETTINGS.grantsPerSeed; k++) {
      grants.push({
        username: signer.publicKey,
        password: await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiryBase + k),
      });
    }
  }
  log(
    `[tokens] ${grants.length} passwords from ${SETTINGS.grantSeeds} seeds in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );
  const file = path.join(tmpRoot, 'grants.json');
  writeFileSync(file, JSON.stringify({ chainId: CHAIN_ID, clientId: CLIENT_ID, grants }));
  const bodies = grants.map((g) =>
    new URLSearchParams({ grant_type: 'password', scope: 'general', client_id: CLIENT_ID, ...g }).toString(),
  );
  return { file, bodies };
}

/**
 * The in-process signature-check rates (lib/crypto-rate.mjs, core 0, while the gateway idles): the token
 * scenario's baselines. Measured just before and just after the grants and averaged, so that they are taken
 * under the same conditions as the grants (on a shared machine, the reference library's rate alone has moved
 * from 66 to 124 checks/s within an hour).
 */
export async function measureVerification(grants) {
  const background = await backgroundBusy(500);
  const rates = JSON.parse(
    await runNode([path.join(BENCH, 'lib/crypto-rate.mjs'), grants.file, String(SETTINGS.cryptoSeconds)], {
      core: 0,
    }),
  );
  log(
    `  verify: warm ${fmt(rates.warm.perSecond)}/s, cold ${fmt(rates.cold.perSecond)}/s; sign ${fmt(rates.sign.perSecond)}/s; ts-lib-crypto ${fmt(rates.reference.perSecond)}/s (${fmt(rates.referenceWarmUp.perSecond)}/s while warming up)` +
      (rates.warm.failures || rates.reference.failures ? '  !! some signatures did not verify' : ''),
  );
  return { ...rates, backgroundCpu: background };
}

/** Two verification measurements as one: each rate the mean of the two. */
export function meanVerification(before, after) {
  const mean = (key) => ({ perSecond: (before[key].perSecond + after[key].perSecond) / 2 });
  return {
    warm: mean('warm'),
    cold: mean('cold'),
    sign: mean('sign'),
    reference: mean('reference'),
    backgroundCpu: Math.max(before.backgroundCpu ?? 0, after.backgroundCpu ?? 0),
    before,
    after,
  };
}

/**
 * The crypto ceiling of a grant: one verification and one signing a grant, nothing else (rates per second;
 * `cold`: the verification of a key not seen before, its conversion and subgroup check included).
 */
export function cryptoCeiling(verify, cold = false) {
  const v = cold ? verify?.cold?.perSecond : verify?.warm?.perSecond;
  const s = verify?.sign?.perSecond;
  return v && s ? 1 / (1 / v + 1 / s) : null;
}

/**
 * The floor of a grant (lib/bare-grant.mjs) on the gateway's store: a file of its own beside the gateway's
 * (SQLite), or a schema of its own in the gateway's database (PostgreSQL).
 */
async function startBareGrant(store, databaseUrl, dataDir) {
  const port = await freePort();
  const database = store === 'pg' ? databaseUrl : `sqlite:${path.join(dataDir, 'bare-grant.db')}`;
  const service = await startService(
    'bare grant',
    [path.join(BENCH, 'lib/bare-grant.mjs'), String(port), CHAIN_ID, database],
    { port, core: 0 },
  );
  running.add(service);
  return service;
}

/** The grants against the gateway and the floor, between two measurements of the signature checks. */
export async function runTokens(store, gateway, grants, databaseUrl, dataDir) {
  const tokenId = `tokens-${store}`;
  log(`  ${tokenId.padEnd(18)} signature checks in-process, before and after the grants …`);
  const floor = await startBareGrant(store, databaseUrl, dataDir);
  try {
    const before = await measureVerification(grants);
    const [measurement, onFloor] = await loadSideBySide([gateway, floor], {
      path: '/v1/oauth2/token',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      bodies: grants.bodies,
    });
    const after = await measureVerification(grants);
    record(tokenId, `POST /v1/oauth2/token password (${store})`, 'tokens', 'gateway', measurement);
    record(tokenId, `POST /v1/oauth2/token password (${store})`, 'tokens', 'bare grant', onFloor);
    results.scenarios[tokenId].verification = meanVerification(before, after);
  } finally {
    running.delete(floor);
    await floor.stop();
  }
}

/** The grants row and its baselines (the signature-check rates). */
export function tokenRows(s) {
  const rows = [];
  const m = s.measurements;
  if (s.kind === 'tokens' && m.gateway) {
    const verify = s.verification;
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway',
      ...pick(m.gateway),
      checks: [
        check(
          ratio(m.gateway.rps, cryptoCeiling(verify)),
          (v) => v >= TARGETS.tokensVsCeiling,
          `x crypto ceiling (>=${TARGETS.tokensVsCeiling})`,
        ),
        check(
          ratio(m.gateway.rps, verify?.reference.perSecond),
          (v) => v >= TARGETS.tokensVsTsLib,
          `x ts-lib (>=${TARGETS.tokensVsTsLib})`,
        ),
        check(ratio(m.gateway.rps, m['bare grant']?.rps), () => null, 'x bare grant'),
        rssCheck(m.gateway),
      ],
    });
    if (m['bare grant']) {
      rows.push({
        scenario: '',
        id: s.id,
        target: 'bare grant',
        ...pick(m['bare grant']),
        checks: [check(ratio(m['bare grant'].rps, cryptoCeiling(verify)), () => null, 'x crypto ceiling')],
      });
    }
    if (verify) {
      const baseline = (target, rate, background) => ({
        scenario: '',
        id: s.id,
        target,
        rps: rate,
        p50: null,
        p99: null,
        rss: null,
        background,
        checks: [],
      });
      rows.push(baseline('crypto ceiling', cryptoCeiling(verify), verify.backgroundCpu));
      rows.push(baseline('server verify', verify.warm.perSecond));
      if (verify.sign) rows.push(baseline('server sign', verify.sign.perSecond));
      rows.push(baseline('server, cold key', verify.cold.perSecond));
      rows.push(baseline('ts-lib-crypto', verify.reference.perSecond));
    }
  }
  return rows;
}
