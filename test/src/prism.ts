/**
 * Starts and stops Prism (the mock, or the validating proxy in front of a real server) for tests and
 * scripts. Prism runs as a child process of this Node, on a free loopback port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const PRISM_CLI = path.join(path.dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');
export const BUNDLED_SPEC = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));

export interface RunningPrism {
  readonly url: string;
  stop(): Promise<void>;
}

export type PrismMode =
  | { kind: 'mock'; dynamic?: boolean }
  /** `prism proxy --errors`: a response that breaks the spec becomes a 500 listing the violations. */
  | { kind: 'proxy'; upstream: string };

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function waitForPort(
  port: number,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`prism did not listen on ${port} within ${timeoutMs} ms:\n${output()}`);
}

/** A child process serving on a port: its output so far, and its end. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  output(): string;
}

/**
 * Spawns `node args…` with `env`, keeps the tail of its output, and resolves once `port` accepts
 * connections (or rejects with that output, having killed it).
 */
export async function spawnService(
  args: string[],
  port: number,
  options: { env?: NodeJS.ProcessEnv; keep?: number } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const collect = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-(options.keep ?? 8000));
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  try {
    await waitForPort(port, child, () => log, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { child, output: () => log };
}

/** `node` without the `deprecated` flag of any parameter it holds (an object with `in` and `name`). */
function withoutDeprecatedParameters(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDeprecatedParameters);
  if (typeof node !== 'object' || node === null) return node;
  const isParameter = 'in' in node && 'name' in node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !(isParameter && key === 'deprecated'))
      .map(([key, value]) => [key, withoutDeprecatedParameters(value)]),
  );
}

/**
 * The document the validating proxy checks against, in a folder of its own: `spec` without its parameters'
 * `deprecated` flags. Under `--errors`, Prism 5 answers 422 to a request that carries a deprecated parameter
 * (it counts its "deprecated" warning as a violation), so the deployed clients' token request in the query
 * string, still accepted, would never reach the server; every other check of request and answer stays.
 */
function proxyDocument(spec: string): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-prism-proxy-'));
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(withoutDeprecatedParameters(JSON.parse(readFileSync(spec, 'utf8')))));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts Prism on `port` (a free one when omitted) and resolves once it accepts connections. */
export async function startPrism(
  mode: PrismMode,
  options: { port?: number; spec?: string } = {},
): Promise<RunningPrism> {
  const port = options.port ?? (await freePort());
  const spec = options.spec ?? BUNDLED_SPEC;
  const proxied = mode.kind === 'proxy' ? proxyDocument(spec) : null;
  const args =
    mode.kind === 'mock'
      ? ['mock', spec, ...(mode.dynamic ? ['--dynamic'] : [])]
      : ['proxy', proxied?.file ?? spec, mode.upstream, '--errors'];
  let child: ChildProcess;
  try {
    ({ child } = await spawnService(
      [PRISM_CLI, ...args, '--host', '127.0.0.1', '--port', String(port), '-v', 'error'],
      port,
    ));
  } catch (error) {
    proxied?.remove();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        const stopped = () => {
          proxied?.remove();
          resolve();
        };
        if (child.exitCode !== null) return stopped();
        child.once('exit', stopped);
        child.kill('SIGTERM');
      }),
  };
}
