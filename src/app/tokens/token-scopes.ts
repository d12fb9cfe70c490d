import type { TokenRole } from '../../core/ports.js';

/**
 * The fixed permissions each token function asks for. They are constants, not
 * inputs: no caller of token-read or token-write can widen them.
 */
export const TOKEN_SCOPES: Readonly<Record<TokenRole, Readonly<Record<string, 'read' | 'write'>>>> = Object.freeze({
  // actions: read for the logs of failed GitHub Actions jobs a CI repair carries.
  read: Object.freeze({ contents: 'read', metadata: 'read', issues: 'write', checks: 'read', statuses: 'read', pull_requests: 'read', actions: 'read' }),
  // A worker reads the repository and its CI state; it never writes on GitHub, not even a comment.
  worker: Object.freeze({ contents: 'read', metadata: 'read', checks: 'read', statuses: 'read', pull_requests: 'read' }),
  write: Object.freeze({ contents: 'write', pull_requests: 'write', issues: 'write' }),
  // The intake tells an admin what an installation lacks in an issue: a token that needs nothing else, so it is minted whatever else is missing.
  notice: Object.freeze({ metadata: 'read', issues: 'write' }),
});

/** The roles a token function of `role` may also mint: narrower ones only. */
export const NARROWER_ROLES: Readonly<Record<TokenRole, readonly TokenRole[]>> = Object.freeze({
  read: ['worker', 'notice'],
  worker: [],
  write: [],
  notice: [],
});

/** Whether a broker or token function of role `serves` may mint a token of role `asked`. */
export function servesRole(serves: TokenRole, asked: TokenRole): boolean {
  return asked === serves || NARROWER_ROLES[serves].includes(asked);
}

/** A fresh copy of a role's permissions, safe to put in a request body. */
export function scopesFor(role: TokenRole): Record<string, 'read' | 'write'> {
  return { ...TOKEN_SCOPES[role] };
}
