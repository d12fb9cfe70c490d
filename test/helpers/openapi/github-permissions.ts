import { TOKEN_SCOPES } from '../../../src/app/tokens/token-scopes.js';
import type { TokenRole } from '../../../src/core/ports.js';

/**
 * What each GitHub operation the stand-in serves needs from a GitHub App installation token,
 * written from GitHub's "Permissions required for GitHub Apps" reference (the OpenAPI
 * description does not carry permissions). Any one of the alternatives suffices; write implies
 * read; every installation token holds metadata:read.
 *
 * `tokens` names which of the App's tokens call the operation: `read` (token-read: webhook,
 * worker, sweeper), `write` (token-write: publisher), `app` (the App JWT, token functions only).
 * Operations the App never calls have none. The contract tests hold this table to the source
 * (`rest.<scope>.<method>` calls in src/app), to app.yml, to the token scopes, and, at run
 * time, to every call the stand-in answers.
 */
export interface OperationPermission {
  /** Alternatives, e.g. `[['issues', 'write'], ['pull_requests', 'write']]`; empty for the App JWT. */
  needs: readonly (readonly [string, 'read' | 'write'])[];
  tokens: readonly ('read' | 'write' | 'app')[];
}

const read = (p: string) => [[p, 'read']] as const;
const write = (p: string) => [[p, 'write']] as const;
const issueOrPull = (level: 'read' | 'write') => [['issues', level], ['pull_requests', level]] as const;

export const OPERATION_PERMISSIONS: Readonly<Record<string, OperationPermission>> = {
  'apps/create-installation-access-token': { needs: [], tokens: ['app'] },
  'repos/get': { needs: read('metadata'), tokens: ['read', 'write'] },
  'repos/get-collaborator-permission-level': { needs: read('metadata'), tokens: ['read'] },
  'repos/get-content': { needs: read('contents'), tokens: ['read'] },
  'repos/get-branch': { needs: read('contents'), tokens: ['read', 'write'] },
  'repos/get-commit': { needs: read('contents'), tokens: [] },
  'repos/get-combined-status-for-ref': { needs: read('statuses'), tokens: ['read'] },
  'repos/list-commit-statuses-for-ref': { needs: read('statuses'), tokens: [] },
  'checks/list-for-ref': { needs: read('checks'), tokens: ['read'] },
  'checks/list-suites-for-ref': { needs: read('checks'), tokens: [] },
  'issues/get': { needs: issueOrPull('read'), tokens: [] },
  'issues/list-for-repo': { needs: read('issues'), tokens: ['read'] },
  'issues/list-comments': { needs: issueOrPull('read'), tokens: ['read'] },
  'issues/get-comment': { needs: issueOrPull('read'), tokens: ['write'] },
  'issues/create-comment': { needs: issueOrPull('write'), tokens: ['read'] },
  'issues/update-comment': { needs: issueOrPull('write'), tokens: ['read', 'write'] },
  'issues/delete-comment': { needs: issueOrPull('write'), tokens: ['read'] },
  'issues/add-labels': { needs: issueOrPull('write'), tokens: ['write'] },
  'git/create-blob': { needs: write('contents'), tokens: ['write'] },
  'git/get-blob': { needs: read('contents'), tokens: ['read', 'write'] },
  'git/create-tree': { needs: write('contents'), tokens: ['write'] },
  'git/get-tree': { needs: read('contents'), tokens: ['write'] },
  'git/create-commit': { needs: write('contents'), tokens: ['write'] },
  'git/get-commit': { needs: read('contents'), tokens: ['write'] },
  'git/create-ref': { needs: write('contents'), tokens: ['write'] },
  'git/get-ref': { needs: read('contents'), tokens: ['write'] },
  'git/list-matching-refs': { needs: read('contents'), tokens: [] },
  'git/update-ref': { needs: write('contents'), tokens: ['write'] },
  'git/delete-ref': { needs: write('contents'), tokens: ['write'] },
  'pulls/create': { needs: write('pull_requests'), tokens: ['write'] },
  'pulls/list': { needs: read('pull_requests'), tokens: ['write'] },
  'pulls/get': { needs: read('pull_requests'), tokens: ['write'] },
  'pulls/update': { needs: write('pull_requests'), tokens: ['write'] },
  'pulls/request-reviewers': { needs: write('pull_requests'), tokens: ['write'] },
};

const LEVEL = { read: 1, write: 2 } as const;

/** Whether `permissions` (a token's or an installation's) satisfies one of `needs`. */
export function satisfies(permissions: Readonly<Record<string, string>>, needs: OperationPermission['needs']): boolean {
  if (needs.length === 0) return true;
  return needs.some(([name, level]) => {
    if (name === 'metadata' && level === 'read') return true;
    const have = permissions[name];
    return (have === 'read' || have === 'write') && LEVEL[have] >= LEVEL[level];
  });
}

/** Which of the App's token roles minted a token with these permissions, if any. */
export function roleOf(permissions: Readonly<Record<string, string>> | null): TokenRole | undefined {
  if (!permissions) return undefined;
  const same = (scope: Readonly<Record<string, string>>) => {
    const a: Record<string, string> = { metadata: 'read', ...scope };
    const b: Record<string, string> = { metadata: 'read', ...permissions };
    return Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
  };
  return (Object.keys(TOKEN_SCOPES) as TokenRole[]).find((role) => same(TOKEN_SCOPES[role]));
}

export function formatNeeds(needs: OperationPermission['needs']): string {
  return needs.length === 0 ? 'App JWT' : needs.map(([p, l]) => `${p}:${l}`).join(' or ');
}

/**
 * The permission problems of one answered call: a success GitHub would have refused (the token
 * lacks the permission), a call with one of the App's tokens to an operation the table does not
 * list for that token, or an operation missing from the table.
 */
export function permissionProblems(call: { operationId?: string; status: number; tokenId: string | null; tokenPermissions: Record<string, string> | null }): string[] {
  if (!call.operationId || call.status < 200 || call.status > 299) return [];
  const entry = OPERATION_PERMISSIONS[call.operationId];
  if (!entry) return [`${call.operationId}: no permission recorded for it in test/helpers/openapi/github-permissions.ts`];
  const problems: string[] = [];
  if (call.tokenPermissions && !satisfies(call.tokenPermissions, entry.needs)) {
    problems.push(`${call.operationId}: answered ${call.status} to a token without ${formatNeeds(entry.needs)}; GitHub answers 403`);
  }
  const role = roleOf(call.tokenPermissions);
  if (role && !entry.tokens.includes(role)) problems.push(`${call.operationId}: called with the ${role} token, which the operation table does not list for it`);
  if (call.tokenId?.startsWith('app-jwt:') && !entry.tokens.includes('app')) problems.push(`${call.operationId}: called with the App JWT`);
  return problems;
}
