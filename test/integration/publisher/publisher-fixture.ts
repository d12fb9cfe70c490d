import { afterAll, afterEach, beforeAll } from 'vitest';
import type { S3Event } from 'aws-lambda';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { S3ArtifactStore } from '../../../src/app/aws/s3-artifact-store.js';
import { createGitHubApi } from '../../../src/app/github/github-api.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { createPublisherHandler, type PublisherResult } from '../../../src/app/publisher/create-publisher-handler.js';
import type { CiRecorderDeps } from '../../../src/app/publisher/ci-feedback.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import { writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { issueLatestKey, lockKey, runKeys, type RunKeys } from '../../../src/core/artifacts/keys.js';
import { commitStaged } from '../../../src/core/git/commit-staged.js';
import { diffBaseToHead } from '../../../src/core/git/git-diff.js';
import type { PrCandidate } from '../../../src/core/git/pr-candidate.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import { buildPrCandidate, writePrCandidate } from '../../../src/core/git/write-pr-candidate.js';
import { renderVerificationSection, replaceVerificationSection } from '../../../src/core/phases/verification-section.js';
import type { FsLike } from '../../../src/core/ports.js';
import { RunRecord, RunRequest } from '../../../src/core/runs/run-request.js';
import { IssueLatest, IssueLock } from '../../../src/core/runs/run-state.js';
import { shortId } from '../../../src/core/util/digest.js';
import { openWorkspace, type FileMode } from '../../../src/core/workspace/workspace.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin, type RecordedCall } from '../../helpers/github-standin/index.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { fixedClock, testAppKey } from '../github/standin-fixture.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

export const OWNER = 'acme';
export const REPO = 'widgets';
export const FULL = `${OWNER}/${REPO}`;
export const REPO_ID = 11;
export const INSTALLATION_ID = 1;
export const APP_ID = 31;
export const keyPair = testAppKey();

/** The trusted policy on the default branch; `infra/**` is forbidden; `agentLines` are more keys under `agent:`. */
export function policyYaml(baseMovementPolicy: 'rerun' | 'warn' | 'fail' = 'rerun', agentLines: string[] = []): string {
  return [
    'version: 1',
    'agent:',
    '  forbiddenPaths: [".github/workflows/**", ".agent-policy.yaml", "infra/**"]',
    ...agentLines.map((line) => `  ${line}`),
    '  build:',
    '    commands: ["npm test"]',
    '    defaultVerifier: npm',
    `baseMovementPolicy: ${baseMovementPolicy}`,
    '',
  ].join('\n');
}

export const BASE_FILES: Record<string, string | { content: string; mode: '100644' | '100755' | '120000' }> = {
  'README.md': '# widgets\n',
  'src/greet.ts': 'export const greet = (name: string) => `Hello, ${name}`;\n',
  'src/old.ts': 'export const old = 1;\n',
  'scripts/run.sh': { content: '#!/bin/sh\necho run\n', mode: '100755' },
  'infra/main.tf': 'resource "x" "y" {}\n',
  // The workflows directory is a link to ci/: ci/** is workflow content.
  '.github/workflows': { content: '../ci', mode: '120000' },
  'ci/build.yml': 'on: push\n',
  // Line 2 looks like a secret to a whole-file scan; only added lines may be refused.
  'config/schema.xml':
    '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">\n  <version>1.0.0</version>\n</project>\n',
};

/** Write calls: anything that changes the repository. */
export function writesTo(calls: RecordedCall[]): RecordedCall[] {
  return calls.filter((c) => c.method !== 'GET' && /^\/repos\/[^/]+\/[^/]+\/(git\/(blobs|trees|commits|refs)|pulls)/.test(c.path));
}

export interface Scenario {
  standin: GitHubStandin;
  clock: ReturnType<typeof fixedClock>;
  store: S3ArtifactStore;
  logger: CapturingLogger;
  handler: (event: unknown) => Promise<PublisherResult[]>;
  readDeps: CiRecorderDeps;
  runId: string;
  issue: number;
  keys: RunKeys;
  branch: string;
  progressCommentId: number;
  events: S3Event[];
  stop(): Promise<void>;
}

