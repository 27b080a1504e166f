/**
 * The server's secrets: the access-token signing key, the withdrawal proxy seed and the cursor secret.
 * They come from configuration. In embedded mode, a missing one is generated once and kept in
 * `<dataDir>/secrets.json` (mode 0600), with a warning: fine for one machine, not for production.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError, requireSharedSecrets } from './config.js';

export interface Secrets {
  signingKey: KeyObject;
  /** The key id (`kid`) of the signing key. */
  keyId: string;
  /** Keys that verify access tokens, by key id: the signing key's, and the next or previous one in a rotation. */
  verifyingKeys: ReadonlyMap<string, KeyObject>;
  proxySeed: string;
  cursorSecret: Uint8Array;
}

interface StoredSecrets {
  tokenSigningKey?: string;
  proxySeed?: string;
  cursorSecret?: string;
}

const generators: Required<{ [K in keyof StoredSecrets]: () => string }> = {
  tokenSigningKey: () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  proxySeed: () => randomBytes(32).toString('hex'),
  cursorSecret: () => randomBytes(32).toString('hex'),
};

/** A key's id: the first 16 characters of the base64url SHA-256 of its public key (SPKI). */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url')
    .slice(0, 16);
}

/**
 * Resolves the secrets; `say` is told which ones were generated into the data folder (`generated`: a warning,
 * once per data folder) or read from it (at each later start).
 */
export function loadSecrets(config: Config, say: (message: string, generated: boolean) => void): Secrets {
  requireSharedSecrets(config);
  const configured: StoredSecrets = {
    tokenSigningKey: config.tokenSigningKey || undefined,
    proxySeed: config.proxySeed || undefined,
    cursorSecret: config.cursorSecret || undefined,
  };
  const missing = (Object.keys(generators) as (keyof StoredSecrets)[]).filter((key) => !configured[key]);
  let resolved = configured;
  if (missing.length > 0) {
    const file = path.resolve(config.dataDir, 'secrets.json');
    const stored: StoredSecrets = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
    const generated = missing.filter((key) => !stored[key]);
    for (const key of generated) stored[key] = generators[key]();
    if (generated.length > 0) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    if (generated.length > 0) {
      say(
        `embedded mode: ${generated.join(', ')} generated into ${file}; ` +
          'set TOKEN_SIGNING_KEY, PROXY_SEED and CURSOR_SECRET in production and keep a backup of them',
        true,
      );
    } else say(`embedded mode: ${missing.join(', ')} read from ${file} (generated there at its first start)`, false);
    resolved = { ...stored, ...Object.fromEntries(Object.entries(configured).filter(([, v]) => v)) };
  }
  const signingKey = createPrivateKey(String(resolved.tokenSigningKey).replaceAll('\\n', '\n'));
  if (signingKey.asymmetricKeyType !== 'ed25519')
    throw new Error('TOKEN_SIGNING_KEY must be an Ed25519 private key (PKCS#8 PEM)');
  const verifyingKey = createPublicKey(signingKey);
  const accepted = [
    ...config.tokenAcceptedPublicKeys.map((pem) => ['TOKEN_ACCEPTED_PUBLIC_KEYS', pem] as const),
    ...config.tokenPreviousPublicKeys.map((pem) => ['TOKEN_PREVIOUS_PUBLIC_KEYS', pem] as const),
  ].map(([name, pem]) => {
    let key: KeyObject;
    try {
      key = createPublicKey(pem.trim().replaceAll('\\n', '\n'));
    } catch {
      throw new ConfigError(`invalid configuration: ${name} holds something that is not a public key (PEM)`);
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw new ConfigError(`invalid configuration: ${name} must hold Ed25519 public keys`);
    }
    return key;
  });
  const keyId = keyIdOf(verifyingKey);
  return {
    signingKey,
    keyId,
    verifyingKeys: new Map([verifyingKey, ...accepted].map((key) => [keyIdOf(key), key])),
    proxySeed: String(resolved.proxySeed),
    cursorSecret: Buffer.from(String(resolved.cursorSecret), 'hex'),
  };
}
