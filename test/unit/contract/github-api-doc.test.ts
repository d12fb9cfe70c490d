import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TOKEN_SCOPES } from '../../../src/app/tokens/token-scopes.js';
import { appOperations } from '../../helpers/openapi/app-operations.js';
import { GITHUB_API_DOC, renderGitHubApiDoc } from '../../helpers/openapi/github-api-doc.js';
import { permissionGaps, permissionProblems } from '../../helpers/openapi/github-permissions.js';

const appPermissions = (parse(readFileSync('app.yml', 'utf8')) as { default_permissions: Record<string, string> }).default_permissions;
const operations = appOperations();

describe('docs/github-api.md: the operations the App calls, and their permissions', () => {
  it('is in step with the code and the permission table (regenerate: node --import tsx test/helpers/openapi/github-api-doc.ts --write)', () => {
    expect(readFileSync(GITHUB_API_DOC, 'utf8')).toBe(renderGitHubApiDoc());
  }, 30_000);

  it('finds the App calls in the source, each with the token of its function', () => {
    const byId = new Map(operations.map((o) => [o.operationId, o]));
    expect(byId.get('pulls/create')?.tokens).toEqual(['write']);
    expect(byId.get('repos/get-collaborator-permission-level')?.tokens).toEqual(['read']);
    // Shared code takes the tokens of the functions importing it.
    expect(byId.get('issues/update-comment')?.tokens).toEqual(['read', 'write']);
    expect(byId.get('apps/create-installation-access-token')?.tokens).toEqual(['app']);
    expect(operations.length).toBeGreaterThan(20);
  });

  it('every permission an operation needs is granted in app.yml and held by the token of each function calling it', () => {
    expect(permissionGaps(operations, appPermissions, TOKEN_SCOPES)).toEqual([]);
  });

  it('a call needing a permission the calling token lacks is reported', () => {
    const { pull_requests: _dropped, ...writeWithoutPulls } = TOKEN_SCOPES.write;
    expect(permissionGaps(operations, appPermissions, { ...TOKEN_SCOPES, write: writeWithoutPulls })).toContain(
      "pulls/create needs pull_requests:write, which the write token's scope does not hold",
    );
    const { checks: _checks, ...appWithoutChecks } = appPermissions;
    expect(permissionGaps(operations, appWithoutChecks, TOKEN_SCOPES)).toContain('checks/list-for-ref needs checks:read, which app.yml does not grant');
    expect(permissionGaps([{ operationId: 'repos/delete', tokens: ['write'] }], appPermissions, TOKEN_SCOPES)).toEqual([
      'repos/delete: no permission recorded for it in test/helpers/openapi/github-permissions.ts',
    ]);
  });

  it('a success the stand-in answers to a token without the permission is a mismatch; a refusal is not', () => {
    const call = { operationId: 'git/create-ref', tokenPermissions: { ...TOKEN_SCOPES.read } };
    expect(permissionProblems({ ...call, status: 201 })).toEqual(['answered 201 to a token without contents:write; GitHub answers 403']);
    expect(permissionProblems({ ...call, status: 403 })).toEqual([]);
    expect(permissionProblems({ ...call, tokenPermissions: { ...TOKEN_SCOPES.write }, status: 201 })).toEqual([]);
    // metadata:read comes with every installation token.
    expect(permissionProblems({ operationId: 'repos/get', tokenPermissions: { contents: 'write' }, status: 200 })).toEqual([]);
  });
});
