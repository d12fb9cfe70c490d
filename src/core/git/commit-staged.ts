import git from 'isomorphic-git';
import { collectSymlinks } from '../paths/symlinks.js';
import type { WritePolicy } from '../paths/write-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { formatCommitMessage, type CommitMessageInput } from './commit-message.js';
import { GitBoundaryError, type GitBoundaryReason } from './git-boundary-error.js';
import { readHead, writeTreeFromFiles } from './git-objects.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import { describeFindings, scanChanges, type SecretFinding } from '../secrets/secret-scan.js';
import { policyDenial, type StageDenial } from './stage-paths.js';
import { commitSide, indexSide, type TreeSide } from './tree-side.js';
import { isPartialFailure, type VerificationReport } from './verification-report.js';
import type { VirtualIndex } from './virtual-index.js';

export interface GitIdentity {
  name: string;
  email: string;
}

export interface CommitRequest {
  workspace: Workspace;
  index: VirtualIndex;
  message: Omit<CommitMessageInput, 'verification'>;
  verification: VerificationReport;
  /** The policy's `agent.publishPartial`: a report whose only failures are PARTIAL_CHECKS may be committed. */
  publishPartial?: boolean;
  policy: WritePolicy;
  /** From configuration, never from the repository. */
  identity: GitIdentity;
  /** The attempt's createdAt (ISO 8601 or epoch ms): author and committer date. */
  createdAt: string | number;
  ledger?: LedgerSink;
}

export interface CommitResult {
  commitSha: string;
  treeSha: string;
  parentSha: string;
  message: string;
  branch?: string;
  files: { path: string; change: 'ADDED' | 'MODIFIED' | 'DELETED'; mode?: string; oid?: string }[];
}

/** Seconds since the epoch from the attempt's createdAt. */
export function commitTimestamp(createdAt: string | number): number {
  const ms = typeof createdAt === 'number' ? createdAt : Date.parse(createdAt);
  if (!Number.isFinite(ms)) throw new TypeError(`invalid createdAt: ${String(createdAt)}`);
  return Math.floor(ms / 1000);
}

/** The files that differ between two sides, `to` being the staged one. */
function changedFiles(from: TreeSide, to: TreeSide): CommitResult['files'] {
  const files: CommitResult['files'] = [];
  for (const path of new Set([...from.files.keys(), ...to.files.keys()])) {
    const f = from.files.get(path);
    const t = to.files.get(path);
    if (f && t && f.oid === t.oid && f.mode === t.mode) continue;
    files.push(t ? { path, change: f ? 'MODIFIED' : 'ADDED', mode: t.mode, oid: t.oid } : { path, change: 'DELETED' });
  }
  return files;
}

/** Secrets the change adds: each changed file's bytes before and after (submodules have none). */
async function scanStaged(files: CommitResult['files'], before: TreeSide, after: TreeSide, policy: WritePolicy): Promise<SecretFinding[]> {
  return scanChanges(
    await Promise.all(
      files.map(async (f) => ({
        path: f.path,
        oldBytes: before.files.has(f.path) && before.files.get(f.path)!.mode !== '160000' ? await before.read(f.path) : undefined,
        newBytes: f.oid && f.mode !== '160000' ? await after.read(f.path) : undefined,
      })),
    ),
    policy,
  );
}

const decoder = new TextDecoder();

/**
 * Commit the virtual index on the agent branch, built from trees (writeTree -> writeCommit;
 * never isomorphic-git's index). The parent is the base commit, so a run's change is always
 * one commit on the base. Refuses (GitBoundaryError) when nothing is staged, the message is
 * empty, a staged path is denied, the secret scan finds something, or verification failed.
 * The same index, message, identity and createdAt give the same commit SHA.
 */
export async function commitStaged(request: CommitRequest): Promise<CommitResult> {
  const { workspace, index, policy, ledger } = request;
  const { fs, gitdir } = workspace;
  const refuse = async (reason: GitBoundaryReason, message: string, data: Record<string, unknown>): Promise<never> => {
    await ledger?.append({ actor: GIT_ACTOR, type: 'git.commit.refused', payload: { runId: request.message.runId, reason, ...data } });
    throw new GitBoundaryError(reason, message, data);
  };

  const head = await readHead(fs, gitdir, workspace.baseCommitSha);
  const headSha = head.sha ?? workspace.baseCommitSha;
  const idx = indexSide(fs, gitdir, index);
  let before = await commitSide(fs, gitdir, headSha);
  let files = changedFiles(before, idx);
  if (files.length === 0) return refuse('NOTHING_STAGED', 'nothing is staged', {});
  // The commit's parent is the base: report, check and scan the whole change against it.
  if (headSha !== workspace.baseCommitSha) {
    before = await commitSide(fs, gitdir, workspace.baseCommitSha);
    files = changedFiles(before, idx);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));

  let message: string;
  try {
    message = formatCommitMessage({ ...request.message, verification: request.verification });
  } catch (error) {
    if (error instanceof GitBoundaryError) return refuse(error.reason, error.message, error.data);
    throw error;
  }

  // A path under a symlinked directory of the base is judged on where it lands as well.
  const symlinks = await collectSymlinks(before.files, async (p) => decoder.decode(await before.read(p)));
  const denials = files.map((f) => policyDenial(f.path, policy, symlinks)).filter((d): d is StageDenial => d !== undefined);
  if (denials.length > 0) return refuse('DENIED_PATH_STAGED', `denied path(s) staged: ${denials.map((d) => d.path).join(', ')}`, { denials });

  const findings = await scanStaged(files, before, idx, policy);
  if (findings.length > 0) return refuse('SECRET_DETECTED', `potential secret(s) in the staged diff: ${describeFindings(findings)}`, { findings });

  if (request.verification.status === 'FAILED' && !(request.publishPartial && isPartialFailure(request.verification))) {
    const failed = request.verification.checks.filter((c) => c.status === 'FAILED').map((c) => c.name);
    return refuse('VERIFICATION_FAILED', 'the required verification failed', { failed });
  }

  const treeSha = await writeTreeFromFiles(fs, gitdir, index.files(), { changedPaths: files.map((f) => f.path) });
  const when = { timestamp: commitTimestamp(request.createdAt), timezoneOffset: 0 };
  const person = { name: request.identity.name, email: request.identity.email, ...when };
  const parentSha = workspace.baseCommitSha;
  const commitSha = await git.writeCommit({ fs, gitdir, commit: { message, tree: treeSha, parent: [parentSha], author: person, committer: person } });
  await git.writeRef({ fs, gitdir, ref: head.branch ? `refs/heads/${head.branch}` : 'HEAD', value: commitSha, force: true });

  await ledger?.append({
    actor: GIT_ACTOR,
    type: 'git.commit.created',
    payload: {
      runId: request.message.runId,
      branch: head.branch,
      commitSha,
      treeSha,
      parentSha,
      filesChanged: files.length,
      files: files.map((f) => ({ path: f.path, change: f.change })),
    },
  });
  return { commitSha, treeSha, parentSha, message, ...(head.branch ? { branch: head.branch } : {}), files };
}
