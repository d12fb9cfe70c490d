import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Probot, ProbotOctokit } from 'probot';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { onPullRequestClosed, recordCheckSuite, recordCommitStatus } from '../publisher/ci-feedback.js';
import type { GitHubApi } from '../github/github-api.js';
import { onBasePush, PushPayload } from './keep-current.js';
import { startRepairFromCheckSuite } from './ci-repair.js';
import { draftsmanApp } from './probot-app.js';
import { TriggerService } from './trigger-service.js';
import { receiveWebhook } from './receive-webhook.js';

export interface WebhookHandlerDeps {
  store: ArtifactStore;
  /** A broker for the read role only (IAM: the webhook may invoke token-read only). */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  secret: string;
  appId: number;
  /** `<slug>[bot]`: the App's own comments never trigger anything. */
  botLogin: string;
  apiUrl: string;
}

/**
 * The webhook's testable core: Probot for routing and verification, the trigger service for
 * decisions. Probot gets no private key (only the token functions read it): its
 * own Octokit is never used, every API call goes through a token-read token.
 */
export async function createWebhookHandler(deps: WebhookHandlerDeps): Promise<(event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>> {
  const probot = new Probot({
    appId: deps.appId,
    secret: deps.secret,
    githubToken: 'unused-per-event-tokens-come-from-token-read',
    logLevel: 'error',
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      throttle: { ...(options.throttle as object), enabled: false },
      retry: { enabled: false },
    })),
  });
  const triggerDeps = { store: deps.store, tokens: deps.tokens, github: deps.github, clock: deps.clock, logger: deps.logger, botLogin: deps.botLogin, apiUrl: deps.apiUrl };
  const triggers = new TriggerService(triggerDeps);
  const ci = { store: deps.store, tokens: deps.tokens, github: deps.github, clock: deps.clock, logger: deps.logger };
  await probot.load(
    draftsmanApp({
      triggers,
      logger: deps.logger,
      onCheckSuiteCompleted: async (payload) => {
        await recordCheckSuite(ci, payload);
        // After the verification record: a failing suite on an agent PR head may start a repair.
        await startRepairFromCheckSuite(triggerDeps, payload);
      },
      onCommitStatus: async (payload) => void (await recordCommitStatus(ci, payload)),
      onPullRequestClosed: async (payload) => void (await onPullRequestClosed(ci, payload)),
      onPush: async (payload, delivery) => {
        const outcomes = await onBasePush(triggerDeps, PushPayload.parse(payload));
        if (outcomes.length > 0) deps.logger.info('push handled', { delivery, outcomes: outcomes.map((o) => `${o.runId}:${o.decision}:${o.outcome.kind}`) });
      },
    }),
  );
  await probot.ready();
  return (event) => receiveWebhook(probot, deps.secret, event, deps.logger);
}
