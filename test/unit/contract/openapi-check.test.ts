import { describe, expect, it } from 'vitest';
import { checkExchange, formatViolation, type Exchange } from '../../helpers/openapi/contract-check.js';
import { githubDescription } from '../../helpers/openapi/github-description.js';

const SHA = 'a'.repeat(40);
const exchange = (x: Partial<Exchange> & Pick<Exchange, 'method' | 'pathname'>): Exchange => ({
  query: new URLSearchParams(),
  requestBody: undefined,
  status: 200,
  responseBody: undefined,
  ...x,
});
const problems = (x: Exchange) => checkExchange(x).violations.map(formatViolation);
const ref = (name: string) => ({
  ref: name,
  node_id: 'REF_1',
  url: 'http://127.0.0.1:1/ref',
  object: { sha: SHA, type: 'commit', url: 'http://127.0.0.1:1/c' },
});

describe("GitHub's OpenAPI description: matching a request to its operation", () => {
  const match = (method: string, path: string) => {
    const m = githubDescription().match(method, path);
    return m && { id: m.operation.operationId, params: m.pathParams };
  };

  it('takes a literal segment over a parameter, and lets multi-segment parameters span slashes', () => {
    expect(match('GET', '/repos/acme/orders/issues/comments/5')?.id).toBe('issues/get-comment');
    expect(match('GET', '/repos/acme/orders/issues/5/comments')?.id).toBe('issues/list-comments');
    expect(match('PATCH', '/repos/acme/orders/git/refs/heads/agent/i1/x')).toEqual({
      id: 'git/update-ref',
      params: { owner: 'acme', repo: 'orders', ref: 'heads/agent/i1/x' },
    });
    expect(match('GET', '/repos/acme/orders/git/ref/heads%2Fagent%2Fx')?.params.ref).toBe('heads/agent/x');
    expect(match('GET', '/repos/acme/orders/contents/a/b/.agent-policy.yaml')?.params.path).toBe('a/b/.agent-policy.yaml');
    expect(match('GET', '/repos/acme/orders/commits/main/check-runs')?.id).toBe('checks/list-for-ref');
  }, 30_000);

  it('finds no operation for a route GitHub does not have, e.g. GET on git/refs/{ref}', () => {
    expect(match('GET', '/repos/acme/orders/git/refs/heads/main')).toBeUndefined();
    expect(
      problems(exchange({ method: 'GET', pathname: '/repos/acme/orders/git/refs/heads/main', status: 200, responseBody: ref('refs/heads/main') })),
    ).toEqual(['(no operation) (GET /repos/acme/orders/git/refs/heads/main) route $: GitHub documents no operation for this method and path']);
  });
});

describe('checking one exchange', () => {
  it('passes a request and answer as GitHub documents them', () => {
    expect(
      problems(
        exchange({
          method: 'PATCH',
          pathname: '/repos/acme/orders/git/refs/heads/x',
          requestBody: { sha: SHA, force: true },
          responseBody: ref('refs/heads/x'),
        }),
      ),
    ).toEqual([]);
    expect(
      problems(
        exchange({
          method: 'POST',
          pathname: '/repos/acme/orders/issues/3/labels',
          requestBody: { labels: ['agent'] },
          responseBody: [{ id: 1, name: 'agent', color: 'ededed', default: false }],
        }),
      ),
    ).toEqual([]);
  });

  it('names the operation and JSON path of a response field of the wrong type or one GitHub does not document', () => {
    expect(
      problems(
        exchange({
          method: 'PATCH',
          pathname: '/repos/acme/orders/git/refs/heads/x',
          requestBody: { sha: SHA },
          responseBody: { ...ref('refs/heads/x'), object: { sha: 7, type: 'commit', url: 'http://127.0.0.1:1/c' }, merged: true },
        }),
      ),
    ).toEqual([
      'git/update-ref (PATCH /repos/{owner}/{repo}/git/refs/{ref}) response body $.object.sha: must be string, is integer',
      'git/update-ref (PATCH /repos/{owner}/{repo}/git/refs/{ref}) response body $.merged: field not in the documented response',
    ]);
  });

  it('accepts null where the description says nullable, and only there', () => {
    const pull = { number: 1, title: 't', body: null, state: 'open', draft: true };
    expect(problems(exchange({ method: 'GET', pathname: '/repos/acme/orders/pulls/1', responseBody: pull }))).toEqual([]);
    expect(problems(exchange({ method: 'GET', pathname: '/repos/acme/orders/pulls/1', responseBody: { ...pull, title: null } }))).toEqual([
      'pulls/get (GET /repos/{owner}/{repo}/pulls/{pull_number}) response body $.title: must be string, is null',
    ]);
  });

  it('reports a status the operation does not document, and accepts the errors GitHub answers anywhere', () => {
    expect(problems(exchange({ method: 'GET', pathname: '/repos/acme/orders/git/ref/heads/x', status: 422, responseBody: { message: 'no' } }))).toEqual([
      'git/get-ref (GET /repos/{owner}/{repo}/git/ref/{ref}) status $: status 422 is not documented (documented: 200, 404, 409)',
    ]);
    expect(
      problems(
        exchange({
          method: 'POST',
          pathname: '/repos/acme/orders/git/blobs',
          requestBody: { content: 'x' },
          status: 403,
          responseBody: { message: 'Resource not accessible by integration' },
        }),
      ),
    ).toEqual([]);
    expect(
      problems(
        exchange({ method: 'POST', pathname: '/repos/acme/orders/git/blobs', requestBody: { content: 'x' }, status: 502, responseBody: { message: 1 } }),
      ),
    ).toEqual(['git/create-blob (POST /repos/{owner}/{repo}/git/blobs) response body $.message: must be string, is integer']);
  });

  it('reports what the App sends that GitHub does not accept: missing or unknown body fields, undeclared or mistyped parameters', () => {
    expect(
      problems(
        exchange({
          method: 'POST',
          pathname: '/repos/acme/orders/git/refs',
          requestBody: { sha: SHA, force: true },
          status: 201,
          responseBody: ref('refs/heads/x'),
        }),
      ),
    ).toEqual([
      'git/create-ref (POST /repos/{owner}/{repo}/git/refs) request body $: required field ref is missing',
      'git/create-ref (POST /repos/{owner}/{repo}/git/refs) request body $.force: field not declared by the operation',
    ]);
    expect(
      problems(
        exchange({
          method: 'GET',
          pathname: '/repos/acme/orders/pulls',
          query: new URLSearchParams('state=opened&per_page=x&sort_by=created'),
          responseBody: [],
        }),
      ),
    ).toEqual([
      'pulls/list (GET /repos/{owner}/{repo}/pulls) query $.sort_by: parameter not declared by the operation',
      'pulls/list (GET /repos/{owner}/{repo}/pulls) query $.state: must be one of ["open","closed","all"]',
      'pulls/list (GET /repos/{owner}/{repo}/pulls) query $.per_page: must be integer',
    ]);
    expect(problems(exchange({ method: 'GET', pathname: '/repos/acme/orders/issues/abc', responseBody: { number: 1 } }))).toEqual([
      'issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}) path $.issue_number: must be integer',
    ]);
  });
});
