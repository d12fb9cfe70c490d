import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { trustedAttemptState } from '../../../src/core/runs/attempts.js';
import { createGitHubApi } from '../../../src/app/github/github-api.js';
import { STANDIN_GITHUB_POLICY } from '../../helpers/github-standin/index.js';
import { LocalPublisher, readLocalBase, readLocalPolicy } from '../../../src/app/local/local-publisher.js';
import { nodeFs } from '../../../src/app/local/node-fs.js';
import { GitHubPublisher } from '../../../src/app/publisher/github-publisher.js';
import { readCandidateBlobs, readGitHubBase, readGitHubTarget, readRunControls, readTrustedPolicy } from '../../../src/app/publisher/github-state.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { readArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { PrCandidate } from '../../../src/core/git/pr-candidate.js';
import { blobSha } from '../../../src/core/objects/tree-hash.js';
import { storageBinding } from '../../../src/core/publish/check-binding.js';
import { planPublication } from '../../../src/core/publish/plan-publication.js';
import type { BaseState, PublicationDecision, PublicationPlan } from '../../../src/core/publish/publication.js';
import { RunRequest } from '../../../src/core/runs/run-request.js';
import { makeTempDir, nativeGit, removeDir } from '../../helpers/git-materialize.js';
import {
  APP_ID,
  BASE_FILES,
  FULL,
  keyPair,
  moveBase,
  OWNER,
  REPO,
  usePublisherScenarios,
  writeCandidate,
  type Edit,
  type Scenario,
} from './publisher-fixture.js';

/**
 * The same candidate decided from the base as GitHub reports it and as a local copy of the same
 * repository has it, then applied by each adapter: the same plan, the same tree; a candidate one
 * side refuses, the other refuses with the same reason and evidence.
 */
const scenarios = usePublisherScenarios();
let seq = 0;
const dirs: string[] = [];

afterEach(() => {
  dirs.splice(0).forEach(removeDir);
});

async function scenarioWith(policy: 'rerun' | 'warn' = 'rerun'): Promise<Scenario> {
  seq += 1;
  const scenario = await scenarios.start({ runId: `agree${seq}run`, issue: 70 + seq, policy, agentPolicy: ['requireApprovalFor: ["src/polite.ts"]'] });
  return scenario;
}

/** A bare copy of the stand-in's repository on disk, as `--publish` would find it. */
function localCopy(s: Scenario): string {
  const parent = makeTempDir();
  dirs.push(parent);
  const dir = join(parent, 'widgets.git');
  cpSync(join(s.standin.gitRoot, OWNER, `${REPO}.git`), dir, { recursive: true });
  return dir;
}

/**
 * Decide from the run's store with the base and the trusted policy read from GitHub or from
 * the local copy. The target (what the run is bound to) is GitHub's in both: only the source
 * of the base differs.
 */
async function decide(
  s: Scenario,
  from: { github: true } | { gitdir: string },
  options: { truncatedListingWithout?: string[] } = {},
): Promise<{ decision: PublicationDecision; api: ReturnType<typeof createGitHubApi>; base?: BaseState }> {
  const request = await readArtifact(s.store, s.keys.request, RunRequest);
  const raw: unknown = JSON.parse(new TextDecoder().decode((await s.store.get(s.keys.candidate.prCandidate))!.body));
  const candidate = PrCandidate.parse(raw);
  if (request.source.kind !== 'github') throw new Error('GitHub run expected');
  const tokens = new InProcessTokenBroker({
    appId: APP_ID,
    apiUrl: s.standin.url,
    clock: s.clock,
    loadPrivateKey: async () => keyPair.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
    role: 'write',
  });
  const issued = await tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'write' });
  const api = createGitHubApi({ token: issued.token, baseUrl: s.standin.url, policy: STANDIN_GITHUB_POLICY });
  const left = options.truncatedListingWithout;
  if (left) {
    // GitHub truncates the recursive listing of very large trees; here the named paths fall off it.
    const getTree = api.rest.git.getTree;
    api.rest.git.getTree = (async (params: Parameters<typeof getTree>[0]) => {
      const res = await getTree(params);
      return { ...res, data: { ...res.data, truncated: true, tree: res.data.tree.filter((e) => !left.includes(e.path ?? '')) } };
    }) as typeof getTree;
  }
  const repo = { api, owner: OWNER, repo: REPO };
  const { target, defaultBranch, defaultHead } = await readGitHubTarget(repo, issued);
  const controls = await readRunControls(s.store, s.keys, s.runId, candidate.attempt);
  const common = {
    binding: storageBinding(s.keys.prefix),
    request,
    candidate: raw,
    target,
    blobs: await readCandidateBlobs(s.store, s.keys, candidate),
    attemptState: await trustedAttemptState(s.store, s.keys, s.runId, candidate.attempt),
    ...controls,
  };
  const base = 'github' in from ? await readGitHubBase(repo, candidate, defaultBranch, defaultHead) : undefined;
  const decision = base
    ? await planPublication({ ...common, trustedPolicy: await readTrustedPolicy(repo, defaultBranch), base })
    : await planPublication({
        ...common,
        trustedPolicy: await readLocalPolicy(nodeFs, (from as { gitdir: string }).gitdir, defaultHead),
        base: await readLocalBase(nodeFs, (from as { gitdir: string }).gitdir, candidate),
      });
  return { decision, api, base };
}

