/**
 * Secrets at rest: AES-256-GCM (node:crypto) with a 32-byte key from SECRETS_KEY. A sealed value is
 * `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts); the key id (first 8 bytes of SHA-256 of the key,
 * hex) says which key opens it, so old keys (SECRETS_KEY_PREVIOUS) keep working during a rotation.
 * `aad` binds a ciphertext to its owner (e.g. the org id): moved to another org it no longer opens.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface TSecretKey {
  id: string;
  key: Buffer;
}

/** The current key (seals) and older ones (open only). */
export interface TSecretKeys {
  current: TSecretKey;
  previous: TSecretKey[];
}

export class SecretError extends Error {}

const PREFIX = 'v1';
const b64u = (b: Buffer) => b.toString('base64url');

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Parses one base64 (or base64url) key of exactly 32 bytes. */
export function parseSecretKey(text: string, name = 'SECRETS_KEY'): TSecretKey {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) throw new SecretError(`${name} must be base64 (32 bytes)`);
  const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32)
    throw new SecretError(`${name} must be 32 bytes, base64-encoded (got ${key.length} bytes)`);
  return { id: keyIdOf(key), key };
}

/** SECRETS_KEY and the comma-separated SECRETS_KEY_PREVIOUS. */
export function loadSecretKeys(current: string, previous = ''): TSecretKeys {
  return {
    current: parseSecretKey(current),
    previous: previous
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => parseSecretKey(s, 'SECRETS_KEY_PREVIOUS')),
  };
}

/** A fresh random key, base64 (what the launcher writes to .data/secrets-key). */
export function generateSecretKey(): string {
  return randomBytes(32).toString('base64');
}

export const isSealed = (v: string): boolean => v.startsWith(`${PREFIX}.`) && v.split('.').length === 5;

export function sealSecret(keys: TSecretKeys, plaintext: string, aad = ''): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keys.current.key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return [PREFIX, keys.current.id, b64u(iv), b64u(ct), b64u(c.getAuthTag())].join('.');
}

/** The key id a sealed value was made with. */
export function sealedKeyId(sealed: string): string | null {
  return isSealed(sealed) ? sealed.split('.')[1]! : null;
}

export function openSecret(keys: TSecretKeys, sealed: string, aad = ''): string {
  if (!isSealed(sealed)) throw new SecretError('not a sealed secret');
  const [, kid, iv, ct, tag] = sealed.split('.') as [string, string, string, string, string];
  const k = [keys.current, ...keys.previous].find((x) => x.id === kid);
  if (!k)
    throw new SecretError(
      `secret sealed with key ${kid}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
    );
  try {
    const d = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
  } catch {
    throw new SecretError(`secret sealed with key ${kid} failed authentication (tampered or wrong key)`);
  }
}

/** Re-seals with the current key when sealed with an older one; null when already current. */
export function resealSecret(keys: TSecretKeys, sealed: string, aad = ''): string | null {
  if (sealedKeyId(sealed) === keys.current.id) return null;
  return sealSecret(keys, openSecret(keys, sealed, aad), aad);
}

let ephemeral: TSecretKeys | undefined;

/**
 * The keys of `deps`, else a random per-process key (tests and one-off scripts that never read a value back
 * after a restart). The web server always passes SECRETS_KEY (required in production).
 */
export function secretKeysOf(deps: { secrets?: TSecretKeys }): TSecretKeys {
  if (deps.secrets) return deps.secrets;
  ephemeral ??= loadSecretKeys(generateSecretKey());
  return ephemeral;
}
