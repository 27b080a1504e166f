#!/usr/bin/env node
/**
 * PostgreSQL reads against their floor (issue 38, item 4; bench/postgres-floor.md): the signed-in movements
 * page and a single movement, the gateway directly (named statements), through PgBouncer in transaction mode
 * (unnamed) and directly unnamed, beside a bare Fastify route running the gateway's own SQL, directly and
 * through PgBouncer; their rounds alternating, then each at half its floor's rate for p99.
 * The run itself is lib/postgres-floor-run.mjs.
 *
 *   npm run build && node bench/postgres-floor.mjs [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                                                  [--connections N] [--quick] [--wait-idle S] [--seed TEXT]
 *                                                  [--pool-size N]
 *
 * The gateway runs on the Node the project pins (the `node` devDependency): on another (the machine's
 * `node`), this script runs itself again on that one, so that every process of the run is on it.
 */
import { onPinnedNode } from './lib/pinned-node.mjs';

await onPinnedNode(import.meta.url, () => import('./lib/postgres-floor-run.mjs'));
