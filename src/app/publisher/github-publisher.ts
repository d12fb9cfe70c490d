import type { Logger } from '../../core/ports.js';
import type { Publisher } from '../../core/publish/publication.js';
import type { PublicationApplied, PublicationPlan } from '../../core/publish/publication.js';
import { PublishError } from '../../core/publish/publish-error.js';
import { hasRunIdTrailer } from '../../core/runs/run-branch.js';
import { createOnce, NO_RETRY } from '../github/create-once.js';
import type { GitHubApi } from '../github/github-api.js';
import { orUndefinedOn404, statusOf } from './publisher-context.js';

const AGENT_LABEL_WARNING = 'labels could not be added';

export interface GitHubPublisherOptions {
  /** An installation API client with the write-role token. */
  api: GitHubApi;
  owner: string;
  repo: string;
  logger: Logger;
}

/**
 * Applies a plan with the Git Data API and the pulls API: blobs (base64), a tree on the base
 * tree (its SHA must be the plan's), a commit with the base as sole parent and no author or
 * committer (GitHub signs it), the agent branch created or reused only when it points at our
 * tree on our base, and the draft PR found or opened. Every step is idempotent, so an
 * invocation killed anywhere and repeated ends with one branch and one PR.
 */
export class GitHubPublisher implements Publisher {
  constructor(private readonly options: GitHubPublisherOptions) {}

  async apply(plan: PublicationPlan): Promise<PublicationApplied> {
    await this.writeObjects(plan);
    const head = await this.placeBranch(plan);
    const pull = await this.openDraftPullRequest(plan);
    // A rebuilt change replaces the open pull request's description: its evidence is the new run's.
    if (plan.placement.mode === 'rebuild') await this.describe(pull.number, plan);
    const warnings: string[] = [];
    const labelWarning = await this.addLabels(pull.number, plan.pullRequest.labels);
    if (labelWarning) warnings.push(labelWarning);
    await this.requestReviewers(pull.number, plan.pullRequest.reviewers);
    return { branch: plan.ref.branch, commitSha: head.sha, treeSha: plan.expectedTreeSha, created: head.created, pullRequest: pull, warnings };
  }

  /** Blobs and trees are content-addressed, so repeating them is harmless. */
  private async writeObjects(plan: PublicationPlan): Promise<void> {
    const { api, owner, repo } = this.options;
    for (const blob of plan.blobs) {
      const created = await api.rest.git.createBlob({ owner, repo, content: Buffer.from(blob.bytes).toString('base64'), encoding: 'base64' });
      if (created.data.sha !== blob.sha)
        throw new PublishError('OBJECT_MISMATCH', 'GitHub stored a blob under another SHA', { expected: blob.sha, actual: created.data.sha });
    }
    const tree = await api.rest.git.createTree({
      owner,
      repo,
      base_tree: plan.tree.baseTreeSha,
      tree: plan.tree.changes.map((c) => ({ path: c.path, mode: c.mode, type: 'blob' as const, sha: c.sha })),
    });
    if (tree.data.sha !== plan.expectedTreeSha) {
      throw new PublishError('TREE_MISMATCH', 'the tree GitHub built is not the candidate head tree', {
        expected: plan.expectedTreeSha,
        actual: tree.data.sha,
      });
    }
  }

  /** What the agent branch holds now: our commit, an earlier attempt's of this run, or someone else's. */
  private async inspectBranch(plan: PublicationPlan): Promise<{ sha: string; ours: 'same' | 'earlier' | 'foreign' } | undefined> {
    const { api, owner, repo } = this.options;
    const current = await orUndefinedOn404(() => api.rest.git.getRef({ owner, repo, ref: `heads/${plan.ref.branch}` }));
    if (!current) return undefined;
    const sha = current.data.object.sha;
    const commit = await api.rest.git.getCommit({ owner, repo, commit_sha: sha });
    const parents = commit.data.parents.map((p) => p.sha);
    const onBase = parents.length === 1;
    if (onBase && parents[0] === plan.parent && commit.data.tree.sha === plan.expectedTreeSha) return { sha, ours: 'same' };
    const signedByGitHub = (commit.data as { verification?: { verified?: boolean } }).verification?.verified === true;
    return { sha, ours: onBase && signedByGitHub && hasRunIdTrailer(commit.data.message, plan.runId) ? 'earlier' : 'foreign' };
  }

