import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { GitHttpRequest, GitHttpResponse } from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRepoSource } from '../../src/app/git/local-repo-source.js';
import { runGit } from '../../src/app/git/run-git.js';
import { isInsecureForCredentials, scopeCredentials } from '../../src/app/git/scoped-credentials.js';
import { applyReplace } from '../../src/core/engines/recipe/replace-recipe.js';
import { diffLineArrays } from '../../src/core/text/line-diff.js';
import { inflateExact, InflateBudget, InflateSizeError } from '../../src/core/ingestion/inflate-budget.js';
import { RecipeStep, type ReplaceStep } from '../../src/core/task/recipe-steps.js';
import { compileUserRegex, UserRegexError } from '../../src/core/util/user-regex.js';
import { TOKEN_SCOPES } from '../../src/app/tokens/token-scopes.js';
import { CapturingLogger, REDACTED } from '../../src/app/logger.js';
import { createMemoryFs } from '../../src/app/local/memfs-adapter.js';
import { IngestionError } from '../../src/core/errors.js';
import { redactSecrets } from '../../src/core/secrets/secret-scan.js';
import { checkStagePath, policyDenial } from '../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../helpers/path-rules.js';
import { ingestRepository } from '../../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY } from '../../src/core/ingestion/ingestion-policy.js';
import { HOSTILE_TREES, makeBareRepo, makeRawTreeRepo } from '../fixtures/make-repo.js';
import { harnessReadTokens, MAINTAINER, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { treeSnapshot } from './bounds.js';
import { removeRoot, tempRoot } from './temp-root.js';
import { defaultPathRules } from '../../src/core/paths/path-rules.js';

/**
 * The security invariants of docs/architecture.md, one `describe` per invariant, each proven here directly and cheaply. Where a
 * heavier test proves the whole of an invariant, its path is named in the describe; the core
 * of it is re-proven here so every promise of §9 is visible in one file.
 */
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const NOW = Date.UTC(2026, 1, 3, 4, 5, 6);
let h: AppHarness;
let root: string;

async function requestsFor(issue: number): Promise<{ key: string; body: Record<string, any> }[]> {
  return (await h.objects())
    .filter((o) => /^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key))
    .map((o) => ({ key: o.key, body: JSON.parse(o.text) }))
    .filter((r) => r.body.issue?.number === issue);
}

async function ingestLocal(gitdir: string) {
  return ingestRepository({
    source: new LocalRepoSource(gitdir),
    fs: createMemoryFs(),
    gitdir: '/repo/.git',
    policy: DEFAULT_INGESTION_POLICY,
    clock: { now: () => NOW },
    logger: silent,
  });
}

beforeAll(async () => {
  root = tempRoot('invariants');
  h = await startAppHarness();
}, 60_000);

afterAll(async () => {
  await h?.stop();
  removeRoot(root);
});

describe('§9.1 no token, key or secret in artifacts, logs, model requests or comments (full scans: fault-injection.test.ts, test/e2e/security.test.ts)', () => {
  it('the logger redacts registered secrets, GitHub tokens, bearer credentials, URL passwords and PEM keys', () => {
    const logger = new CapturingLogger({ secrets: ['whsec_registered_canary'] });
    const token = `ghs_${'A1b2C3d4'.repeat(5)}`;
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAcanary\n-----END RSA PRIVATE KEY-----';
    logger.error('failed with whsec_registered_canary', {
      header: `Bearer ${token}`,
      url: `https://x-access-token:${token}@github.com/a/b.git`,
      key: pem,
      nested: { installationToken: 'anything' },
    });
    const line = logger.lines.join('\n');
    for (const secret of ['whsec_registered_canary', token, 'MIIEowIBAAKCAQEAcanary', 'anything']) expect(line).not.toContain(secret);
    expect(line).toContain(REDACTED);
  });

  it('secrets in file content are redacted before anything is framed for a model', () => {
    const content = `const key = "AKIAIOSFODNN7EXAMPLE";\nconst token = "ghp_${'x9Y8z7W6'.repeat(5)}";\nexport const ok = 1;\n`;
    const { text, findings } = redactSecrets(content, { path: 'src/config.ts', rules: defaultPathRules() });
    expect(findings.length).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(text).not.toContain('x9Y8z7W6x9Y8z7W6');
    expect(text).toContain('export const ok = 1;');
  });

  it('after a webhook start, nothing the App wrote holds a token, the key or the webhook secret', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(7))).statusCode).toBe(202);
    expect(h.secrets().some((s) => s.label.startsWith('token:'))).toBe(true);
    expect(await h.leaks()).toEqual([]);
  });
});

