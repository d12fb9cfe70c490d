import git from 'isomorphic-git';
import type { ArtifactStore } from '../ports.js';
import type { Workspace } from '../workspace/workspace.js';
import type { DiffSummary } from './git-diff.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { commitTree } from './git-objects.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import { PrCandidate, DiffSummarySchema, type CandidateFile } from './pr-candidate.js';
import type { RiskReport } from '../risk/risk-score.js';
import { blobSha } from '../objects/tree-hash.js';
import { treeSide } from './tree-side.js';
import type { JudgeVerdict, VerificationReport } from './verification-report.js';

export interface BuildCandidateInput {
  workspace: Workspace;
  /** The local commit on the agent branch (parent = base). */
  headCommitSha: string;
  commitMessage: string;
  title: string;
  /** Rendered elsewhere (the run report); stored as `pr-body.md` and in the candidate. */
  body: string;
  baseBranch: string;
  headBranch: string;
  labels: string[];
  /** From CODEOWNERS, resolved by the caller. */
  reviewers: string[];
  diffSummary: DiffSummary;
  verification: VerificationReport;
  judge: JudgeVerdict | null;
  risk: RiskReport;
  runId: string;
  attempt: number;
}

/**
 * Build the PR candidate from the base and head trees, and collect the bytes of each new blob.
 * No remote call: the publisher turns this into a draft PR.
 */
export async function buildPrCandidate(input: BuildCandidateInput): Promise<{ candidate: PrCandidate; changes: Map<string, Uint8Array> }> {
  const { workspace } = input;
  const { fs, gitdir } = workspace;
  const headTreeSha = await commitTree(fs, gitdir, input.headCommitSha);
  const base = await treeSide(fs, gitdir, workspace.baseTreeSha);
  const head = await treeSide(fs, gitdir, headTreeSha);
  const files: CandidateFile[] = [];
  const changes = new Map<string, Uint8Array>();
  const paths = [...new Set([...base.files.keys(), ...head.files.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    const b = base.files.get(path);
    const h = head.files.get(path);
    if (b && h && b.oid === h.oid && b.mode === h.mode) continue;
    if (!h) {
      files.push({ path, deleted: true });
      continue;
    }
    if (h.mode === '160000') throw new GitBoundaryError('SUBMODULE_CHANGE_NOT_PERMITTED', 'submodule pointers cannot change', { path });
    files.push({ path, mode: h.mode as '100644' | '100755' | '120000', blobSha: h.oid });
    if (!changes.has(h.oid)) changes.set(h.oid, (await git.readBlob({ fs, gitdir, oid: h.oid })).blob);
  }
  const candidate = PrCandidate.parse({
    schemaVersion: 1,
    title: input.title,
    body: input.body,
    baseBranch: input.baseBranch,
    headBranch: input.headBranch,
    baseCommitSha: workspace.baseCommitSha,
    headCommitSha: input.headCommitSha,
    headTreeSha,
    commitMessage: input.commitMessage,
    files,
    labels: input.labels,
    reviewers: input.reviewers,
    draft: true,
    diffSummary: input.diffSummary,
    verification: input.verification,
    judge: input.judge,
    risk: input.risk,
    runId: input.runId,
    attempt: input.attempt,
  });
  return { candidate, changes };
}

/** Storage keys for one candidate (`runs/<o>/<r>/<runId>/candidate/...`), given by the caller. */
export interface CandidateKeys {
  candidate: string;
  body: string;
  diffSummary: string;
  /** Prefix of `changes/<blob sha>` keys, ending in `/`. */
  changesPrefix: string;
}

/**
 * Write a candidate through the ArtifactStore: every new blob under `changes/<sha>` (bytes
 * checked against their id), `pr-body.md`, `diff-summary.json`, and `pr-candidate.json` LAST,
 * because its creation triggers the publisher. Everything is validated before the first write.
 */
export async function writePrCandidate(options: {
  store: ArtifactStore;
  keys: CandidateKeys;
  candidate: PrCandidate;
  changes: Map<string, Uint8Array>;
  ledger?: LedgerSink;
}): Promise<{ keys: string[] }> {
  const { store, keys, changes, ledger } = options;
  const candidate = PrCandidate.parse(options.candidate);
  const summary = DiffSummarySchema.parse(candidate.diffSummary);
  for (const f of candidate.files) {
    if (!('blobSha' in f)) continue;
    const bytes = changes.get(f.blobSha);
    if (!bytes) throw new GitBoundaryError('BLOB_MISSING', 'a candidate blob has no bytes', { path: f.path, blobSha: f.blobSha });
    if (blobSha(bytes) !== f.blobSha)
      throw new GitBoundaryError('BLOB_MISMATCH', 'candidate blob bytes do not hash to their id', { path: f.path, blobSha: f.blobSha });
  }
  const written: string[] = [];
  for (const sha of [...new Set(candidate.files.flatMap((f) => ('blobSha' in f ? [f.blobSha] : [])))].sort()) {
    const key = `${keys.changesPrefix}${sha}`;
    await store.put(key, changes.get(sha)!, { contentType: 'application/octet-stream' });
    written.push(key);
  }
  await store.put(keys.body, candidate.body, { contentType: 'text/markdown; charset=utf-8' });
  written.push(keys.body);
  await store.put(keys.diffSummary, `${JSON.stringify({ schemaVersion: 1, ...summary }, null, 2)}\n`, { contentType: 'application/json' });
  written.push(keys.diffSummary);
  await store.put(keys.candidate, `${JSON.stringify(candidate, null, 2)}\n`, { contentType: 'application/json' });
  written.push(keys.candidate);
  await ledger?.append({
    actor: GIT_ACTOR,
    type: 'git.candidate.written',
    payload: {
      runId: candidate.runId,
      attempt: candidate.attempt,
      headBranch: candidate.headBranch,
      headCommitSha: candidate.headCommitSha,
      headTreeSha: candidate.headTreeSha,
      files: candidate.files.length,
    },
    evidenceRefs: written,
  });
  return { keys: written };
}
