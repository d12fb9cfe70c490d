import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';

/** A token the stand-in minted, remembered with its scope. The value is never logged. */
export interface MintedToken {
  id: string;
  installationId: number;
  permissions: Record<string, string>;
  repositoryIds: number[];
  expiresAt: number;
}

export type AuthResult =
  { kind: 'none' } | { kind: 'app'; appId: string } | { kind: 'installation'; token: MintedToken } | { kind: 'invalid'; message: string };

function b64urlJson(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/**
 * Verifies an App JWT as GitHub does: RS256 over `header.payload` with the App's public key,
 * `iss` equal to the App id, `iat` not in the future (60 s of drift allowed), `exp` in the
 * future and at most 10 minutes after `iat`.
 */
export function verifyAppJwt(jwt: string, publicKey: KeyObject, appId: string, nowSeconds: number): { ok: true } | { ok: false; message: string } {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { ok: false, message: 'A JSON web token could not be decoded' };
  let header: { alg?: string };
  let payload: { iat?: number; exp?: number; iss?: string | number };
  try {
    header = b64urlJson(parts[0]) as typeof header;
    payload = b64urlJson(parts[1]) as typeof payload;
  } catch {
    return { ok: false, message: 'A JSON web token could not be decoded' };
  }
  if (header.alg !== 'RS256') return { ok: false, message: 'A JSON web token could not be decoded' };
  const signed = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2], 'base64url'));
  if (!signed) return { ok: false, message: 'A JSON web token could not be decoded' };
  if (String(payload.iss) !== appId) return { ok: false, message: "'Issuer' claim ('iss') must be an Integer" };
  if (typeof payload.iat !== 'number' || payload.iat > nowSeconds + 60) {
    return { ok: false, message: "'Issued at' claim ('iat') must be an Integer representing a time in the past" };
  }
  if (typeof payload.exp !== 'number' || payload.exp <= nowSeconds) {
    return { ok: false, message: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires" };
  }
  if (payload.exp - payload.iat > 600) return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
  return { ok: true };
}

/** Issues and resolves installation tokens. */
export class TokenRegistry {
  private readonly byValue = new Map<string, MintedToken>();
  private seq = 0;
  readonly publicKey: KeyObject;

  constructor(
    readonly appId: string,
    privateKeyPem: string,
    private readonly now: () => number,
  ) {
    this.publicKey = createPublicKey(privateKeyPem);
  }

  mint(installationId: number, permissions: Record<string, string>, repositoryIds: number[]): { value: string; token: MintedToken } {
    const value = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
    const token: MintedToken = {
      id: `tok-${++this.seq}`,
      installationId,
      permissions: { ...permissions },
      repositoryIds: [...repositoryIds],
      expiresAt: this.now() + 3600_000,
    };
    this.byValue.set(value, token);
    return { value, token };
  }

  /** All minted tokens, without their values. */
  list(): MintedToken[] {
    return [...this.byValue.values()];
  }

  /** Every token value minted so far, for leak scans in tests. */
  values(): string[] {
    return [...this.byValue.keys()];
  }

  authenticate(header: string | undefined): AuthResult {
    if (!header) return { kind: 'none' };
    const m = /^(token|bearer)\s+(\S+)$/i.exec(header.trim());
    if (!m) return { kind: 'invalid', message: 'Bad credentials' };
    const credential = m[2];
    if (credential.split('.').length === 3 && m[1].toLowerCase() === 'bearer') {
      const r = verifyAppJwt(credential, this.publicKey, this.appId, Math.floor(this.now() / 1000));
      return r.ok ? { kind: 'app', appId: this.appId } : { kind: 'invalid', message: r.message };
    }
    const token = this.byValue.get(credential);
    if (!token || token.expiresAt <= this.now()) return { kind: 'invalid', message: 'Bad credentials' };
    return { kind: 'installation', token };
  }
}

const LEVEL = { none: 0, read: 1, write: 2 } as const;

/** Whether a token's permissions grant `permission` at `level`. Metadata read is implicit. */
export function grants(permissions: Record<string, string>, permission: string, level: 'read' | 'write'): boolean {
  if (permission === 'metadata' && level === 'read') return true;
  const have = permissions[permission] as keyof typeof LEVEL | undefined;
  return have !== undefined && (LEVEL[have] ?? 0) >= LEVEL[level];
}
