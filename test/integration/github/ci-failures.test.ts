import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHECK_RUN_PAGES, readCiFailures } from '../../../src/app/github/ci-failures.js';
import { createGitHubApi, type GitHubApi } from '../../../src/app/github/github-api.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { CiFailureReport, MAX_ANNOTATIONS_PER_RUN } from '../../../src/core/runs/ci-failure.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

const APP_ID = 7;
const FULL = 'acme/widgets';
const clock = fixedClock();
const keys = testAppKey();
let standin: GitHubStandin;
let api: GitHubApi;
let gadgetsApi: GitHubApi;
let gizmosApi: GitHubApi;
let head: string;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: [
      { owner: 'acme', name: 'widgets', id: 11, files: { 'src/app.ts': 'export const v = 1;\n' } },
      { owner: 'acme', name: 'gadgets', id: 12, files: { 'src/b.ts': 'b\n' } },
      { owner: 'acme', name: 'gizmos', id: 13, files: { 'src/c.ts': 'c\n' } },
    ],
  });
  const broker = new InProcessTokenBroker({
    role: 'read',
    appId: APP_ID,
    apiUrl: standin.url,
    clock,
    loadPrivateKey: async () => keys.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
  });
  const readApi = async (repositoryId: number) =>
    createGitHubApi({
      token: (await broker.token({ installationId: 1, repositoryId, role: 'read' })).token,
      baseUrl: standin.url,
      policy: STANDIN_GITHUB_POLICY,
    });
  api = await readApi(11);
  gadgetsApi = await readApi(12);
  gizmosApi = await readApi(13);
  head = (await standin.resolve(FULL, 'main'))!;
});
afterAll(async () => {
  await standin.stop();
});

const callsTo = (suffix: RegExp) => standin.calls.filter((c) => c.method === 'GET' && suffix.test(c.path));

describe('ci repair: reading failing CI with the read token', () => {
  it('reads a failing run with its output and annotations and a failing status, and skips what passed', async () => {
    standin.addCheckSuite(FULL, {
      headSha: head,
      headBranch: 'agent/i5/rabc',
      conclusion: 'failure',
      runs: [
        {
          name: 'test',
          conclusion: 'failure',
          detailsUrl: 'https://ci.example/runs/1',
          output: { title: '2 tests failed', summary: 'AppTest > adds FAILED', text: 'expected 2, got 1' },
          annotations: [
            { path: 'src/notes.md', startLine: 1, endLine: 1, level: 'warning', message: 'trailing space' },
            { path: 'src/app.ts', startLine: 3, endLine: 5, level: 'failure', message: 'expected 2, got 1', title: 'AppTest.adds' },
            { path: '../../etc/passwd', startLine: 1, endLine: 1, level: 'failure', message: 'not a repository path' },
          ],
        },
        {
          name: 'lint',
          conclusion: 'success',
          output: { title: 'clean', summary: 'no problems' },
          annotations: [{ path: 'src/app.ts', startLine: 1, endLine: 1, level: 'notice', message: 'fine' }],
        },
      ],
    });
    standin.addStatus(FULL, head, { context: 'ci/jenkins', state: 'error', description: 'Build broke', targetUrl: 'https://jenkins.example/1' });
    standin.addStatus(FULL, head, { context: 'ci/docs', state: 'success' });
    standin.addStatus(FULL, head, { context: 'ci/slow', state: 'pending' });

    const report = await readCiFailures(api, 'acme', 'widgets', head);

    expect(CiFailureReport.parse(report)).toEqual(report);
    expect(report).toEqual({
      headSha: head,
      truncated: false,
      failures: [
        {
          kind: 'check_run',
          name: 'test',
          conclusion: 'failure',
          url: 'https://ci.example/runs/1',
          title: '2 tests failed',
          summary: 'AppTest > adds FAILED',
          text: 'expected 2, got 1',
          annotations: [
            { path: 'src/app.ts', startLine: 3, endLine: 5, level: 'failure', message: 'expected 2, got 1', title: 'AppTest.adds' },
            { path: 'src/notes.md', startLine: 1, endLine: 1, level: 'warning', message: 'trailing space' },
          ],
        },
        { kind: 'status', name: 'ci/jenkins', conclusion: 'error', url: 'https://jenkins.example/1', title: 'Build broke', annotations: [] },
      ],
    });
    // Annotations are read for the failing run only, with the read token.
    const annotationCalls = callsTo(/\/check-runs\/\d+\/annotations$/);
    expect(annotationCalls).toHaveLength(1);
    expect(annotationCalls[0]).toMatchObject({ status: 200, tokenPermissions: { checks: 'read', statuses: 'read' } });
    expect(annotationCalls[0].tokenPermissions).not.toHaveProperty('contents', 'write');
    expect(standin.contract.violations()).toEqual([]);
  });

  it('pages through many check runs and reads one bounded page of annotations however many there are', async () => {
    const other = (await standin.resolve('acme/gadgets', 'main'))!;
    const many = Array.from({ length: 1000 }, (_, i) => ({
      path: `src/f${i}.ts`,
      startLine: i + 1,
      endLine: i + 1,
      level: 'failure' as const,
      message: `problem ${i}`,
    }));
    const passing = Array.from({ length: 140 }, (_, i) => ({ name: `pass-${String(i).padStart(3, '0')}` }));
    standin.addCheckSuite('acme/gadgets', {
      headSha: other,
      conclusion: 'failure',
      runs: [...passing, { name: 'zz-big', conclusion: 'failure', annotations: many }],
    });
    const before = standin.calls.length;

    const report = await readCiFailures(gadgetsApi, 'acme', 'gadgets', other);

    expect(report.truncated).toBe(true);
    expect(report.failures.map((f) => f.name)).toEqual(['zz-big']);
    expect(report.failures[0].annotations).toHaveLength(MAX_ANNOTATIONS_PER_RUN);
    expect(report.failures[0].annotations[0]).toEqual({ path: 'src/f0.ts', startLine: 1, endLine: 1, level: 'failure', message: 'problem 0' });
    const calls = standin.calls.slice(before);
    expect(calls.filter((c) => c.path.endsWith('/check-runs')).map((c) => new URLSearchParams(c.query).get('page'))).toEqual(['1', '2']);
    const annotationCalls = calls.filter((c) => c.path.endsWith('/annotations'));
    expect(annotationCalls.map((c) => new URLSearchParams(c.query).get('per_page'))).toEqual([String(MAX_ANNOTATIONS_PER_RUN)]);
    expect(standin.contract.violations()).toEqual([]);
  });

  it('stops listing check runs after its page budget and says the report is incomplete', async () => {
    const sha = (await standin.resolve('acme/gizmos', 'main'))!;
    const passing = Array.from({ length: MAX_CHECK_RUN_PAGES * 100 + 20 }, (_, i) => ({ name: `pass-${String(i).padStart(4, '0')}` }));
    standin.addCheckSuite('acme/gizmos', { headSha: sha, conclusion: 'failure', runs: [...passing, { name: 'zz-late', conclusion: 'failure' }] });
    const before = standin.calls.length;

    const report = await readCiFailures(gizmosApi, 'acme', 'gizmos', sha);

    expect(report).toEqual({ headSha: sha, failures: [], truncated: true });
    expect(standin.calls.slice(before).filter((c) => c.path.endsWith('/check-runs'))).toHaveLength(MAX_CHECK_RUN_PAGES);
    expect(standin.contract.violations()).toEqual([]);
  });
});