  /**
   * Point the agent branch at a commit of our tree on our base. An existing ref at such a
   * commit is reused (a re-invocation after a crash); at an earlier attempt's commit of this run
   * it is moved; anything else is a human's and refused.
   */
  private async placeBranch(plan: PublicationPlan): Promise<{ sha: string; created: boolean }> {
    if (plan.placement.mode === 'on-top') return this.fastForward(plan, plan.placement.expectedHead, [plan.placement.expectedHead]);
    if (plan.placement.mode === 'rebuild') return this.fastForward(plan, plan.placement.previousHead, [plan.placement.previousHead, plan.parent]);
    const { api, owner, repo } = this.options;
    const ref = `heads/${plan.ref.branch}`;
    let current = await this.inspectBranch(plan);
    if (current?.ours === 'same') return { sha: current.sha, created: false };
    if (current?.ours === 'foreign')
      throw new PublishError('BRANCH_NOT_OURS', 'the agent branch has commits this run did not make', { branch: plan.ref.branch, head: current.sha });
    // No author or committer: GitHub attributes the commit to the App and signs it.
    const created = await api.rest.git.createCommit({ owner, repo, message: plan.commit.message, tree: plan.expectedTreeSha, parents: [plan.parent] });
    const parents = created.data.parents.map((p) => p.sha);
    if (created.data.tree.sha !== plan.expectedTreeSha || parents.length !== 1 || parents[0] !== plan.parent) {
      throw new PublishError('OBJECT_MISMATCH', 'GitHub returned a commit with another tree or parent', { tree: created.data.tree.sha, parents });
    }
    const commit = created.data.sha;
    if (current?.ours === 'earlier') {
      await api.rest.git.updateRef({ owner, repo, ref, sha: commit, force: true });
      return { sha: commit, created: true };
    }
    try {
      // A lost answer: the branch at our commit's tree and base is ours (docs/operations.md, "Create calls").
      return await createOnce(api, {
        create: async () => (await api.rest.git.createRef({ owner, repo, ref: `refs/${ref}`, sha: commit, ...NO_RETRY }), { sha: commit, created: true }),
        find: async () => {
          const found = await this.inspectBranch(plan);
          return found?.ours === 'same' ? { sha: found.sha, created: found.sha === commit } : undefined;
        },
      });
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      // Another invocation created it between our look and our write: look again.
      current = await this.inspectBranch(plan);
      if (current?.ours === 'same') return { sha: current.sha, created: false };
      throw new PublishError('BRANCH_NOT_OURS', 'the agent branch appeared at a commit this run did not make', { branch: plan.ref.branch, head: current?.sha });
    }
  }

