import { describe, expect, it } from 'vitest';
import {
  generateSecretKey,
  isSealed,
  loadSecretKeys,
  openSecret,
  parseSecretKey,
  resealSecret,
  sealedKeyId,
  sealSecret,
  SecretError,
} from './secrets';

const A = generateSecretKey();
const B = generateSecretKey();
const PG = 'postgresql://bench:s3cr%40t@10.0.0.5:26257/bench?sslmode=require';

describe('secrets', () => {
  it('round-trips, with a fresh IV each time and no plaintext in the sealed value', () => {
    const keys = loadSecretKeys(A);
    const s1 = sealSecret(keys, PG, 'org1');
    const s2 = sealSecret(keys, PG, 'org1');
    expect(isSealed(s1)).toBe(true);
    expect(s1).not.toBe(s2);
    expect(s1).not.toContain('s3cr');
    expect(sealedKeyId(s1)).toBe(keys.current.id);
    expect(openSecret(keys, s1, 'org1')).toBe(PG);
    expect(openSecret(keys, s2, 'org1')).toBe(PG);
  });

  it('fails with the wrong key, for another owner (aad), and when tampered', () => {
    const s = sealSecret(loadSecretKeys(A), PG, 'org1');
    expect(() => openSecret(loadSecretKeys(B), s, 'org1')).toThrow(/neither SECRETS_KEY/);
    expect(() => openSecret(loadSecretKeys(A), s, 'org2')).toThrow(SecretError);
    const parts = s.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0]! ^= 1;
    parts[3] = ct.toString('base64url');
    expect(() => openSecret(loadSecretKeys(A), parts.join('.'), 'org1')).toThrow(/failed authentication/);
    // A forged key id pointing at the right key still needs a valid tag.
    const tag = Buffer.from(s.split('.')[4]!, 'base64url');
    tag[3]! ^= 0x80;
    const forged = [...s.split('.').slice(0, 4), tag.toString('base64url')].join('.');
    expect(() => openSecret(loadSecretKeys(A), forged, 'org1')).toThrow(SecretError);
  });

  it('rotation: the previous key opens, resealing moves to the current key, then the old key can go', () => {
    const old = sealSecret(loadSecretKeys(A), PG, 'org1');
    const rotated = loadSecretKeys(B, ` ${A} ,`);
    expect(openSecret(rotated, old, 'org1')).toBe(PG);
    const fresh = resealSecret(rotated, old, 'org1')!;
    expect(sealedKeyId(fresh)).toBe(rotated.current.id);
    expect(resealSecret(rotated, fresh, 'org1')).toBeNull();
    expect(openSecret(loadSecretKeys(B), fresh, 'org1')).toBe(PG);
    expect(() => openSecret(loadSecretKeys(B), old, 'org1')).toThrow(SecretError);
  });

  it('accepts only 32-byte base64 keys', () => {
    expect(() => parseSecretKey('c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parseSecretKey('not base64!')).toThrow(/base64/);
    expect(() => loadSecretKeys(A, 'c2hvcnQ=')).toThrow(/SECRETS_KEY_PREVIOUS/);
    expect(parseSecretKey(Buffer.from(A, 'base64').toString('base64url')).id).toBe(parseSecretKey(A).id);
  });
});
