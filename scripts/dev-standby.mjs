// A server process `npm run dev` starts ahead of need (scripts/dev-server.mjs): it loads the server's installed
// dependencies, which is about 40% of a server's start, and waits; told to serve, it runs the server's command
// line, which then loads only the server's own modules (server/dist), built after this process started.
//
//   node scripts/dev-standby.mjs server/dist/cli.js serve --demo
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [cli, ...args] = process.argv.slice(2);
// The loop's word to serve comes on file descriptor 3 (a pipe: a word written before this process reads it
// waits there); its end without a word (the loop is gone) ends this process.
const control = createReadStream('', { fd: 3 });
let serving = false;
const told = new Promise((resolve) => {
  control.once('data', () => {
    serving = true;
    resolve();
  });
  control.once('end', () => serving || process.exit(0));
});

// Tracing instruments the database drivers as they are loaded: with OTEL_* set, nothing is loaded ahead.
if (!Object.keys(process.env).some((key) => key.startsWith('OTEL_'))) {
  const server = path.resolve(path.dirname(cli), '..');
  const { dependencies } = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8'));
  for (const name of Object.keys(dependencies)) {
    // The workspace's own packages are built while this waits; a package installed for the server alone
    // (server/node_modules) is not the one found from here.
    if (name.startsWith('@gateway/') || existsSync(path.join(server, 'node_modules', name))) continue;
    // A package without a root module (@noble/*) is loaded by its parts, when the server asks for them.
    await import(name).catch(() => {});
  }
}
await told;
control.destroy();
process.argv = [process.argv[0], path.resolve(cli), ...args];
await import(pathToFileURL(path.resolve(cli)).href);
