import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../../../src/app/github/github-api.js';
import { readTrustedPolicy, type TrustedPolicy } from '../../../src/app/github/read-trusted-policy.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { MAX_POLICY_FILE_BYTES } from '../../../src/core/policy/agent-policy.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

/**
 * The one trusted-policy reader against the GitHub stand-in: the default branch head only, and
 * one outcome for a missing, invalid, oversized or non-file policy. The stand-in answers files
 * over 1 MB as GitHub does (`encoding: "none"`, empty content).
 */
const APP_ID = 901;
const keys = testAppKey();
const clock = fixedClock();
const VALID = 'version: 1\ntriggers:\n  label: go\n';
/** Valid YAML, one byte over the cap. */
const OVERSIZED = `version: 1\n#${'x'.repeat(MAX_POLICY_FILE_BYTES - 12)}\n`;

const REPOS: Record<string, Record<string, string> | undefined> = {
  valid: { '.agent-policy.yaml': VALID },
  missing: { 'README.md': '# r\n' },
  invalid: { '.agent-policy.yaml': 'version: 1\ntriggers: [oops\n' },
  oversized: { '.agent-policy.yaml': OVERSIZED },
  directory: { '.agent-policy.yaml/inner.yaml': VALID },
};

let standin: GitHubStandin;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: Object.entries(REPOS).map(([name, files], i) => ({ owner: 'acme', name, id: 300 + i, files: files ?? {} })),
  });
}, 30_000);

afterAll(async () => standin?.stop());

async function read(repo: string): Promise<TrustedPolicy> {
  const broker = new InProcessTokenBroker({
    role: 'read',
    appId: APP_ID,
    apiUrl: standin.url,
    clock,
    loadPrivateKey: async () => keys.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
  });
  const repositoryId = standin.repo(`acme/${repo}`).id;
  const issued = await broker.token({ installationId: standin.repo(`acme/${repo}`).installationId, repositoryId, role: 'read' });
  return readTrustedPolicy(createGitHubApi({ token: issued.token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY }), {
    owner: 'acme',
    repo,
    defaultBranch: 'main',
  });
}

describe('readTrustedPolicy', () => {
  it('reads the policy at the default branch head', async () => {
    const result = await read('valid');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.triggers.label).toBe('go');
    expect(result.commitSha).toBe(await standin.resolve('acme/valid', 'refs/heads/main'));
    expect(Buffer.from(result.bytes!).toString('utf8')).toBe(VALID);
  });

  it('a missing file gives the documented defaults', async () => {
    const result = await read('missing');
    expect(result).toMatchObject({ ok: true, bytes: undefined });
    if (result.ok) expect(result.policy.triggers.label).toBe('agent:run');
  });

  it.each([
    ['invalid YAML', 'POLICY_FILE_INVALID', 'invalid'],
    ['a directory in its place', 'POLICY_FILE_INVALID', 'directory'],
    ['a file over 1 MiB (contents API: encoding "none")', 'POLICY_FILE_TOO_LARGE', 'oversized'],
  ])('%s is refused with %s', async (_what, reason, repo) => {
    const before = standin.calls.length;
    const result = await read(repo);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.reason).toBe(reason);
    expect(result.error.data.problems.length).toBeGreaterThan(0);
    // Refused from the stated size: the blob is never fetched.
    expect(standin.calls.slice(before).filter((c) => c.path.includes('/git/blobs/'))).toEqual([]);
  });

  it('the stand-in answers a file over 1 MiB like GitHub: no content, encoding "none"', async () => {
    const broker = new InProcessTokenBroker({
      role: 'read',
      appId: APP_ID,
      apiUrl: standin.url,
      clock,
      loadPrivateKey: async () => keys.privateKeyPem,
      policy: STANDIN_GITHUB_POLICY,
    });
    const issued = await broker.token({
      installationId: standin.repo('acme/oversized').installationId,
      repositoryId: standin.repo('acme/oversized').id,
      role: 'read',
    });
    const api = createGitHubApi({ token: issued.token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY });
    const res = await api.rest.repos.getContent({ owner: 'acme', repo: 'oversized', path: '.agent-policy.yaml' });
    expect(res.data).toMatchObject({ type: 'file', encoding: 'none', content: '', size: Buffer.byteLength(OVERSIZED) });
  });
});
