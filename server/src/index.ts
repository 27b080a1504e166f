export { type AppOptions, buildApp } from './app.js';
export { type Config, loadConfig, testConfig } from './config.js';
export { verifyLedgerSignature } from './crypto/curve25519.js';
export { loadDemoIfEmpty } from './operator/commands.js';
export { startServer } from './server.js';
export { movementDocument, tradeDocument } from './store/documents.js';
export { openStore, type Store, sqlitePath } from './store/store.js';