describe('§9.2 policy only from the default branch trusted head (test/e2e/policy-*.test.ts)', () => {
  it('the webhook reads .agent-policy.yaml at the SHA of the default branch head, never at another ref', async () => {
    const main = await h.standin.resolve(h.fullName, 'refs/heads/main');
    const reads = h.standin.calls.filter((c) => c.path.endsWith('/contents/.agent-policy.yaml'));
    expect(reads.length).toBeGreaterThan(0);
    for (const c of reads) expect(new URLSearchParams(c.query).get('ref')).toBe(main);
  });
});

describe('§9.3 only senders with the minimum permission trigger; bots and the App never do (test/e2e/security.test.ts)', () => {
  it('a read-only sender starts nothing', async () => {
    expect((await h.deliver('issue_comment', h.payloads.comment(5, '/agent run', { sender: READER }))).statusCode).toBe(202);
    expect(await requestsFor(5)).toEqual([]);
    expect(await h.store.get('locks/acme/orders/issues/5.json')).toBeUndefined();
  });

  it.each([
    ['a Bot account', { sender: 'helper[bot]', senderType: 'Bot' as const }],
    ['the App itself', { sender: 'draftsman[bot]', senderType: 'Bot' as const }],
  ])('%s never triggers, not even an API call', async (_name, who) => {
    const calls = h.standin.calls.length;
    expect((await h.deliver('issue_comment', h.payloads.comment(6, '/agent run', who))).statusCode).toBe(202);
    expect(h.standin.calls.length).toBe(calls);
    expect(await requestsFor(6)).toEqual([]);
  });

  it('a writer does start a run (the check is not simply "nobody")', async () => {
    expect((await h.deliver('issue_comment', h.payloads.comment(8, '/agent run', { sender: MAINTAINER }))).statusCode).toBe(202);
    expect(await requestsFor(8)).toHaveLength(1);
  });
});

describe('§9.4 nothing written outside the workspace; hostile entries refused at ingestion (hostile-repos.test.ts)', () => {
  it('hostile tree entries are refused before anything is opened, and nothing lands on disk', async () => {
    for (const name of ['dotGit', 'dotDot', 'symlinkEtcPasswd'] as const) {
      const gitdir = join(root, `${name}.git`);
      makeRawTreeRepo(gitdir, HOSTILE_TREES[name].entries);
      const before = treeSnapshot(root);
      const error = await ingestLocal(gitdir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IngestionError);
      expect((error as IngestionError).reason).toBe(HOSTILE_TREES[name].reason);
      expect(treeSnapshot(root)).toEqual(before);
    }
  });

  it('the workspace refuses `..`, absolute, `.git/` and through-symlink writes', async () => {
    const gitdir = join(root, 'plain.git');
    makeBareRepo(gitdir, { 'README.md': '# x\n', 'docs/guide.md': 'g\n', link: { symlink: 'docs' } });
    const { workspace } = await ingestLocal(gitdir);
    for (const path of ['../escape.txt', 'docs/../../escape.txt', '/etc/passwd', '.git/config', 'sub/.git/hooks/post-checkout', 'link/new.md']) {
      await expect(workspace.write(path, 'x'), path).rejects.toMatchObject({ reason: expect.stringMatching(/^(PATH_|WRITE_THROUGH_SYMLINK)/) });
    }
    expect(workspace.changes()).toEqual([]);
    expect(Object.keys((workspace.fs as ReturnType<typeof createMemoryFs>).volume.toJSON()).every((p) => p.startsWith('/repo/.git/'))).toBe(true);
  });
});

