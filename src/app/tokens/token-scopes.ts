import type { TokenRole } from '../../core/ports.js';

/**
 * The fixed permissions each token function asks for. They are constants, not
 * inputs: no caller of token-read or token-write can widen them.
 */
export const TOKEN_SCOPES: Readonly<Record<TokenRole, Readonly<Record<string, 'read' | 'write'>>>> = Object.freeze({
  read: Object.freeze({ contents: 'read', metadata: 'read', issues: 'write', checks: 'read', statuses: 'read', pull_requests: 'read' }),
  write: Object.freeze({ contents: 'write', pull_requests: 'write', issues: 'write' }),
});

/** A fresh copy of a role's permissions, safe to put in a request body. */
export function scopesFor(role: TokenRole): Record<string, 'read' | 'write'> {
  return { ...TOKEN_SCOPES[role] };
}
