import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import type { CampaignLauncher } from '../campaign/campaign-launcher.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import type { GitHubApi } from '../github/github-api.js';
import type { ResolvedRepository } from '../tokens/resolved-repository.js';
import type { RepositoryPayload } from './webhook-payloads.js';

export interface TriggerDeps {
  store: ArtifactStore;
  /** A broker that can mint read-role tokens only. */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  /** The App's bot login (`<slug>[bot]`): its own comments never trigger anything. */
  botLogin: string;
  apiUrl: string;
  /** How long an issue lock lives without being released; default two hours. */
  lockTtlMs?: number;
  /** Runs that may hold a worker at once (the worker's reserved concurrency); default 5. */
  workerSlots?: number;
  /** Starts a campaign's fan-out (the intake of the deployed App); absent, `/agent campaign start` says campaigns are not set up. */
  campaigns?: CampaignLauncher;
}

export const DEFAULT_LOCK_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * One event's view of its repository: names and ids from the signed payload, and a read-role
 * API client minted on first use (an event that is ignored early never mints a token).
 */
export class WebhookSession {
  readonly owner: string;
  readonly repo: string;
  readonly repositoryId: number;
  readonly installationId: number;
  readonly defaultBranch: string;
  readonly cloneUrl: string;
  private client: GitHubApi | undefined;

  constructor(
    readonly deps: TriggerDeps,
    repository: RepositoryPayload,
    installationId: number,
  ) {
    this.owner = repository.owner.login;
    this.repo = repository.name;
    this.repositoryId = repository.id;
    this.installationId = installationId;
    this.defaultBranch = repository.default_branch;
    this.cloneUrl = repository.clone_url ?? `https://github.com/${repository.full_name}.git`;
  }

  /** A session for a repository found without a webhook (a campaign's target, a schedule's repository): its ids and names as token-read resolved them. */
  static forResolved(deps: TriggerDeps, target: ResolvedRepository): WebhookSession {
    const repository = {
      id: target.id,
      name: target.name,
      full_name: `${target.owner}/${target.name}`,
      owner: { login: target.owner },
      default_branch: target.defaultBranch,
      clone_url: target.cloneUrl,
    };
    return new WebhookSession(deps, repository, target.installationId);
  }

  async api(): Promise<GitHubApi> {
    if (!this.client) {
      const issued = await this.deps.tokens.token({ installationId: this.installationId, repositoryId: this.repositoryId, role: 'read' });
      this.client = this.deps.github(issued.token);
    }
    return this.client;
  }

  async reply(issueNumber: number, body: string): Promise<void> {
    const api = await this.api();
    await api.rest.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: issueNumber, body });
  }

  /** Edit a comment the App made (the run's progress comment); nothing when there is none. */
  async editComment(commentId: number | undefined, body: string): Promise<void> {
    if (commentId === undefined) return;
    const api = await this.api();
    await api.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: commentId, body });
  }

  /** Edit the App's comment carrying `marker`, or post one: a repeated problem never piles up comments. */
  async upsertMarkedComment(issueNumber: number, marker: string, body: string): Promise<void> {
    const api = await this.api();
    const existing = await findMarkedComment(api, { ...this.ref, issue: issueNumber, marker, botLogin: this.deps.botLogin });
    const text = `${marker}\n${body}`;
    if (existing) await api.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: existing.id, body: text });
    else await createCommentOnce(api, { owner: this.owner, repo: this.repo, issue: issueNumber, body: text, marker, botLogin: this.deps.botLogin });
  }

  /** Store keys and logs name the repository by these two. */
  get ref(): { owner: string; repo: string } {
    return { owner: this.owner, repo: this.repo };
  }
}
