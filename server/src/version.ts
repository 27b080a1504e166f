/** This release's version: the server package's (one version for the spec and every package). */
import { createRequire } from 'node:module';

export const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
