import type { BaseTreeFile } from '../git/rebuild-tree.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import type { FollowUp } from '../runs/follow-up.js';
import type { ApprovedPlan } from '../runs/plan-gate.js';
import type { RunRequest } from '../runs/run-request.js';
import type { PublishError } from './publish-error.js';
import type { TrustedAttemptState } from '../runs/attempts.js';
import type { CommandResult } from '../verify/command-result.js';

/** The run named by the storage key the event (or the CLI) points at: `runs/<owner>/<repo>/<runId>/`. */
export interface StorageBinding {
  owner: string;
  repo: string;
  runId: string;
}

/**
 * The repository a publisher writes to, as its host reports it (never as the candidate or the
 * worker says): GitHub's answer for the installation token, or the local repository's identity.
 */
export type PublicationTarget =
  | {
      kind: 'github';
      /** `GET /repos/{owner}/{repo}` with the installation token. */
      repositoryId: number;
      owner: string;
      repo: string;
      /** The repositories GitHub scoped the token to, when the recorded installation minted it. */
      tokenRepositoryIds: readonly number[];
    }
  | { kind: 'local'; owner: string; repo: string };

/** The policy from the trusted head (default branch on GitHub; `--policy` or the base on the CLI). */
export type TrustedPolicy = { ok: true; policy: AgentPolicy; ref: string } | { ok: false; ref: string; policyReason: string; message: string };

/** The base as the host has it now. */
export interface BaseState {
  defaultBranch: string;
  /** The tree of the candidate's base commit; undefined when that commit does not exist. */
  baseTreeSha: string | undefined;
  /** Every file of the base tree; undefined when the host truncated the listing (it checks the tree SHA itself). */
  baseFiles: readonly BaseTreeFile[] | undefined;
  /** Base contents of the paths the candidate changes that are blobs on the base. */
  baseBytes: ReadonlyMap<string, Uint8Array>;
  /** The current head of the candidate's base branch; undefined when the branch is gone. */
  baseHead: string | undefined;
  /**
   * Whether the candidate's base commit is `baseHead` or an ancestor of it, as the host answers
   * (undefined when the branch is gone). A commit off the branch (a fork's, a dangling one) is
   * never a base, whatever `baseMovementPolicy` says.
   */
  baseOnBranch: boolean | undefined;
  /** For a follow-up: the agent branch's current head (undefined when the branch is gone). */
  branchHead?: string;
  /** The base tree's symlinks and their targets: path rules apply through them. */
  symlinks?: readonly { path: string; target: string }[];
}

/** Everything a publication decision depends on; gathered by an adapter, decided by `planPublication`. */
export interface PublicationInput {
  binding: StorageBinding;
  /** `request.json` read from the binding's own key (written by the trigger, never by the worker). */
  request: RunRequest;
  /** `pr-candidate.json` as stored (parsed here, not by the caller). */
  candidate: unknown;
  /** Whether the candidate's attempt was cancelled, and by whom. */
  cancel?: { attempt: number; by: string };
  /** The candidate's attempt as the run's trusted writers recorded it (`trustedAttemptState`). */
  attemptState: TrustedAttemptState;
  target: PublicationTarget;
  trustedPolicy: TrustedPolicy;
  base: BaseState;
  /** Candidate blob bytes by id (`candidate/changes/<sha>`). */
  blobs: ReadonlyMap<string, Uint8Array>;
  /** Gates a maintainer approved for this attempt, from what only the trigger writes. */
  approvedGates: readonly string[];
  /** The plan a maintainer approved for this run (digest and files), from what only the trigger writes; the change is held to its files. */
  approvedPlan?: ApprovedPlan;
  /** The attempt's follow-up (revision, CI repair), from the attempt request only the trigger writes. */
  followUp?: FollowUp;
  /** The commit this run last published (from its publish record), when it published before. */
  lastPublishedCommit?: string;
}

/**
 * Where the commit goes. `new-branch`: the agent branch is created (or moved from an earlier
 * attempt's commit of this run) at a commit on the base. `on-top`: a follow-up's commit is
 * added on the branch head it built on, by fast-forward only (a head that moved is refused,
 * never overwritten). `rebuild`: the change made again on a moved base replaces the branch's
 * content through a commit whose parents are the App's last commit (still the head) and the new
 * base, so the branch also moves by fast-forward only and keeps its history.
 */
export type BranchPlacement = { mode: 'new-branch' } | { mode: 'on-top'; expectedHead: string } | { mode: 'rebuild'; previousHead: string };

export interface PlannedTreeEntry {
  path: string;
  mode: '100644' | '100755' | '120000';
  /** null deletes the path from the base tree. */
  sha: string | null;
}

/** What to write, in order; applying it is the adapter's job, deciding it is not. */
export interface PublicationPlan {
  runId: string;
  attempt: number;
  owner: string;
  repo: string;
  /** Blobs to write, unique and sorted by id. */
  blobs: { sha: string; bytes: Uint8Array }[];
  tree: {
    baseTreeSha: string;
    /** The candidate's changes on the base tree. */
    changes: PlannedTreeEntry[];
    /** The whole resulting tree, when the base listing was complete. */
    files?: BaseTreeFile[];
  };
  expectedTreeSha: string;
  /** The sole parent of the commit: the candidate's base. */
  parent: string;
  commit: { message: string; candidateCommitSha: string };
  ref: { branch: string; name: string };
  placement: BranchPlacement;
  pullRequest: { base: string; title: string; body: string; labels: string[]; reviewers: string[] };
  warnings: string[];
  baseMoved?: { from: string; to: string };
  /** The trusted policy says `readyForReview: ci-green` and the change is complete: the publisher marks it ready once CI passes. */
  readyWhenCiGreen: boolean;
  verification: {
    checks: { name: string; status: 'PASSED' | 'FAILED' | 'SKIPPED'; detail?: string }[];
    notRun: { name: string; why: string }[];
    commands?: CommandResult[];
    commandsRanIn?: string;
    ciCommands: string[];
    verifier?: string;
  };
}

export type PublicationDecision =
  { kind: 'refuse'; error: PublishError } | { kind: 'rerun'; from: string; to: string } | { kind: 'publish'; plan: PublicationPlan };

/** What applying a plan left on the host. */
export interface PublicationApplied {
  branch: string;
  commitSha: string;
  treeSha: string;
  /** False when the branch already held this publication (a re-invocation). */
  created: boolean;
  pullRequest?: { number: number; url: string };
  /** Courtesies that failed without failing the publication (labels). */
  warnings: string[];
}

/**
 * Applies a publication plan that `planPublication` decided: the objects, the agent branch and,
 * where the host has them, the draft pull request. Idempotent: applying the same plan again
 * finds what the first application wrote. What only writing reveals (the branch holds a commit
 * this run did not make, the host stored an object under another id) is thrown as a `PublishError`.
 */
export interface Publisher {
  apply(plan: PublicationPlan): Promise<PublicationApplied>;
}
