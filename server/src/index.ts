export { type AppOptions, buildApp } from './app.js';
export { type Config, loadConfig, testConfig } from './config.js';
export { loadDemoIfEmpty } from './operator/commands.js';
export { startServer } from './server.js';
export { openStore, type Store } from './store/store.js';
