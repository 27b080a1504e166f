#!/usr/bin/env node
/**
 * The soak: a simulated month of the 50,000-user day of issue 37 (two sign-ins a day per user, a refresh
 * every 5 minutes for 8 hours, 200,000 movements a day), compressed, on SQLite and PostgreSQL, with the
 * housekeeping every 10 simulated minutes as `serve` runs it; then a refresh with 500,000 sign-ins stored beside one with
 * 3,000, rounds alternating. Table rows and bytes per day, statement times, bytes per operation and the
 * extrapolation to the full scale (lib/soak-run.mjs; bench/soak.md).
 *
 *   npm run build && node bench/soak.mjs                 # 34 days at 1/1,000 of the users, both stores (≈ 5 min)
 *   node bench/soak.mjs --days 40 --scale 0.01           # 1/100 of the users (slower)
 *   node bench/soak.mjs --quick                          # 5 days, 1/1000, 2-day refresh tokens (≈ 1 min)
 *   node bench/soak.mjs --only refresh --stores sqlite   # the refresh row alone
 *
 * Runs on the Node pinned in the workspace (node_modules/.bin/node: better-sqlite3's binary needs it).
 */
import { onPinnedNode } from './lib/pinned-node.mjs';

await onPinnedNode(import.meta.url, () => import('./lib/soak-run.mjs'));