  /**
   * A commit with `parents` (its first one the branch head we expect) placed by fast-forward only
   * (`force: false`: GitHub refuses anything else), so a commit someone pushed meanwhile is never
   * lost: a follow-up's commit on the head it built on, or a rebuild's with the new base as second
   * parent. A head already at such a commit of our tree is a re-invocation.
   */
  private async fastForward(plan: PublicationPlan, expectedHead: string, parents: string[]): Promise<{ sha: string; created: boolean }> {
    const { api, owner, repo } = this.options;
    const ref = `heads/${plan.ref.branch}`;
    const sameParents = (actual: string[]) => actual.length === parents.length && actual.every((p, i) => p === parents[i]);
    const moved = (head: string | undefined) =>
      new PublishError('BRANCH_MOVED', 'the agent branch moved since this attempt started', {
        branch: plan.ref.branch,
        expected: expectedHead,
        actual: head ?? null,
      });
    const current = await orUndefinedOn404(() => api.rest.git.getRef({ owner, repo, ref }));
    const head = current?.data.object.sha;
    if (head !== expectedHead) {
      if (head) {
        const commit = await api.rest.git.getCommit({ owner, repo, commit_sha: head });
        if (sameParents(commit.data.parents.map((p) => p.sha)) && commit.data.tree.sha === plan.expectedTreeSha) return { sha: head, created: false };
      }
      throw moved(head);
    }
    const created = await api.rest.git.createCommit({ owner, repo, message: plan.commit.message, tree: plan.expectedTreeSha, parents });
    if (created.data.tree.sha !== plan.expectedTreeSha || !sameParents(created.data.parents.map((p) => p.sha))) {
      throw new PublishError('OBJECT_MISMATCH', 'GitHub returned a commit with another tree or parent', {
        tree: created.data.tree.sha,
        parents: created.data.parents.map((p) => p.sha),
      });
    }
    try {
      await api.rest.git.updateRef({ owner, repo, ref, sha: created.data.sha, force: false });
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      throw moved(undefined);
    }
    return { sha: created.data.sha, created: true };
  }

  private async describe(number: number, plan: PublicationPlan): Promise<void> {
    const { api, owner, repo } = this.options;
    await api.rest.pulls.update({ owner, repo, pull_number: number, title: plan.pullRequest.title, body: plan.pullRequest.body });
  }

  /** The open PR for the head branch, found before one is created (and after a 422 race). */
  private async openDraftPullRequest(plan: PublicationPlan): Promise<{ number: number; url: string }> {
    const { api, owner, repo, logger } = this.options;
    const branch = plan.ref.branch;
    const find = async () => {
      const list = await api.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: 'open', per_page: 10 });
      const found = list.data.find((p) => p.head.ref === branch);
      return found ? { number: found.number, url: found.html_url } : undefined;
    };
    const existing = await find();
    if (existing) {
      logger.info('draft pull request already open', { prNumber: existing.number });
      return existing;
    }
    const { base, title, body } = plan.pullRequest;
    try {
      return await createOnce(api, {
        create: async () => {
          const created = await api.rest.pulls.create({ owner, repo, head: branch, base, title, body, draft: true, ...NO_RETRY });
          return { number: created.data.number, url: created.data.html_url };
        },
        find,
      });
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      const raced = await find();
      if (raced) return raced;
      throw error;
    }
  }

  /**
   * Labels are a courtesy: a failure becomes a warning, never a failed publication. Adding a
   * label the pull request has is a no-op on GitHub, so a repeat after a lost answer is harmless.
   */
  private async addLabels(number: number, labels: string[]): Promise<string | undefined> {
    if (labels.length === 0) return undefined;
    const { api, owner, repo, logger } = this.options;
    try {
      await api.rest.issues.addLabels({ owner, repo, issue_number: number, labels });
      return undefined;
    } catch (error) {
      const status = statusOf(error);
      if (status === undefined || status >= 500) throw error;
      logger.warn('labels not added', { prNumber: number, status });
      return `${AGENT_LABEL_WARNING} (${labels.join(', ')}; HTTP ${status})`;
    }
  }

  /** CODEOWNERS reviewers; GitHub answers 422 for non-collaborators, so each is asked alone after one. */
  private async requestReviewers(number: number, reviewers: string[]): Promise<void> {
    const { api, owner, repo, logger } = this.options;
    const wanted = [...new Set(reviewers.map((r) => r.replace(/^@/, '')).filter((r) => r && !r.includes('/') && !r.endsWith('[bot]')))];
    if (wanted.length === 0) return;
    const ask = async (list: string[]) => api.rest.pulls.requestReviewers({ owner, repo, pull_number: number, reviewers: list });
    try {
      await ask(wanted);
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      for (const r of wanted) {
        try {
          await ask([r]);
        } catch (inner) {
          if (statusOf(inner) !== 422) throw inner;
          logger.info('reviewer not requested (not a collaborator)', { prNumber: number, reviewer: r });
        }
      }
    }
  }
}