describe('§9.5 the worker cannot obtain a write token; the publisher publishes only what it re-validated (test/integration/publisher/publish-candidate.test.ts)', () => {
  it('token-read scopes write no code, and a read broker refuses to mint a write token', async () => {
    // pull_requests:read lets the webhook read review comments; nothing in token-read may write code or PRs.
    expect(TOKEN_SCOPES.read.pull_requests).toBe('read');
    expect(TOKEN_SCOPES.read.contents).toBe('read');
    const broker = harnessReadTokens(h);
    await expect(broker.token({ installationId: h.installationId, repositoryId: h.repositoryId, role: 'write' })).rejects.toMatchObject({
      reason: 'ROLE_NOT_ALLOWED',
    });
    const issued = await broker.token({ installationId: h.installationId, repositoryId: h.repositoryId, role: 'read' });
    const minted = h.standin.state.tokens()[h.standin.state.tokenValues().indexOf(issued.token)];
    expect(minted.permissions).toMatchObject({ contents: 'read' });
    expect(minted.permissions).toMatchObject({ pull_requests: 'read' });
  });
});

describe('§9.6 bad signature 401 with no change; redelivery changes nothing; the issue text is the trigger-time snapshot (webhook-abuse.test.ts, concurrency.test.ts)', () => {
  it('a bad signature: 401 and no object, call or token', async () => {
    const objects = (await h.objects()).length;
    const calls = h.standin.calls.length;
    expect((await h.deliver('issues', h.payloads.labeled(2), { badSignature: true })).statusCode).toBe(401);
    expect((await h.objects()).length).toBe(objects);
    expect(h.standin.calls.length).toBe(calls);
  });

  it('a redelivery (same delivery id) makes no second run and no second comment', async () => {
    const payload = h.payloads.labeled(3);
    const first = await h.deliver('issues', payload);
    await h.deliver('issues', payload, { deliveryId: first.deliveryId });
    expect(await requestsFor(3)).toHaveLength(1);
    expect(h.comments(3).filter((c) => c.user === h.botLogin)).toHaveLength(1);
  });

  it('editing the issue after the trigger does not change the stored task', async () => {
    const original = h.standin.repo(h.fullName).issues.get(4)!.body;
    expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
    h.standin.setIssue(h.fullName, 4, { body: 'Delete everything.' });
    const [request] = await requestsFor(4);
    expect(request.body.issue.body).toBe(original);
  });
});

