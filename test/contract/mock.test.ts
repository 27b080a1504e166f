/**
 * Every contract scenario against the Prism mock of the spec. The mock validates each request against
 * the spec and answers with the spec's examples: a scenario passes when the status is the expected one
 * and the body is valid for it, which checks the scenarios, the examples and the spec together.
 */

import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { errorCatalogue, type OperationId, operationMeta } from '@gateway/generated';
import { describe, expect, inject, it } from 'vitest';
import { scenarios } from '../scenarios/index.js';
import { freePort, waitForPort } from '../src/prism.js';
import { problemsWith, send } from '../src/run.js';
import type { ScenarioContext } from '../src/scenario.js';
import { documentedResponses, resolveResponse, spec } from '../src/spec.js';

/** The mock accepts any well-formed bearer token and any well-formed password; it knows no real data. */
const mockPasswordGrant = async () => ({
  grant_type: 'password',
  scope: 'general',
  username: '4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121',
  password: '1893456000:2SdV1pLJrN49TkTVxqXmkJ7fbi5J1wGHiUQV2jVUhiQ9WK7yEA9nsWd5uJmceTJEjtF3koveZkaZ7qEf6ovSE8QW',
  client_id: 'waves.exchange',
});
const mockContext: ScenarioContext = {
  bearer: async () => 'Bearer eyJhbGciOiJFZERTQSJ9.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYifQ.c2ln',
  passwordGrant: mockPasswordGrant,
  signedOutPasswordGrant: mockPasswordGrant,
  freshRefreshToken: async () => 'rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw',
  movementId: async () => '0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f',
};

describe('contract scenarios against the mock', () => {
  const forMock = scenarios.filter((s) => s.only !== 'server');
  it.each(forMock.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const answer = await send(inject('mockUrl'), scenario, mockContext);
    expect(problemsWith(answer, scenario, 'mock')).toEqual([]);
  });
});

describe('the scenario table covers the spec', () => {
  const ids = Object.keys(operationMeta) as OperationId[];
  it.each(ids)('%s has a success and a failure scenario', (id) => {
    const own = scenarios.filter((s) => s.operationId === id);
    expect(own.some((s) => s.expect.status < 300)).toBe(true);
    expect(own.some((s) => s.expect.status >= 400)).toBe(true);
  });
  it('every protected operation has a 401 scenario', () => {
    const protectedIds = ids.filter((id) => operationMeta[id].security.length > 0);
    const missing = protectedIds.filter(
      (id) => !scenarios.some((s) => s.operationId === id && s.expect.status === 401),
    );
    expect(missing).toEqual([]);
  });
  it('every expected error code has the status the catalogue gives it', () => {
    const wrong = scenarios
      .filter((s) => s.expect.code !== undefined)
      .filter((s) => Object.values(errorCatalogue).find((e) => e.code === s.expect.code)?.status !== s.expect.status)
      .map((s) => s.name);
    expect(wrong).toEqual([]);
  });
  it('the spec has every operation of the interface, by method and path (more may be added, none lost)', () => {
    // The interface's 17 operations: a fixed external fact, unlike the spec's total, which grows.
    const INTERFACE = [
      'POST /v1/oauth2/token',
      'GET /v1/deposit/currencies',
      'GET /v1/deposit/currencies/{currency}',
      'GET /v1/deposit/currencies/{currency}/{platform}',
      'GET /v1/deposit/addresses/{currency}',
      'GET /v1/deposit/addresses/{currency}/{platform}',
      'GET /v1/withdraw/currencies',
      'GET /v1/withdraw/currencies/{currency}',
      'GET /v1/withdraw/currencies/{currency}/{platform}',
      'GET /v1/withdraw/addresses/{currency}/{address}',
      'GET /v1/withdraw/addresses/{currency}/{address}/{platform}',
      'GET /v1/movements',
      'GET /v1/movements/{id}',
      'GET /v1/platforms',
      'GET /v1/platforms/{id}',
      'GET /v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}',
      'GET /v1/apy/staking/{currency_id}',
    ];
    const inSpec = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => k !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(INTERFACE.filter((operation) => !inSpec.includes(operation))).toEqual([]);
    // Each operation of the spec has its generated metadata, and the other way round.
    expect(inSpec.sort()).toEqual(ids.map((id) => `${operationMeta[id].method} ${operationMeta[id].path}`).sort());
  });
});

