/**
 * The breaking-change guard (scripts/spec-compat.mjs, `npm run spec:compat`) on fixtures: copies of the bundled
 * document with one edit each, compared with the document itself as the released one. Breaking edits fail,
 * naming the change; non-breaking edits pass and are listed; a breaking edit passes when the major version is
 * raised. The command itself is run on the repository (it passes) and on a spec whose response field is renamed
 * in the YAML and regenerated (it fails, naming the field).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCompatibility, report } from '../../scripts/spec-compat.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gateway-spec-compat-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: fixtures edit an arbitrary JSON document
type Doc = any;
const bundled: Doc = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
const TRADES = '/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}';

function edited(edit: (d: Doc) => void): Doc {
  const d = structuredClone(bundled);
  edit(d);
  return d;
}

const breaking: [string, (d: Doc) => void, RegExp][] = [
  [
    'a renamed response field',
    (d) => {
      const p = d.components.schemas.Platform;
      p.properties.title = p.properties.name;
      delete p.properties.name;
      p.required = p.required.map((r: string) => (r === 'name' ? 'title' : r));
    },
    /GET \/v1\/platforms\/\{id\}: response 200 \(application\/json\) field `name` removed/,
  ],
  [
    'a removed operation',
    (d) => delete d.paths['/v1/platforms/{id}'],
    /GET \/v1\/platforms\/\{id\}: operation removed/,
  ],
  [
    'a renamed path',
    (d) => {
      d.paths['/v1/platform/{id}'] = d.paths['/v1/platforms/{id}'];
      delete d.paths['/v1/platforms/{id}'];
    },
    /GET \/v1\/platforms\/\{id\}: operation removed/,
  ],
  [
    'a renamed operationId',
    (d) => {
      d.paths['/v1/platforms/{id}'].get.operationId = 'fetchPlatform';
    },
    /GET \/v1\/platforms\/\{id\}: operationId "getPlatform" -> "fetchPlatform"/,
  ],
  [
    'a renamed parameter',
    (d) => {
      d.components.parameters.CursorListLimit.name = 'size';
    },
    /GET \/v1\/platforms: parameter `limit` \(query\) removed/,
  ],
  [
    'a removed enum value',
    (d) => {
      d.components.schemas.MovementStatus.enum = d.components.schemas.MovementStatus.enum.filter(
        (v: string) => v !== 'rejected',
      );
    },
    /GET \/v1\/movements\/\{id\}: response 200 \(application\/json\) field `status` enum value\(s\) "rejected" removed/,
  ],
  [
    'a request parameter made required',
    (d) => {
      d.components.parameters.CursorListLimit.required = true;
    },
    /GET \/v1\/movements: parameter `limit` \(query\) made required/,
  ],
  [
    'a request body field made required',
    (d) => {
      d.components.schemas.RevocationRequest.required.push('token_type_hint');
    },
    /POST \/v1\/oauth2\/revoke: request body \(application\/x-www-form-urlencoded\) field `token_type_hint` made required/,
  ],
  [
    'a narrowed input bound',
    (d) => {
      d.components.parameters.CursorListLimit.schema.maximum = 50;
    },
    /GET \/v1\/platforms: parameter `limit` \(query\) maximum 100 -> 50 \(narrowed input\)/,
  ],
  [
    'a narrowed input pattern',
    (d) => {
      const p = d.paths[TRADES].get.parameters.find((x: Doc) => x.name === 'ledger_address');
      p.schema = { type: 'string', pattern: '^3P[1-9A-HJ-NP-Za-km-z]{33}$' };
    },
    /parameter `ledger_address` \(path\) pattern .* -> "\^3P/,
  ],
  [
    'a narrowed input type',
    (d) => {
      d.components.parameters.CurrencyListOffset.schema.type = 'string';
    },
    /GET \/v1\/deposit\/currencies: parameter `offset` \(query\) type "integer" -> "string" \(changed\)/,
  ],
  [
    'a widened output type',
    (d) => {
      d.components.schemas.PlatformName.type = ['string', 'null'];
    },
    /GET \/v1\/platforms\/\{id\}: response 200 \(application\/json\) field `name` type "string" -> \["string","null"\] \(widened output\)/,
  ],
  [
    'a widened output bound',
    (d) => {
      delete d.components.schemas.ErrorBody.properties.errors.minItems;
    },
    /GET \/v1\/platforms\/\{id\}: response 404 \(application\/json\) field `errors` minItems 1 -> none \(widened output\)/,
  ],
  [
    'a widened output pattern',
    (d) => {
      delete d.components.schemas.PlatformId.pattern;
    },
    /GET \/v1\/platforms\/\{id\}: response 200 \(application\/json\) field `id` pattern .* -> none \(widened output\)/,
  ],
  [
    'a widened output enum',
    (d) => {
      d.components.schemas.MovementStatus.enum.push('cancelled');
    },
    /GET \/v1\/movements: response 200 \(application\/json\) field `items\[\]\.status` enum value\(s\) "cancelled" added \(widened output\)/,
  ],
  [
    'a changed status code',
    (d) => {
      const r = d.paths['/v1/platforms/{id}'].get.responses;
      r['410'] = r['404'];
      delete r['404'];
    },
    /GET \/v1\/platforms\/\{id\}: response status 404 removed/,
  ],
  [
    'a changed error code',
    (d) => {
      const schema = d.components.schemas.ErrorCode;
      schema['x-codes'].find((e: Doc) => e.code === 10402).code = 10499;
      schema.enum = schema.enum.map((code: number) => (code === 10402 ? 10499 : code));
      d.components.responses.PlatformNotFound.content[
        'application/json'
      ].examples.platformNotFound.value.errors[0].code = 10499;
    },
    /error code 10402 \(platform_not_found\) removed from the catalogue/,
  ],
  [
    "a changed error code's status",
    (d) => {
      d.components.schemas.ErrorCode['x-codes'].find((e: Doc) => e.code === 10402).status = 400;
    },
    /error code 10402 \(platform_not_found\) status 404 -> 400/,
  ],
  [
    'an error code an operation no longer gives',
    (d) => {
      d.components.responses.PlatformNotFound.content[
        'application/json'
      ].examples.platformNotFound.value.errors[0].code = 10401;
    },
    /GET \/v1\/platforms\/\{id\}: response 404 no longer gives error code 10402/,
  ],
  [
    'a shared bound raised on output (a list of currencies of 1,000)',
    (d) => {
      d.components.schemas.ExchangeCurrencies.maxItems = 1000;
    },
    /GET \/v1\/platforms: response 200 \(application\/json\) field `items\[\]\.currencies` maxItems 500 -> 1000 \(widened output\)/,
  ],
  [
    'a shared bound added on input',
    (d) => {
      d.components.schemas.ShortText = { maxLength: 100 };
      d.components.schemas.Cursor.allOf = [{ $ref: '#/components/schemas/ShortText' }];
    },
    /GET \/v1\/platforms: parameter `after` \(query\) maxLength none -> 100 \(narrowed input\)/,
  ],
];

const nonBreaking: [string, (d: Doc) => void, RegExp][] = [
  [
    'a shared bound lowered on output',
    (d) => {
      d.components.schemas.ExchangeCurrencies.maxItems = 100;
    },
    /GET \/v1\/platforms: response 200 \(application\/json\) field `items\[\]\.currencies` maxItems 500 -> 100 \(narrowed output\)/,
  ],
  [
    'a new optional parameter',
    (d) => {
      d.paths['/v1/platforms'].get.parameters.push({
        name: 'currency',
        in: 'query',
        required: false,
        schema: { type: 'string' },
      });
    },
    /GET \/v1\/platforms: optional parameter `currency` \(query\) added/,
  ],
  [
    'a new operation',
    (d) => {
      d.paths['/v1/status'] = {
        get: {
          operationId: 'getStatus',
          responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      };
    },
    /GET \/v1\/status: operation added/,
  ],
  [
    'a new response field',
    (d) => {
      d.components.schemas.Platform.properties.description = { type: 'string' };
    },
    /GET \/v1\/platforms: response 200 \(application\/json\) field `items\[\]\.description` added/,
  ],
  [
    'a widened input bound',
    (d) => {
      d.components.parameters.CursorListLimit.schema.maximum = 200;
    },
    /GET \/v1\/platforms: parameter `limit` \(query\) maximum 100 -> 200 \(widened input\)/,
  ],
  [
    'a parameter deprecated',
    (d) => {
      d.components.parameters.CursorListLimit.deprecated = true;
    },
    /GET \/v1\/platforms: parameter `limit` \(query\) deprecated/,
  ],
  [
    'a new error code',
    (d) => {
      d.components.schemas.ErrorCode.enum.push(10499);
      d.components.schemas.ErrorCode['x-codes'].push({ code: 10499, name: 'example_code', status: 400 });
    },
    /error code 10499 \(example_code\) added to the catalogue/,
  ],
];

describe('spec:compat on fixtures of the bundled document', () => {
  it('finds no change between the document and itself', () => {
    const r = checkCompatibility(bundled, structuredClone(bundled));
    expect(r.ok).toBe(true);
    expect([...r.breaking, ...r.nonBreaking, ...r.other]).toEqual([]);
  });

  it('reads additionalProperties: false on a request object of maxProperties 0 as the same objects, elsewhere as narrowed', () => {
    const before = edited((d) => {
      delete d.components.schemas.NoParameters.additionalProperties;
    });
    expect(bundled.components.schemas.NoParameters).toMatchObject({ maxProperties: 0, additionalProperties: false });
    const same = checkCompatibility(before, bundled);
    expect(same.breaking).toEqual([]);
    expect(same.nonBreaking.map((c) => c.message)).toContain(
      'POST /v1/oauth2/token: request body (application/json) additionalProperties none -> false (the same objects: maxProperties is 0)',
    );
    const narrowed = checkCompatibility(
      before,
      edited((d) => {
        delete d.components.schemas.NoParameters.additionalProperties;
        d.components.schemas.PasswordGrantRequest.additionalProperties = false;
      }),
    );
    expect(narrowed.breaking.map((c) => c.message)).toContain(
      'POST /v1/oauth2/token: request body (application/json) additionalProperties none -> false (narrowed input)',
    );
  });

  it('reads a catalogue released as a oneOf of const codes as the same catalogue as its x-codes', () => {
    const released = edited((d) => {
      const { enum: _codes, 'x-codes': entries, ...rest } = d.components.schemas.ErrorCode;
      d.components.schemas.ErrorCode = {
        ...rest,
        oneOf: entries.map((e: Doc) => ({ const: e.code, title: e.name, 'x-status': e.status })),
      };
    });
    const r = checkCompatibility(released, bundled);
    expect([...r.breaking, ...r.nonBreaking].filter((c) => /error code/.test(c.message))).toEqual([]);
    const changed = edited((d) => {
      d.components.schemas.ErrorCode['x-codes'].find((e: Doc) => e.code === 10402).status = 400;
    });
    expect(checkCompatibility(released, changed).breaking.map((c) => c.message)).toContain(
      'error code 10402 (platform_not_found) status 404 -> 400',
    );
  });

  it.each(breaking)('fails on %s, naming it', (_name, edit, expected) => {
    const r = checkCompatibility(bundled, edited(edit));
    expect(r.ok).toBe(false);
    const messages = r.breaking.map((c) => c.message);
    expect(
      messages.some((m) => expected.test(m)),
      messages.join('\n'),
    ).toBe(true);
    expect(report(r)).toMatch(/^FAIL: \d+ breaking change/m);
  });

  it.each(nonBreaking)('passes on %s, listing it', (_name, edit, expected) => {
    const r = checkCompatibility(bundled, edited(edit));
    expect(r.breaking.map((c) => c.message)).toEqual([]);
    expect(r.ok).toBe(true);
    const messages = r.nonBreaking.map((c) => c.message);
    expect(
      messages.some((m) => expected.test(m)),
      messages.join('\n'),
    ).toBe(true);
    expect(report(r)).toContain('Non-breaking changes');
  });

  it.each(breaking)('passes on %s when the major version is raised', (_name, edit) => {
    const head = edited(edit);
    head.info.version = `${Number(bundled.info.version.split('.')[0]) + 1}.0.0`;
    const r = checkCompatibility(bundled, head);
    expect(r.breaking.length).toBeGreaterThan(0);
    expect(r.allowedByMajor).toBe(true);
    expect(r.ok).toBe(true);
  });

  it('reads a component that no operation used, removed, as non-breaking, saying why', () => {
    const before = edited((d) => {
      d.components.schemas.FeedRecord = {
        type: 'object',
        properties: { amount: { $ref: '#/components/schemas/Unit' } },
      };
      d.components.schemas.Unit = { type: 'string' };
    });
    const r = checkCompatibility(before, bundled);
    expect(r.breaking).toEqual([]);
    expect(r.nonBreaking.map((c) => c.message)).toEqual([
      'component schemas/FeedRecord removed: no operation used it, so no request or response changes (a generated client loses only its named type FeedRecord)',
      'component schemas/Unit removed: no operation used it, so no request or response changes (a generated client loses only its named type Unit)',
    ]);
  });

  it("follows a component used only in a response's contentSchema: written inline instead, it is no change", () => {
    const frame = bundled.components.schemas.EventStreamFrame;
    const movement = frame.oneOf.find((branch: Doc) => branch.properties.event?.const === 'movement');
    expect(movement.properties.data.contentSchema).toEqual({ $ref: '#/components/schemas/MovementEvent' });
    const inline = edited((d) => {
      const branch = d.components.schemas.EventStreamFrame.oneOf.find(
        (b: Doc) => b.properties.event?.const === 'movement',
      );
      branch.properties.data.contentSchema = d.components.schemas.MovementEvent;
      delete d.components.schemas.MovementEvent;
    });
    const r = checkCompatibility(bundled, inline);
    expect([...r.breaking, ...r.nonBreaking, ...r.other]).toEqual([]);
  });

  it("reads a response's content annotations added (contentMediaType, contentSchema) as non-breaking, and a field removed within them as breaking", () => {
    const before = edited((d) => {
      const schema = d.paths['/v1/events'].get.responses['200'].content['text/event-stream'].schema;
      delete schema.contentMediaType;
      delete schema.contentSchema;
    });
    const added = checkCompatibility(before, bundled);
    expect(added.breaking).toEqual([]);
    expect(added.nonBreaking.map((c) => c.message)).toContain(
      'GET /v1/events: response 200 (text/event-stream) contentSchema (text/event-stream) added (an annotation describing what the text already held; JSON Schema checks none of it)',
    );
    const removed = checkCompatibility(
      bundled,
      edited((d) => {
        delete d.components.schemas.ResetEvent.properties.reason;
        d.components.schemas.ResetEvent.required = ['type'];
      }),
    );
    expect(removed.breaking.map((c) => c.message)).toContain(
      'GET /v1/events: response 200 (text/event-stream) field `(content: text/event-stream)[].data.(content: application/json).reason` removed',
    );
  });

  it('refuses a version below the released one', () => {
    const head = edited((d) => {
      d.info.version = '0.9.0';
    });
    const r = checkCompatibility(bundled, head);
    expect(r.ok).toBe(false);
    expect(r.versionError).toMatch(/lower than the released/);
  });
});

describe('npm run spec:compat (the command)', () => {
  it('passes on the repository: the bundled document against the last release', () => {
    const out = execFileSync(process.execPath, [path.join(root, 'scripts/spec-compat.mjs')], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out).toMatch(/^OK: /m);
  });

  it('passes from 1.0.0 to now, listing the revocation operation', () => {
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'scripts/spec-compat.mjs'), '--base', path.join(root, 'spec/released/1.0.0.json')],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('POST /v1/oauth2/revoke: operation added');
  });

  it('fails on a response field renamed in the YAML and regenerated, naming the field', () => {
    const spec = path.join(work, 'spec');
    cpSync(path.join(root, 'spec'), spec, { recursive: true });
    const file = path.join(spec, 'components/schemas/platform.yaml');
    const yaml = readFileSync(file, 'utf8');
    const renamed = yaml.replace('    - name\n', '    - display_name\n').replace('    name:\n', '    display_name:\n');
    expect(renamed).not.toBe(yaml);
    writeFileSync(file, renamed.replaceAll('name: Ethereum', 'display_name: Ethereum'));
    const out = path.join(work, 'generated');
    execFileSync(
      process.execPath,
      [path.join(root, 'scripts/generate.mjs'), '--spec', path.join(spec, 'openapi.yaml'), '--out', out],
      {
        stdio: 'pipe',
      },
    );
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'scripts/spec-compat.mjs'), '--head', path.join(out, 'openapi.json')],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('GET /v1/platforms/{id}: response 200 (application/json) field `name` removed');
    expect(run.stdout).toContain('GET /v1/platforms: response 200 (application/json) field `items[].name` removed');
    expect(run.stdout).toMatch(/^FAIL: \d+ breaking change\(s\) against the released /m);
  }, 60_000);
});
