/**
 * The server's dependency rules (dependency-cruiser; run by `npm run lint:deps`, part of `npm run lint` and
 * so of CI). One direction: handlers -> domain -> store, with no circles. The HTTP shell (app, routes,
 * plugins, the server and the command line) sits above the handlers; lib/ and crypto/ are leaves.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const SHELL =
  '^src/(app|routes|bearer|error-handler|fastify-options|services|server|cli|index)[.]ts$|^src/(plugins|operator|cli)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, directly or through others, cannot be understood one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'store-is-the-bottom',
      severity: 'error',
      comment: 'The store knows rows and queries: it imports no rule, handler or HTTP concern.',
      from: { path: '^src/store/' },
      to: { path: [`^src/(domain|handlers)/`, SHELL] },
    },
    {
      name: 'domain-knows-no-http',
      severity: 'error',
      comment: 'The domain knows the rules, not how requests arrive: no handler, plugin, route or Fastify.',
      from: { path: '^src/domain/' },
      to: { path: ['^src/handlers/', SHELL, '^fastify', 'node_modules/fastify', 'node_modules/@fastify/'] },
    },
    {
      name: 'domain-below-the-context',
      severity: 'error',
      comment:
        "context.ts is the handlers' view of the app's services, and imports the domain: the domain declares what it needs itself.",
      from: { path: '^src/domain/' },
      to: { path: '^src/context[.]ts$' },
    },
    {
      name: 'plugins-below-the-shell',
      severity: 'error',
      comment: 'Plugins are installed by the app and used by the error handler: they import neither.',
      from: { path: '^src/plugins/' },
      to: { path: ['^src/(app|routes|error-handler|services|server|cli|index)[.]ts$', '^src/cli/'] },
    },
    {
      name: 'handlers-go-through-the-domain',
      severity: 'error',
      comment: 'Handlers translate HTTP and call the domain; queries are reached through it.',
      from: { path: '^src/handlers/' },
      to: { path: ['^src/store/', SHELL] },
    },
    {
      name: 'leaves-stay-leaves',
      severity: 'error',
      comment: 'lib/ and crypto/ are pure helpers any layer may use; they use none of the layers.',
      from: { path: '^src/(lib|crypto)/' },
      to: { path: ['^src/(store|domain|handlers)/', SHELL, '^src/(context|config|metrics|secrets)[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
    exclude: { path: '^(test|dist)/' },
  },
};