/** A stand-in with the seeded repository, a write-role publisher handler over s3rver, and the run's snapshot. */
export async function startScenario(
  s3: S3TestServer,
  options: { runId: string; issue: number; policy?: 'rerun' | 'warn' | 'fail'; agentPolicy?: string[]; collaborators?: Record<string, 'write' | 'read'> },
): Promise<Scenario> {
  // Runs get ids of the shape the webhook gives them (12 base32 characters); the publisher refuses other keys.
  const runId = shortId('publisher-fixture', options.runId);
  const clock = fixedClock();
  const standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keyPair.privateKeyPem,
    clock,
    repos: [
      {
        owner: OWNER,
        name: REPO,
        id: REPO_ID,
        installationId: INSTALLATION_ID,
        files: { ...BASE_FILES, '.agent-policy.yaml': policyYaml(options.policy, options.agentPolicy) },
        collaborators: options.collaborators ?? { alice: 'write' },
        issues: [{ number: options.issue, title: 'Greet politely', body: 'Please make the greeting polite.', labels: ['agent:run'] }],
      },
    ],
  });
  const store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => {} });
  const logger = new CapturingLogger();
  const github = (token: string) => createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY });
  const tokenOptions = { appId: APP_ID, apiUrl: standin.url, clock, loadPrivateKey: async () => keyPair.privateKeyPem, policy: STANDIN_GITHUB_POLICY };
  const handler = createPublisherHandler({ store, tokens: new InProcessTokenBroker({ ...tokenOptions, role: 'write' }), github, clock, logger });
  const readDeps: CiRecorderDeps = { store, tokens: new InProcessTokenBroker({ ...tokenOptions, role: 'read' }), github, clock, logger };
  const events: S3Event[] = [];
  const unsubscribe = s3.onEvent((e) => events.push(e));

  const keys = runKeys(OWNER, REPO, runId);
  const branch = `agent/i${options.issue}/r${runId}`;
  // The progress comment the webhook posted, put straight into the stand-in (no recorded call).
  const repoState = standin.repo(FULL);
  const progressCommentId = 5000 + options.issue;
  const bot = standin.state.users.get('draftsman[bot]')!;
  repoState.comments.set(progressCommentId, {
    id: progressCommentId,
    issueNumber: options.issue,
    body: 'queued',
    user: bot,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  const createdAt = new Date(clock.now()).toISOString();
  await writeArtifact(store, keys.request, RunRequest, {
    schemaVersion: 1,
    runId: runId,
    owner: OWNER,
    repo: REPO,
    source: { kind: 'github', repositoryId: REPO_ID, installationId: INSTALLATION_ID, cloneUrl: `${standin.url}/${FULL}.git`, apiUrl: standin.url },
    trigger: { kind: 'label', key: `label-${runId}`, sender: 'alice' },
    issue: { number: options.issue, title: 'Greet politely', body: 'Please make the greeting polite.', updatedAt: createdAt, progressCommentId },
    agentBranch: branch,
    createdAt,
  });
  await writeArtifact(store, keys.run, RunRecord, {
    schemaVersion: 1,
    runId: runId,
    status: 'COMPLETED',
    attempt: 1,
    attempts: [{ n: 1, status: 'COMPLETED', startedAt: createdAt }],
    agentBranch: branch,
    progressCommentId,
    updatedAt: createdAt,
  });
  await writeArtifact(store, lockKey(OWNER, REPO, options.issue), IssueLock, {
    schemaVersion: 1,
    runId: runId,
    attempt: 1,
    acquiredAt: createdAt,
    expiresAt: new Date(clock.now() + 3_600_000).toISOString(),
  });
  await writeArtifact(store, issueLatestKey(OWNER, REPO, options.issue), IssueLatest, {
    schemaVersion: 1,
    runId: runId,
    attempt: 1,
    progressCommentId,
    updatedAt: createdAt,
  });
  return {
    standin,
    clock,
    store,
    logger,
    handler,
    readDeps,
    runId: runId,
    issue: options.issue,
    keys,
    branch,
    progressCommentId,
    events,
    async stop() {
      unsubscribe();
      await standin.stop();
    },
  };
}

/** Copy a bare repository from disk into the in-memory file system, as a fetch would leave it. */
async function copyIn(fs: FsLike, from: string, to: string): Promise<void> {
  await fs.promises.mkdir(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) await copyIn(fs, src, `${to}/${name}`);
    else await fs.promises.writeFile(`${to}/${name}`, readFileSync(src));
  }
}

export type Edit = string | { content: string; mode: FileMode } | null;

/**
 * Build the candidate the way the worker does: the stand-in's objects in memfs, an
 * object-backed workspace on the base commit, stage, commit (dated by createdAt), diff,
 * buildPrCandidate, writePrCandidate (pr-candidate.json last). `policy` is the worker's view.
 */
