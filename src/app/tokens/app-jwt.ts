import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '../../core/ports.js';

export interface AppJwtOptions {
  appId: string | number;
  /** PEM (PKCS#1 as GitHub issues it, or PKCS#8) or a KeyObject. */
  privateKey: string | KeyObject;
  clock: Clock;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * The App's JSON Web Token (RS256) that authenticates it to `POST /app/installations/{id}/access_tokens`.
 * `iat` is back-dated 60 s against clock drift and `exp` is 9 minutes ahead, inside GitHub's
 * 10-minute limit, as GitHub recommends.
 */
export function createAppJwt({ appId, privateKey, clock }: AppJwtOptions): string {
  const now = Math.floor(clock.now() / 1000);
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const signingInput = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ iat: now - 60, exp: now + 540, iss: String(appId) })}`;
  const signature = sign('sha256', Buffer.from(signingInput), key).toString('base64url');
  return `${signingInput}.${signature}`;
}
