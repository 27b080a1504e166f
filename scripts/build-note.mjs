#!/usr/bin/env node
// Said by `npm start` before its build (turbo, which prints nothing but errors there): what it is doing and
// roughly how long it takes, so that a fresh clone's first start, about a minute of silence otherwise, reads
// as work under way.
import { existsSync } from 'node:fs';

const built = existsSync(new URL('../server/dist/cli.js', import.meta.url));
console.error(
  built
    ? 'npm start: building what changed since the last build (seconds; nothing when nothing changed)...'
    : 'npm start: first build of the server and the packages it uses (about a minute on 2 cores; later starts take seconds)...',
);