function planOf(decision: PublicationDecision): PublicationPlan {
  if (decision.kind !== 'publish') throw new Error(`not a plan: ${JSON.stringify(decision)}`);
  return decision.plan;
}

/** A plan as comparable data: blob ids, the tree (sorted), parent, ref, PR text. */
function comparable(plan: PublicationPlan) {
  return {
    ...plan,
    blobs: plan.blobs.map((b) => b.sha),
    tree: { ...plan.tree, files: [...(plan.tree.files ?? [])].sort((a, b) => a.path.localeCompare(b.path)) },
  };
}

const EDITS: Record<string, Edit> = {
  'src/greet.ts': 'export const greet = (name: string) => `Good day, ${name}`;\n',
  'src/old.ts': null,
  'scripts/run.sh': { content: '#!/bin/sh\necho run politely\n', mode: '100755' },
  'docs/link.md': { content: '../README.md', mode: '120000' },
};

describe('the GitHub and local publishers apply the same decision', () => {
  it('the same candidate gives the same plan and, through both adapters, the same tree on the same parent', async () => {
    const s = await scenarioWith();
    const { candidate, baseCommitSha } = await writeCandidate(s, EDITS);
    const gitdir = localCopy(s);
    const fromGitHub = await decide(s, { github: true });
    const fromLocal = await decide(s, { gitdir });
    const githubPlan = planOf(fromGitHub.decision);
    const localPlan = planOf(fromLocal.decision);
    expect(comparable(localPlan)).toEqual(comparable(githubPlan));

    const onGitHub = await new GitHubPublisher({ api: fromGitHub.api, owner: OWNER, repo: REPO, logger: s.logger }).apply(githubPlan);
    const onDisk = await new LocalPublisher({
      fs: nodeFs,
      gitdir,
      identity: { name: 'draftsman', email: 'draftsman@example.invalid' },
      createdAt: '2025-06-01T12:00:00Z',
    }).apply(localPlan);

    const repo = s.standin.repo(FULL);
    const githubHead = (await repo.git.readRef(`refs/heads/${s.branch}`))!;
    expect(onGitHub).toMatchObject({ branch: s.branch, commitSha: githubHead, treeSha: candidate.headTreeSha, created: true });
    expect((await repo.git.readCommit(githubHead))!).toMatchObject({ tree: candidate.headTreeSha, parents: [baseCommitSha] });
    expect(onDisk).toMatchObject({ branch: s.branch, commitSha: candidate.headCommitSha, treeSha: candidate.headTreeSha, created: true });
    expect(
      nativeGit(gitdir, ['rev-parse', `${s.branch}^{tree}`, `${s.branch}^`])
        .toString()
        .trim()
        .split('\n'),
    ).toEqual([candidate.headTreeSha, baseCommitSha]);
    nativeGit(gitdir, ['fsck', '--strict', '--no-dangling']);

    // Applying the same plan again is a no-op on both sides.
    expect(
      await new LocalPublisher({
        fs: nodeFs,
        gitdir,
        identity: { name: 'draftsman', email: 'draftsman@example.invalid' },
        createdAt: '2025-06-01T12:00:00Z',
      }).apply(localPlan),
    ).toMatchObject({ created: false });
    expect(await new GitHubPublisher({ api: fromGitHub.api, owner: OWNER, repo: REPO, logger: s.logger }).apply(githubPlan)).toMatchObject({
      created: false,
      commitSha: githubHead,
    });
    expect(repo.pulls.size).toBe(1);
  });

  it('reads the base of a changed path that a truncated tree listing leaves out, so only added lines are scanned', async () => {
    const s = await scenarioWith();
    const schema = BASE_FILES['config/schema.xml'] as string;
    await writeCandidate(s, { 'config/schema.xml': schema.replace('1.0.0', '1.1.0') });
    const { decision: full, base: listed } = await decide(s, { github: true });
    const { decision: truncated, base } = await decide(s, { github: true }, { truncatedListingWithout: ['config/schema.xml'] });
    expect(base!.baseFiles).toBeUndefined();
    expect(new TextDecoder().decode(base!.baseBytes.get('config/schema.xml'))).toBe(schema);
    expect(base!.baseBytes).toEqual(listed!.baseBytes);
    expect(truncated.kind).toBe('publish');
    expect(full.kind).toBe('publish');
  });

  it.each([
    {
      name: 'a forbidden path',
      tamper: async (s: Scenario) => void (await writeCandidate(s, { 'infra/main.tf': 'resource "x" "z" {}\n' })),
      kind: 'refuse',
      reason: 'REVALIDATION_FAILED',
    },
    {
      name: 'a token on an added line',
      tamper: async (s: Scenario) => {
        // The worker's own scan would stop this at commit; a compromised worker writes it anyway.
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        const bytes = new TextEncoder().encode(`export const greet = () => "hi";\nexport const token = "${'ghp_'}aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";\n`);
        await s.store.put(s.keys.candidate.change(blobSha(bytes)), bytes);
        const files = candidate.files.map((f) => (f.path === 'src/greet.ts' ? { ...f, blobSha: blobSha(bytes) } : f));
        await s.store.put(s.keys.candidate.prCandidate, JSON.stringify({ ...candidate, files }));
      },
      kind: 'refuse',
      reason: 'REVALIDATION_FAILED',
    },
    {
      name: 'an edit that reaches workflow content through a base symlink',
      tamper: async (s: Scenario) => {
        // `.github/workflows -> ../ci` on the base: a compromised worker's candidate edits ci/build.yml.
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        const bytes = new TextEncoder().encode('on: pull_request_target\n');
        await s.store.put(s.keys.candidate.change(blobSha(bytes)), bytes);
        const files = candidate.files.map((f) => (f.path === 'src/greet.ts' ? { ...f, path: 'ci/build.yml', blobSha: blobSha(bytes) } : f));
        await s.store.put(s.keys.candidate.prCandidate, JSON.stringify({ ...candidate, files }));
      },
      kind: 'refuse',
      reason: 'REVALIDATION_FAILED',
    },
    {
      name: 'a path the trusted policy requires approval for',
      tamper: async (s: Scenario) => void (await writeCandidate(s, { 'src/polite.ts': 'export const polite = true;\n' })),
      kind: 'refuse',
      reason: 'APPROVAL_REQUIRED',
    },
    {
      name: 'a headTreeSha the files do not give',
      tamper: async (s: Scenario) => {
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        await s.store.put(s.keys.candidate.prCandidate, JSON.stringify({ ...candidate, headTreeSha: candidate.headCommitSha }));
      },
      kind: 'refuse',
      reason: 'TREE_MISMATCH',
    },
    {
      name: 'a base that moved (policy rerun)',
      tamper: async (s: Scenario) => {
        await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        await moveBase(s);
      },
      kind: 'rerun',
      reason: undefined,
    },
    {
      name: 'an edit below a line that only a whole-file scan would call a secret',
      tamper: async (s: Scenario) =>
        void (await writeCandidate(s, { 'config/schema.xml': (BASE_FILES['config/schema.xml'] as string).replace('1.0.0', '1.1.0') })),
      kind: 'publish',
      reason: undefined,
    },
  ])('$name: both sides decide the same ($kind $reason)', async ({ tamper, kind, reason }) => {
    const s = await scenarioWith();
    await tamper(s);
    const gitdir = localCopy(s);
    const { decision: github } = await decide(s, { github: true });
    const { decision: local } = await decide(s, { gitdir });
    expect(github.kind).toBe(kind);
    expect(local.kind).toBe(kind);
    if (github.kind === 'refuse' && local.kind === 'refuse') {
      expect(github.error.reason).toBe(reason);
      expect(local.error.reason).toBe(github.error.reason);
      expect(local.error.data.problems).toEqual(github.error.data.problems);
      if (reason === 'REVALIDATION_FAILED' && JSON.stringify(github.error.data).includes('SECRET_DETECTED')) {
        expect(github.error.data.problems).toEqual([
          expect.objectContaining({ reason: 'SECRET_DETECTED', rule: 'github-token', path: 'src/greet.ts', line: 2 }),
        ]);
      }
      expect(JSON.stringify(local.error)).not.toContain('aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5');
    } else if (github.kind === 'publish' && local.kind === 'publish') {
      expect(comparable(local.plan)).toEqual(comparable(github.plan));
    } else expect(local).toEqual(github);
  });
});
