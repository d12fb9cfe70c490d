import { z } from 'zod';

/** The subsets of GitHub webhook payloads the App reads (zod at the boundary; extra fields pass). */
export const User = z.object({ login: z.string(), type: z.string().default('User'), id: z.number().optional() });

export const Repository = z.object({
  id: z.number().int(),
  name: z.string(),
  full_name: z.string(),
  owner: z.object({ login: z.string() }),
  default_branch: z.string().default('main'),
  clone_url: z.string().optional(),
  private: z.boolean().optional(),
});

const Issue = z.object({
  id: z.number().int(),
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().optional(),
  updated_at: z.string(),
  html_url: z.string().optional(),
  state: z.string().optional(),
  pull_request: z.unknown().optional(),
  /** The issue's author (GitHub sends null for a deleted account): steps read from their words wait for approval when they cannot write. */
  user: User.nullable().optional(),
});

export const Installation = z.object({ id: z.number().int() });

export const IssuesLabeledPayload = z.object({
  action: z.literal('labeled'),
  issue: Issue,
  label: z.object({ id: z.number().int(), name: z.string() }).optional(),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type IssuesLabeledPayload = z.infer<typeof IssuesLabeledPayload>;

export const IssueCommentCreatedPayload = z.object({
  action: z.literal('created'),
  issue: Issue,
  comment: z.object({
    id: z.number().int(),
    body: z.string(),
    user: User,
    /** When the comment was written (signed with the delivery): an approval covers only a gate shown before it. */
    created_at: z.string().optional(),
    performed_via_github_app: z.object({ id: z.number() }).nullable().optional(),
  }),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type IssueCommentCreatedPayload = z.infer<typeof IssueCommentCreatedPayload>;

/** `issues.opened`: an issue with the labels it was opened with (issue forms set them for anyone). */
export const IssuesOpenedPayload = z.object({
  action: z.literal('opened'),
  issue: Issue.extend({ labels: z.array(z.object({ name: z.string() })).default([]) }),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type IssuesOpenedPayload = z.infer<typeof IssuesOpenedPayload>;

export const IssuesClosedPayload = z.object({
  action: z.literal('closed'),
  issue: Issue,
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type IssuesClosedPayload = z.infer<typeof IssuesClosedPayload>;

const PullRequestRef = z.object({ ref: z.string(), sha: z.string(), repo: z.object({ id: z.number().int() }).nullable().optional() });

/** `pull_request_review.submitted`: a review whose body may hold `/agent revise ...`, mention the App, or request changes. */
export const PullRequestReviewSubmittedPayload = z.object({
  action: z.literal('submitted'),
  review: z.object({
    id: z.number().int(),
    body: z.string().nullable(),
    user: User,
    html_url: z.string().optional(),
    commit_id: z.string().optional(),
    /** `approved`, `changes_requested`, `commented` (GitHub sends lower case in webhooks). */
    state: z.string().optional(),
  }),
  pull_request: z.object({ number: z.number().int().positive(), head: PullRequestRef, base: PullRequestRef }),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type PullRequestReviewSubmittedPayload = z.infer<typeof PullRequestReviewSubmittedPayload>;

/** `pull_request_review_comment.created`: an inline review comment, which may mention the App. */
export const PullRequestReviewCommentCreatedPayload = z.object({
  action: z.literal('created'),
  comment: z.object({
    id: z.number().int(),
    body: z.string(),
    user: User,
    path: z.string(),
    line: z.number().int().nullable().optional(),
    start_line: z.number().int().nullable().optional(),
    original_line: z.number().int().nullable().optional(),
    html_url: z.string().optional(),
  }),
  pull_request: z.object({ number: z.number().int().positive(), head: PullRequestRef, base: PullRequestRef }),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type PullRequestReviewCommentCreatedPayload = z.infer<typeof PullRequestReviewCommentCreatedPayload>;

/** `check_suite.completed` as the CI repair trigger reads it (the CI feedback recorder has its own subset). */
export const CheckSuiteCompletedEvent = z.object({
  action: z.literal('completed'),
  check_suite: z.object({
    id: z.number().int(),
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    app: z.object({ slug: z.string().optional(), name: z.string().optional() }).nullable().optional(),
  }),
  repository: Repository,
  installation: Installation,
});
export type CheckSuiteCompletedEvent = z.infer<typeof CheckSuiteCompletedEvent>;

/** `push`: a branch moved (keep-current looks for agent pull requests on that base). */
export const PushPayload = z.object({
  ref: z.string(),
  after: z.string().regex(/^[0-9a-f]{40}$/),
  deleted: z.boolean().optional(),
  repository: Repository,
  sender: User,
  installation: Installation,
});
export type PushPayload = z.infer<typeof PushPayload>;

export type RepositoryPayload = z.infer<typeof Repository>;
