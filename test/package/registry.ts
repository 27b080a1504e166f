/**
 * Whether the npm registry answers, asked the way the install asks it (npm itself, with the user's registry,
 * proxy and certificates), in a few seconds at most: without it the client package test would wait out its
 * install's hook and fail. Not a test file: the client package test imports it.
 */
import { execFile } from 'node:child_process';

/** How long the probe may take, in all (npm's own fetch gives up after PROBE_FETCH_MS, without retrying). */
const PROBE_MS = 20_000;
const PROBE_FETCH_MS = 5_000;

/** Why the registry cannot be reached (npm's last error line), or null when `npm ping` answers. */
export function registryProblem(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['ping', `--fetch-timeout=${PROBE_FETCH_MS}`, '--fetch-retries=0', '--no-update-notifier'],
      { env, timeout: PROBE_MS, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (!error) return resolve(null);
        const errors = stderr
          .split('\n')
          .filter((line) => line.startsWith('npm error '))
          .map((line) => line.slice('npm error '.length).replace(/^\w*Error: /, ''));
        // npm's sentence on the failed request, else its error code.
        const reason =
          errors.find((line) => /^request to .* failed/.test(line)) ?? errors.find((l) => /^code /.test(l));
        resolve(reason ?? (error.killed ? `no answer within ${PROBE_MS / 1000} s` : error.message));
      },
    );
  });
}

/**
 * npm's settings that say where the user's own configuration lives: kept when the rest of `npm test`'s
 * npm_* variables are dropped, because the npm run under the project's pinned Node would otherwise look for
 * its global npmrc under that Node's folder (node_modules/node) and miss the machine's (its registry,
 * proxy and certificates: a registry behind a TLS proxy then fails with "self-signed certificate").
 */
const USER_NPM_SETTINGS = new Set(['npm_config_globalconfig', 'npm_config_userconfig']);

/** The environment without what `npm test` sets for its own workspace (npm_config_*, npm_package_*, …). */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => (!/^npm_/i.test(key) || USER_NPM_SETTINGS.has(key.toLowerCase())) && key !== 'INIT_CWD',
    ),
  ),
  ...extra,
});

/** Whether CI is set (CI=true, as .ci/run sets it): a missing service then fails the run instead of skipping. */
export const CI = !['', '0', 'false'].includes(process.env.CI ?? '');
