#!/usr/bin/env node
/**
 * `gateway`: the operator's command line (the commands are in cli/main.ts). It first checks the Node line,
 * before anything loads the SQLite driver: better-sqlite3 13 needs Node 22 or later, and on Node 20 it
 * crashes the process (a segmentation fault, nothing said). The supported lines are in the README.
 */
import module from 'node:module';

const OLDEST_NODE_MAJOR = 22;

const major = Number(process.versions.node.split('.')[0]);
if (major < OLDEST_NODE_MAJOR) {
  console.error(
    `gateway needs Node.js ${OLDEST_NODE_MAJOR} or later (the LTS lines 22, 24 and 26) and this is Node.js ${process.versions.node}; ` +
      'run it through npm (npm start, npm run gateway --), which uses the Node the project pins, or install a current LTS',
  );
  process.exit(2);
} else {
  // Node keeps the compiled code of the modules loaded from here on (in NODE_COMPILE_CACHE, else the system's
  // temporary folder), so every later start of a command compiles none of them again: about 20% of a start.
  // Where the folder cannot be written, Node says nothing and compiles as before.
  module.enableCompileCache?.();
  await import('./cli/main.js');
}