describe('the mock for frontend developers', () => {
  const tokenRequest = (body: string, headers: Record<string, string> = {}) =>
    fetch(new URL('/v1/oauth2/token', inject('mockUrl')), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });

  it('answers a token request that lacks its fields with the generic error, not a specific one', async () => {
    const response = await tokenRequest('grant_type=password');
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].code).toBe(10200);
  });

  it('still gives the specific errors on request, by status and example name', async () => {
    const grant = new URLSearchParams(await mockContext.passwordGrant()).toString();
    const response = await tokenRequest(grant, { prefer: 'code=400, example=invalidSignature' });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].code).toBe(11307);
  });

  it("every 400 response's first example is the generic one (a missing or invalid parameter)", () => {
    const generic: (number | undefined)[] = [
      errorCatalogue.missing_parameter.code,
      errorCatalogue.invalid_parameter.code,
    ];
    const ids = Object.keys(operationMeta) as OperationId[];
    const firstCodes = ids.map((id) => {
      const response = resolveResponse(documentedResponses(id)['400']);
      const examples = Object.values(response?.content?.['application/json']?.examples ?? {});
      return [id, examples[0]?.value?.errors?.[0]?.code] as const;
    });
    expect(firstCodes.filter(([, code]) => !generic.includes(code))).toEqual([]);
  });

  it('answers a browser preflight for an authenticated call from another origin', async () => {
    const response = await fetch(new URL('/v1/movements', inject('mockUrl')), {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });
});

describe('npm run mock', () => {
  /** `npm run mock` on a free port: npm itself, its output so far, and a stop that leaves nothing running. */
  async function npmRunMock() {
    const port = await freePort();
    let output = '';
    // Its own process group (npm, its shell, the mock, Prism), stopped whole at the end.
    const npm = spawn('npm', ['run', 'mock'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, MOCK_PORT: String(port) },
      detached: true,
    });
    npm.stdout.on('data', (chunk) => {
      output += chunk;
    });
    npm.stderr.on('data', (chunk) => {
      output += chunk;
    });
    return {
      port,
      npm,
      output: () => output,
      kill: () => {
        try {
          if (npm.pid) process.kill(-npm.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      },
    };
  }

  it('says it listens once Prism answers (200 at once, no 502), and names only its own address', async () => {
    const mock = await npmRunMock();
    try {
      const deadline = Date.now() + 60_000;
      while (!mock.output().includes('mock of the gateway API on') && Date.now() < deadline) {
        if (mock.npm.exitCode !== null) throw new Error(`npm run mock exited:\n${mock.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const answer = await fetch(`http://127.0.0.1:${mock.port}/v1/platforms`, {
        headers: { authorization: await mockContext.bearer() },
      });
      expect(answer.status, mock.output()).toBe(200);
      // Prism's log (its routes) is passed on with the front's address, not Prism's internal port.
      const addresses = new Set(mock.output().match(/https?:\/\/[\w.:[\]-]+/g));
      expect([...addresses]).toEqual([`http://127.0.0.1:${mock.port}`]);
      expect(mock.output()).toContain(`GET        http://127.0.0.1:${mock.port}/v1/platforms`);
    } finally {
      mock.kill();
    }
  }, 90_000);

  it('stops Prism when npm is stopped (npm signals its shell, which does not pass the signal on)', async () => {
    const { port, npm, output, kill } = await npmRunMock();
    try {
      await waitForPort(port, npm, output, 60_000);
      npm.kill('SIGTERM');
      const deadline = Date.now() + 10_000;
      let listening = true;
      while (listening && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        listening = await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        });
      }
      expect(listening, `Prism still listens on ${port} after npm was stopped`).toBe(false);
    } finally {
      // Whatever the outcome, nothing of this test keeps running.
      kill();
    }
  }, 90_000);
});
