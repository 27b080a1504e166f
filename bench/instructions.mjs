#!/usr/bin/env node
/**
 * Instructions per request, counted by valgrind's callgrind: a figure that does not move with the load of a
 * shared machine (the same build, inputs and warm-up give the same count within a few per cent, where CPU
 * time moves by ±30% between rounds). It counts the process's own instructions (user space, all its
 * threads), not the kernel's: two servers making the same system calls (one read and one write per request)
 * compare fairly; a system call's own cost does not show.
 *
 *   node bench/instructions.mjs [--only grant,cold,public,reads] [--requests 3000] [--warmup 10000]
 *                               [--paths /v1/platforms/ETH,/v1/deposit/currencies/USDT/ETH] [--baseline DIR]
 *                               [--functions N]
 *
 * public (not by default: its counts are not trusted yet, see bench/README.md): each path from the gateway
 *   and from the bare Fastify route serving the same answer (lib/bare.mjs), and from the bare route adding
 *   the headers every gateway answer carries (lib/bare.mjs --gateway-headers).
 * grant: a known account's password grant (its key cached), beside its cryptography alone: the server's
 *   `verifyLedgerSignature` and the signing of an access token of the server's size, in one process
 *   (lib/crypto-instructions.mjs), counted at two loop lengths so that the start-up cancels out.
 * cold: new accounts signing in (lib/sign-in-many.mjs, passwords of a fresh seed): a new key's conversion
 *   and subgroup check on top of the grant.
 * reads: the signed-in movements page (limit 100) and one movement, from the gateway and from the floor of
 *   bench/postgres-floor.mjs, both over canned documents instead of PostgreSQL (lib/canned-reads.mjs): the
 *   gateway's own work around the SQL, which is what it spends over the floor there; and the floor writing the
 *   headers every signed-in answer carries (request id, security headers, no-store): their share of it.
 * --baseline DIR: the same measurements of another checkout's build (its server/dist), beside this one's.
 * --functions N (reads): where the instructions go, by function (lib/callgrind-functions.mjs: the servers run
 *   with `--perf-basic-prof`, whose map names the JIT code callgrind knows by address): the N functions where
 *   the gateway, and the floor writing the gateway's headers, spend the most over the floor.
 *
 * Each server runs under `valgrind --tool=callgrind --instr-atstart=no`: the warm-up runs uninstrumented (the
 * JIT has compiled the hot code when counting starts), then `callgrind_control -i on`, the counted requests,
 * `-i off`, and the dump. Slow (each server about a minute). Needs valgrind (Debian: `apt-get install
 * valgrind`). Started on another Node than the pinned one (node_modules/.bin/node: the build and the SQLite
 * driver need it), the script runs itself again there (lib/pinned-node.mjs).
 */
import { onPinnedNode } from './lib/pinned-node.mjs';

await onPinnedNode(import.meta.url, () => import('./lib/instructions-run.mjs'));
