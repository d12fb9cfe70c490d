import { TOKEN_SCOPES } from '../../../src/app/tokens/token-scopes.js';

/**
 * What each GitHub operation the stand-in serves needs from a GitHub App installation token,
 * written from GitHub's "Permissions required for GitHub Apps" reference (the OpenAPI
 * description does not carry permissions). Any one of the alternatives suffices; write implies
 * read; every installation token holds metadata:read. The stand-in holds every successful
 * answer to it, and the contract tests hold the operations the App calls (app-operations.ts) to
 * app.yml and to the calling function's token scope.
 */
/** Alternatives, e.g. `[['issues', 'write'], ['pull_requests', 'write']]`; empty for the App JWT. */
export type PermissionNeeds = readonly (readonly [string, 'read' | 'write'])[];

const read = (p: string): PermissionNeeds => [[p, 'read']];
const write = (p: string): PermissionNeeds => [[p, 'write']];
const issueOrPull = (level: 'read' | 'write'): PermissionNeeds => [
  ['issues', level],
  ['pull_requests', level],
];

export const OPERATION_PERMISSIONS: Readonly<Record<string, PermissionNeeds>> = {
  'apps/create-installation-access-token': [],
  // draftsman doctor, as the App itself (its JWT): what it holds and where it delivers.
  'apps/get-authenticated': [],
  'apps/get-webhook-config-for-app': [],
  // token-read's lookup of a campaign's target in another installation: the App's JWT, no installation token.
  'apps/get-repo-installation': [],
  // The manifest flow's code exchange (serve's setup page): no token at all, the code is the credential.
  'apps/create-from-manifest': [],
  // token-read's listing for a campaign's selector: a metadata:read token over the installation.
  'apps/list-repos-accessible-to-installation': read('metadata'),
  'repos/get': read('metadata'),
  'repos/get-collaborator-permission-level': read('metadata'),
  'repos/get-content': read('contents'),
  'repos/get-branch': read('contents'),
  'repos/compare-commits-with-basehead': read('contents'),
  'repos/get-commit': read('contents'),
  'repos/get-combined-status-for-ref': read('statuses'),
  'repos/list-commit-statuses-for-ref': read('statuses'),
  'checks/list-for-ref': read('checks'),
  'checks/list-annotations': read('checks'),
  'checks/list-suites-for-ref': read('checks'),
  'issues/get': issueOrPull('read'),
  'issues/list-for-repo': read('issues'),
  'issues/create': write('issues'),
  'issues/list-comments': issueOrPull('read'),
  'issues/get-comment': issueOrPull('read'),
  'issues/create-comment': issueOrPull('write'),
  'issues/update-comment': issueOrPull('write'),
  'issues/delete-comment': issueOrPull('write'),
  'issues/add-labels': issueOrPull('write'),
  'issues/update': write('issues'),
  'git/create-blob': write('contents'),
  'git/get-blob': read('contents'),
  'git/create-tree': write('contents'),
  'git/get-tree': read('contents'),
  'git/create-commit': write('contents'),
  'git/get-commit': read('contents'),
  'git/create-ref': write('contents'),
  'git/get-ref': read('contents'),
  'git/list-matching-refs': read('contents'),
  'git/update-ref': write('contents'),
  'git/delete-ref': write('contents'),
  'pulls/create': write('pull_requests'),
  'pulls/list': read('pull_requests'),
  'pulls/get': read('pull_requests'),
  'pulls/list-comments-for-review': read('pull_requests'),
  'pulls/list-files': read('pull_requests'),
  'pulls/list-reviews': read('pull_requests'),
  'actions/download-job-logs-for-workflow-run': read('actions'),
  'pulls/update': write('pull_requests'),
  'pulls/request-reviewers': write('pull_requests'),
};

const LEVEL = { read: 1, write: 2 } as const;

/** Whether `permissions` (a token's or an installation's) satisfies one of `needs`. */
export function satisfies(permissions: Readonly<Record<string, string>>, needs: PermissionNeeds): boolean {
  if (needs.length === 0) return true;
  return needs.some(([name, level]) => {
    if (name === 'metadata' && level === 'read') return true;
    const have = permissions[name];
    return (have === 'read' || have === 'write') && LEVEL[have] >= LEVEL[level];
  });
}

export function formatNeeds(needs: PermissionNeeds): string {
  return needs.length === 0 ? 'App JWT' : needs.map(([p, l]) => `${p}:${l}`).join(' or ');
}

/**
 * The permission problems of one answered call: a success GitHub would have refused (the token
 * lacks the permission), or an operation missing from the table.
 */
export function permissionProblems(call: { operationId?: string; status: number; tokenPermissions: Record<string, string> | null }): string[] {
  if (!call.operationId || call.status < 200 || call.status > 299) return [];
  const needs = OPERATION_PERMISSIONS[call.operationId];
  if (!needs) return [`${call.operationId}: no permission recorded for it in test/helpers/openapi/github-permissions.ts`];
  if (call.tokenPermissions && !satisfies(call.tokenPermissions, needs))
    return [`answered ${call.status} to a token without ${formatNeeds(needs)}; GitHub answers 403`];
  return [];
}

/**
 * Where a used operation's permission is not held: by the App (`app.yml` default_permissions)
 * or by the token of a function that calls it. Empty when everything is granted.
 */
export function permissionGaps(
  operations: readonly { operationId: string; tokens: readonly string[] }[],
  appPermissions: Readonly<Record<string, string>>,
  tokenScopes: Readonly<Record<string, Readonly<Record<string, string>>>>,
): string[] {
  const gaps: string[] = [];
  for (const o of operations) {
    const needs = OPERATION_PERMISSIONS[o.operationId];
    if (!needs) {
      gaps.push(`${o.operationId}: no permission recorded for it in test/helpers/openapi/github-permissions.ts`);
      continue;
    }
    if (!satisfies(appPermissions, needs)) gaps.push(`${o.operationId} needs ${formatNeeds(needs)}, which app.yml does not grant`);
    for (const token of o.tokens) {
      const scope = tokenScopes[token];
      if (token !== 'app' && (!scope || !satisfies(scope, needs)))
        gaps.push(`${o.operationId} needs ${formatNeeds(needs)}, which the ${token} token's scope does not hold`);
    }
  }
  return gaps;
}

/** Which token made a call: one of the App's roles (by its exact scope), the App JWT, another token, or none. */
export function tokenLabel(call: { tokenId: string | null; tokenPermissions: Record<string, string> | null }): string {
  if (call.tokenId?.startsWith('app-jwt:')) return 'app';
  if (!call.tokenPermissions) return 'anonymous';
  const have: Record<string, string> = { metadata: 'read', ...call.tokenPermissions };
  for (const [role, scope] of Object.entries(TOKEN_SCOPES)) {
    const want: Record<string, string> = { metadata: 'read', ...scope };
    if (Object.keys(want).length === Object.keys(have).length && Object.entries(want).every(([k, v]) => have[k] === v)) return role;
  }
  return 'other token';
}
