#!/usr/bin/env node
/**
 * `gateway`, the bin of this package (`npx gateway` in the checkout): it runs the built command line,
 * dist/cli.js. It is a file of the repository, not of the build, because npm links a bin at install only
 * when its file is there, and dist/ is built after the install; it also says what to do before a build.
 */
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  console.error('gateway: the server is not built yet: run `npm run build` (or `npm start`) first');
  process.exit(2);
}