export async function writeCandidate(
  s: Scenario,
  edits: Record<string, Edit>,
  options: { attempt?: number; forbidden?: string[]; runId?: string; branch?: string } = {},
): Promise<{ candidate: PrCandidate; baseCommitSha: string }> {
  const fs = createMemoryFs();
  const gitdir = '/repo.git';
  await copyIn(fs, join(s.standin.gitRoot, OWNER, `${REPO}.git`), gitdir);
  const baseCommitSha = (await s.standin.resolve(FULL, 'main'))!;
  const workspace = await openWorkspace({ fs, gitdir, commitSha: baseCommitSha });
  for (const [path, edit] of Object.entries(edits)) {
    if (edit === null) await workspace.delete(path);
    else if (typeof edit === 'string') await workspace.write(path, edit);
    else await workspace.write(path, edit.content, edit.mode);
  }
  const policy = writePolicyFor({ forbidden: options.forbidden ?? [] });
  const index = await VirtualIndex.fromCommit(fs, gitdir, baseCommitSha);
  await stagePaths({ workspace, index, paths: Object.keys(edits), policy, runId: s.runId });
  const verification = {
    status: 'PASSED' as const,
    checks: [{ name: 'parse', status: 'PASSED' as const }],
    notRun: [{ name: 'npm test', why: 'draftsman never runs build commands; CI does' }],
  };
  const commit = await commitStaged({
    workspace,
    index,
    message: {
      type: 'fix',
      summary: 'make the greeting polite',
      task: 'Greet politely',
      intent: 'polite greeting',
      risk: [],
      runId: s.runId,
      taskId: 'task-digest',
    },
    verification,
    policy,
    identity: { name: 'draftsman', email: 'draftsman@example.invalid' },
    createdAt: '2025-06-01T12:00:00Z',
  });
  const diff = await diffBaseToHead(workspace, { rules: defaultPathRules() });
  const section = renderVerificationSection({
    checks: [{ name: 'parse', status: 'PASSED' }],
    notRun: verification.notRun,
    ciCommands: ['npm test'],
    verifier: 'npm',
  });
  const body = replaceVerificationSection('# Make the greeting polite\n\nSummary of the change.\n', section);
  const { candidate, changes } = await buildPrCandidate({
    workspace,
    headCommitSha: commit.commitSha,
    commitMessage: commit.message,
    title: 'fix: make the greeting polite',
    body,
    baseBranch: 'main',
    headBranch: options.branch ?? s.branch,
    labels: ['draftsman'],
    reviewers: ['alice', 'mallory'],
    diffSummary: diff.summary,
    verification,
    judge: null,
    risk: { riskScore: 1, riskLevel: 'LOW', reasons: [], requiredGate: 'NONE' },
    runId: options.runId ?? s.runId,
    attempt: options.attempt ?? 1,
  });
  const k = s.keys.candidate;
  await writePrCandidate({
    store: s.store,
    keys: { candidate: k.prCandidate, body: k.prBody, diffSummary: k.diffSummary, changesPrefix: k.changesPrefix },
    candidate,
    changes,
  });
  return { candidate, baseCommitSha };
}

/** Deliver the newest S3 ObjectCreated notification for `key` to the publisher, as Lambda would. */
export async function deliver(s: Scenario, key: string): Promise<PublisherResult[]> {
  for (let i = 0; i < 50; i++) {
    const event = [...s.events]
      .reverse()
      .find((e) => e.Records.some((r) => decodeURIComponent(r.s3.object.key.replace(/\+/g, ' ')) === key && r.eventName.startsWith('ObjectCreated')));
    if (event) return s.handler(event);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no ObjectCreated event for ${key}`);
}

/** Move the default branch on: a new commit with the same tree (the policy is unchanged). */
export async function moveBase(s: Scenario): Promise<string> {
  const git = s.standin.repo(FULL).git;
  const head = (await git.readRef('refs/heads/main'))!;
  const commit = (await git.readCommit(head))!;
  const sig = { name: 'Human', email: 'human@example.invalid', timestamp: 1_750_000_000, tz: '+0000' };
  const next = await git.writeCommit({ tree: commit.tree, parents: [head], author: sig, committer: sig, message: 'unrelated change\n' });
  await git.updateRef('refs/heads/main', next, head);
  return next;
}

/**
 * One S3-compatible server for a test file and one scenario at a time, stopped after each
 * test: `start` takes the options of `startScenario`.
 */
export function usePublisherScenarios(): { start: (options: Parameters<typeof startScenario>[1]) => Promise<Scenario> } {
  let s3: S3TestServer;
  let current: Scenario | undefined;
  beforeAll(async () => {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.stop();
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return {
    start: async (options) => {
      current = await startScenario(s3, options);
      return current;
    },
  };
}
