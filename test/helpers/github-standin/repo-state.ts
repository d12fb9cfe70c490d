import type { GitStore } from './git-store.js';

export type RepoPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface StandinUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface IssueState {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  user: StandinUser;
  labels: string[];
  createdAt: number;
  updatedAt: number;
}

export interface CommentState {
  id: number;
  issueNumber: number;
  body: string;
  user: StandinUser;
  createdAt: number;
  updatedAt: number;
}

export interface PullState {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  /** Merged (closed by a merge); set by tests, as a maintainer merging it would. */
  merged?: boolean;
  draft: boolean;
  head: string;
  headOwner: string;
  base: string;
  user: StandinUser;
  requestedReviewers: string[];
  /** Labels, set through the issues API as on GitHub (a pull request is an issue). */
  labels?: string[];
  /** Submitted reviews, with their inline comments (`addReview`). */
  reviews?: ReviewState[];
  createdAt: number;
  updatedAt: number;
}

/** One submitted review and its inline comments. */
export interface ReviewState {
  id: number;
  body: string;
  user: StandinUser;
  commitId: string;
  /** The verdict (default `COMMENTED`). */
  state?: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  comments: { id: number; path: string; line: number; startLine?: number; body: string; user: StandinUser }[];
  submittedAt: number;
}

export interface CheckRunState {
  id: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  detailsUrl?: string;
  output: CheckRunOutputState;
  annotations: CheckAnnotationState[];
  /** The job's log, for a GitHub Actions run (its check run id is the job id). */
  log?: string;
}

/** What a check run reports besides its conclusion (GitHub's `output`, without the annotations). */
export interface CheckRunOutputState {
  title: string | null;
  summary: string | null;
  text: string | null;
}

export interface CheckAnnotationState {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface CheckSuiteState {
  id: number;
  headSha: string;
  headBranch: string | null;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  app: { id: number; slug: string };
  runs: CheckRunState[];
  createdAt: number;
}

export interface CommitStatusState {
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  createdAt: number;
}

/** Whether a commit made through the API carried its own author or committer. */
export interface CreatedCommitRecord {
  sha: string;
  customAuthor: boolean;
  customCommitter: boolean;
  tokenId?: string;
}

/** Everything the stand-in knows about one repository besides its git objects. */
export interface RepoState {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  private: boolean;
  defaultBranch: string;
  installationId: number;
  sizeKb?: number;
  /** What GitHub lists about the repository (`topics`, primary `language`, `archived`, `fork`). */
  topics: string[];
  language: string | null;
  archived: boolean;
  fork: boolean;
  git: GitStore;
  collaborators: Map<string, RepoPermission>;
  issues: Map<number, IssueState>;
  comments: Map<number, CommentState>;
  pulls: Map<number, PullState>;
  checkSuites: CheckSuiteState[];
  statuses: CommitStatusState[];
  createdCommits: CreatedCommitRecord[];
  nextNumber: number;
}
