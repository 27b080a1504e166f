/**
 * The gateway of a build as the scenarios run it: its environment, its database prepared by its own CLI and
 * data script, its process (pinned, profiled on demand), a sign-in, a captured answer; and the baselines'
 * servers (the bare Fastify route, the Prism mock).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { passwordFor, signerFromSeed } from '@gateway/client';
import {
  CHAIN_ID,
  CLIENT_ID,
  log,
  options,
  QUICK,
  results,
  running,
  SERVER_NODE_ARGS,
  SETTINGS,
  stamp,
  state,
  THIS_BUILD,
  tmpRoot,
} from './context.mjs';
import { BENCH, BUNDLED_SPEC, freePort, PRISM_CLI, peakRssMiB, ROOT, runNode, startService } from './lib/common.mjs';
import { formatSummary, summarizeProfile } from './lib/profile-summary.mjs';
import { TRACING_OFF } from './lib/tracing.mjs';

export const TOKEN_SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
export const SECRETS = {
  TOKEN_SIGNING_KEY,
  PROXY_SEED: 'benchmark proxy seed (not a secret)',
  CURSOR_SECRET: randomBytes(32).toString('hex'),
};

export function gatewayEnv(databaseUrl, dataDir) {
  return {
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_RATE_LIMIT: String(SETTINGS.tokenRateLimit),
    SIGN_INS_PER_ADDRESS_HOUR: '0',
    WITHDRAWAL_ADDRESSES_PER_ADDRESS_HOUR: '0',
    CHAIN_ID: CHAIN_ID,
    CLIENT_IDS: 'waves.exchange,wx.network',
    CORS_ORIGINS: '',
    // The event-stream scenario holds 5,000 streams on one instance: above the default derived from the
    // 160 MiB heap (2,218), which is what the scenario measures the memory of.
    EVENT_STREAMS_PER_INSTANCE: String(SETTINGS.events.accounts * 2),
    // The load comes from this one machine: its connections are not capped per address (the streams
    // scenario alone holds 5,000).
    CONNECTIONS_PER_ADDRESS: '0',
    ...SECRETS,
    // Tracing off, whatever the shell says (the tracing scenario turns it on for a gateway of its own).
    ...TRACING_OFF,
  };
}

/**
 * Migrates (the build's own migrations), loads the build's demo catalogue and, when asked, the data set
 * (the build's data script, the same seed).
 */
export async function prepareDatabase(store, env, withData, build = THIS_BUILD) {
  const tag = build === THIS_BUILD ? store : `${store}, baseline ${build.label}`;
  log(`[${tag}] migrate, catalogue`);
  await runNode([build.cli, 'migrate'], { env, quiet: true, cwd: build.root });
  await runNode([build.cli, 'catalogue', 'load', path.join(build.root, 'server/demo/catalogue.yaml')], {
    env,
    quiet: true,
    cwd: build.root,
  });
  if (!withData) return null;
  log(`[${tag}] data set (${QUICK ? 'quick' : 'full'}) …`);
  const summary = JSON.parse(
    await runNode([build.data, env.DATABASE_URL, ...(QUICK ? ['--quick'] : []), '--seed', SETTINGS.seed], {
      env,
      cwd: build.root,
    }),
  );
  if (build === THIS_BUILD) results.datasets[store] = summary;
  else results.datasets[`${store}-baseline`] = summary;
  log(`[${tag}] data set ready in ${summary.seconds} s`);
  return summary;
}

/**
 * Starts the gateway of a build on a free port (the PORT env must be set before spawn); only this
 * checkout's gateway is profiled.
 */
export async function launchGateway(store, env, build = THIS_BUILD, nodeArgs = SERVER_NODE_ARGS) {
  const port = await freePort();
  const profileDir = options.profile && build === THIS_BUILD ? path.join(tmpRoot, `profile-${store}`) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const name = build === THIS_BUILD ? `gateway (${store})` : `baseline ${build.label} (${store})`;
  const service = await startService(name, [build.cli, 'serve'], {
    port,
    core: 0,
    cwd: build.root,
    env: { ...env, PORT: String(port) },
    nodeArgs: [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...nodeArgs],
  });
  running.add(service);
  service.profileDir = profileDir;
  const stop = service.stop;
  service.stop = async (...a) => {
    const lifetimePeak = peakRssMiB(service.pid);
    const code = await stop(...a);
    running.delete(service);
    results.servers.push({ name: service.name, lifetimePeakRssMiB: lifetimePeak, exitCode: code });
    if (profileDir) {
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const target = path.join(BENCH, 'results', `${stamp}-${options.profile}.cpuprofile`);
        renameSync(path.join(profileDir, file), target);
        const summary = summarizeProfile(target, 25, state.profileWindow);
        results.profiles[options.profile] = {
          file: path.relative(ROOT, target),
          window: state.profileWindow,
          ...summary,
        };
        log(
          `\nprofile of ${service.name} under ${options.profile}, measured rounds only (${path.relative(ROOT, target)}):\n${formatSummary(summary)}\n`,
        );
      } else log(`no profile was written by ${service.name}`);
    }
    return code;
  };
  return service;
}
export async function signIn(gateway, seed) {
  const signer = signerFromSeed(seed);
  const expiry = Math.floor(Date.now() / 1000) + 86_400;
  const body = new URLSearchParams({
    grant_type: 'password',
    scope: 'general',
    client_id: CLIENT_ID,
    username: signer.publicKey,
    password: await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry),
  });
  const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(json)}`);
  return json.access_token;
}

export async function capture(target, request, expectItems) {
  const response = await fetch(`${target.url}${request.path}`, { headers: request.headers ?? {} });
  const body = await response.json();
  if (response.status !== 200)
    throw new Error(`${request.path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  if (expectItems !== undefined && body.items?.length !== expectItems) {
    throw new Error(`${request.path}: ${body.items?.length} items, expected ${expectItems}`);
  }
  return body;
}

/** The claim names of a gateway's access token (whether it carries `sid`, the sign-in revocation checks). */
export function tokenClaims(service) {
  try {
    return Object.keys(JSON.parse(Buffer.from(service.token.split('.')[1], 'base64url').toString())).join(',');
  } catch {
    return '?';
  }
}

/** The bare Fastify server answering every item's path with the payload the gateway gave for it. */
export async function startBare(items) {
  const file = path.join(tmpRoot, `bare-${++state.loadCounter}.json`);
  writeFileSync(file, JSON.stringify(Object.fromEntries(items.map((i) => [i.path, i.payload]))));
  const port = await freePort();
  const bare = await startService('bare fastify', [path.join(BENCH, 'lib/bare.mjs'), file, String(port)], {
    port,
    core: 0,
  });
  running.add(bare);
  for (const item of items) {
    const check = await capture(bare, item);
    if (JSON.stringify(check) !== JSON.stringify(item.payload)) throw new Error(`bare server: ${item.path} differs`);
  }
  return bare;
}

/** Prism mocking the bundled spec (its examples). */
export async function startPrism() {
  log('[prism] starting the mock …');
  const port = await freePort();
  const prism = await startService(
    'prism mock',
    [PRISM_CLI, 'mock', BUNDLED_SPEC, '--host', '127.0.0.1', '--port', String(port), '-v', 'error'],
    { port, core: 0, timeoutMs: 120_000 },
  );
  running.add(prism);
  return prism;
}

export async function stopAll(services) {
  for (const service of services) {
    await service.stop();
    running.delete(service);
  }
}