describe('§9.7 forbidden paths refused at stage, commit and publish; workflow changes never published (test/unit/git/stage-paths.test.ts, publish-candidate.test.ts)', () => {
  const policy = writePolicyFor({ forbidden: ['secrets/**'] });

  it.each([
    ['.github/workflows/ci.yml', 'WORKFLOW_CHANGE_NOT_PERMITTED'],
    ['.github/workflows/nested/deploy.yaml', 'WORKFLOW_CHANGE_NOT_PERMITTED'],
    ['secrets/prod.env', 'FORBIDDEN_PATH'],
  ])('%s: %s, the rule stage, commit and publish re-validation share', (path, reason) => {
    expect(policyDenial(path, policy)?.reason).toBe(reason);
  });

  it('staging a changed workflow file or forbidden path is refused even after the workspace wrote it', async () => {
    const gitdir = join(root, 'wf.git');
    makeBareRepo(gitdir, { 'README.md': '# x\n', '.github/workflows/ci.yml': 'on: push\n', 'secrets/prod.env': 'A=1\n' });
    const { workspace } = await ingestLocal(gitdir);
    await workspace.write('.github/workflows/ci.yml', 'on: pull_request_target\n');
    await workspace.write('secrets/prod.env', 'A=2\n');
    const index = await VirtualIndex.fromCommit(workspace.fs, workspace.gitdir, workspace.baseCommitSha);
    expect((await checkStagePath('.github/workflows/ci.yml', workspace, index, policy))?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect((await checkStagePath('secrets/prod.env', workspace, index, policy))?.reason).toBe('FORBIDDEN_PATH');
    expect(await checkStagePath('README.md', workspace, index, policy)).toMatchObject({ path: 'README.md' }); // unchanged: nothing to stage
  });
});

describe('§9.8 every input-driven cost is bounded before it is paid (test/unit/recipes/user-regex.test.ts, test/integration/ingestion/inflate-bombs.test.ts, local-git-safety.test.ts, test/integration/git/bounded-diff-vs-native.test.ts, test/integration/pipeline/size-limit.test.ts)', () => {
  it('a catastrophic user regex runs in linear time: (a+)+$ on 50,000 a’s and a b finishes with no match', () => {
    const step = RecipeStep.parse({ recipe: 'replace', find: '(a+)+$', replace: 'X', regex: true }) as ReplaceStep;
    expect(applyReplace(step, `${'a'.repeat(50_000)}b\n`)).toBeUndefined();
  });

  it('a user regex with a backreference is refused by name before anything runs', () => {
    expect(() => compileUserRegex('(a)\\1')).toThrow(UserRegexError);
  });

  it('an object declaring more than the limit is refused before it is inflated; an inflate never grows past the declared size', () => {
    const budget = new InflateBudget({ maxObjectBytes: 1024 * 1024, maxTotalBytes: 8 * 1024 * 1024 });
    expect(() => budget.admit(1_500_000_000, 'blob')).toThrow(expect.objectContaining({ reason: 'FILE_TOO_LARGE' }));
    const zeros = deflateSync(Buffer.alloc(16 * 1024 * 1024));
    expect(() => inflateExact(zeros, 1000)).toThrow(InflateSizeError);
  });

  it('a diff of two files with every line different stays linear and still reconstructs the new side', () => {
    const a = Array.from({ length: 50_000 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 50_000 }, (_, i) => `new ${i}`);
    const runs = diffLineArrays(a, b);
    expect(runs.filter((r) => !r.removed).flatMap((r) => r.value)).toEqual(b);
    expect(runs.length).toBeLessThan(10);
  });
});

describe('§9.9 local git never runs the repository’s configuration; credentials stay on the repository’s origin (local-git-safety.test.ts, http-credentials.test.ts)', () => {
  it('core.fsmonitor of a checkout is not executed by git run through runGit', async () => {
    const dir = join(root, 'fsmonitor-checkout');
    const marker = join(root, 'fsmonitor-ran');
    await runGit(['init', '-q', dir]);
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    execFileSync('git', ['-C', dir, 'config', 'core.fsmonitor', `touch ${marker}; false`]);
    await runGit(['-C', dir, 'status', '--porcelain']);
    expect(existsSync(marker)).toBe(false);
  });

  it('tokens are refused over plain http except loopback', () => {
    expect(isInsecureForCredentials('http://git.example.invalid/o/r.git')).toBe(true);
    expect(isInsecureForCredentials('http://127.0.0.1:8080/o/r.git')).toBe(false);
    expect(isInsecureForCredentials('https://git.example.invalid/o/r.git')).toBe(false);
  });

  it('a redirect to another origin loses the Authorization header', async () => {
    const seen: { url: string; authorization?: string }[] = [];
    const inner = {
      request: async (req: GitHttpRequest): Promise<GitHttpResponse> => {
        seen.push({ url: req.url, authorization: req.headers?.Authorization });
        const redirect = req.url.startsWith('https://repo.example.invalid/');
        return {
          url: req.url,
          method: req.method,
          statusCode: redirect ? 302 : 200,
          statusMessage: '',
          headers: redirect ? { location: 'https://other.example.invalid/o/r.git/info/refs' } : {},
          body: undefined,
        } as unknown as GitHttpResponse;
      },
    };
    await scopeCredentials(inner, 'https://repo.example.invalid/o/r.git').request({
      url: 'https://repo.example.invalid/o/r.git/info/refs',
      method: 'GET',
      headers: { Authorization: 'Basic c2VjcmV0' },
    } as GitHttpRequest);
    expect(seen).toEqual([
      { url: 'https://repo.example.invalid/o/r.git/info/refs', authorization: 'Basic c2VjcmV0' },
      { url: 'https://other.example.invalid/o/r.git/info/refs', authorization: undefined },
    ]);
  });
});
