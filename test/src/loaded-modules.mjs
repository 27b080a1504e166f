/**
 * Preloaded into a gateway (`NODE_OPTIONS=--import …/loaded-modules.mjs`, LOADED_MODULES_FILE set): writes
 * every module the process loaded into that file, one a line: each ESM import as it is resolved (a hook,
 * loaded-modules-hooks.mjs) and, at exit, every CommonJS module in require's cache (which also holds the
 * CommonJS packages that ES modules imported).
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (!file) throw new Error('loaded-modules.mjs: set LOADED_MODULES_FILE');
register(new URL('./loaded-modules-hooks.mjs', import.meta.url), { data: { file } });
process.on('exit', () => appendFileSync(file, `${Object.keys(Module._cache).join('\n')}\n`));
