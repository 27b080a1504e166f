/** An app with the demo exchange and tokens of two demo-seed accounts, for the signed-in operations. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { signIn, type TestApp, testApp } from './app.js';
import type { DatabaseKind } from './databases.js';
import { me, someoneElse } from './signers.js';

export function signedInAccounts(kind: DatabaseKind) {
  const fixture = {
    t: undefined as unknown as TestApp,
    /** `Bearer …` of the demo account, and of another account of the same seed. */
    mine: '',
    theirs: '',
    get: (url: string, authorization: string, app?: FastifyInstance) =>
      (app ?? fixture.t.app).inject({ url, headers: { authorization } }),
  };
  beforeAll(async () => {
    fixture.t = await testApp(kind, { demo: true });
    fixture.mine = `Bearer ${(await signIn(fixture.t.app, me)).access_token}`;
    fixture.theirs = `Bearer ${(await signIn(fixture.t.app, someoneElse)).access_token}`;
  });
  afterAll(() => fixture.t.close());
  return fixture;
}
