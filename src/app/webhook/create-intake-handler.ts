import { Probot, ProbotOctokit } from 'probot';
import { ZodError } from 'zod';
import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { parseDeliveryKey } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { decodeS3EventKey } from '../aws/s3-artifact-store.js';
import { BucketEvent } from '../dispatch/create-dispatcher-handler.js';
import type { GitHubApi } from '../github/github-api.js';
import { withLogScope } from '../logger.js';
import { onPullRequestClosed, recordCheckSuite, recordCommitStatus } from '../publisher/ci-feedback.js';
import { startRepairFromCheckSuite } from './ci-repair.js';
import { onBasePush, PushPayload } from './keep-current.js';
import { draftsmanApp, probotLog } from './probot-app.js';
import { deliveryFields, describe } from './receive-webhook.js';
import type { CampaignLauncher } from '../campaign/campaign-launcher.js';
import { refreshOnCheckSuite, refreshOnPullRequestClosed, refreshOnReview } from '../campaign/campaign-refresh.js';
import { onInstallationGrants } from './installation-grants.js';
import { syncRequestForInstallation, syncRequestForPush, type ScheduleSyncLauncher } from '../schedules/schedule-sync.js';
import { commentOnDefaultBranchFailure } from './default-branch-ci.js';
import { StoredDelivery } from './stored-delivery.js';
import { TriggerService } from './trigger-service.js';

export interface IntakeDeps {
  store: ArtifactStore;
  /** A broker for the read role only (IAM: the intake may invoke token-read only). */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  appId: number;
  /** `<slug>[bot]`: the App's own comments never trigger anything. */
  botLogin: string;
  apiUrl: string;
  /** Starts a campaign's fan-out (docs/campaigns.md); absent when the stack has no campaign state machine. */
  campaigns?: CampaignLauncher;
  /** Synchronises `agent.schedules` (the schedule-sync function); absent, schedules are not kept. */
  schedules?: ScheduleSyncLauncher;
  /** Runs that may hold a worker at once (the worker's reserved concurrency): more wait in the queue. */
  workerSlots?: number;
}

export type IntakeOutcome = { key: string; delivery?: string; handled: true } | { key: string; delivery?: string; handled: false; why: string };

export interface Intake {
  /** The bucket's ObjectCreated event for `deliveries/<id>.json` (S3 notification shape). */
  handle(event: unknown): Promise<IntakeOutcome[]>;
  /** One stored delivery by key (what `handle` does per record; `draftsman serve` calls it directly). */
  receive(key: string): Promise<IntakeOutcome>;
}

/**
 * The intake: a delivery the webhook verified and stored, run through the Probot app and the
 * trigger service (policy, permission, limits, lock, progress comment, request.json; keep-current,
 * CI records and repairs). The decisions are keyed by signed payload content, so a redelivery,
 * a duplicate notification or a retried invocation ends in the run that exists. A payload the
 * handlers' subsets refuse is logged and dropped (a retry could not fix it); any other failure
 * throws, so Lambda retries and then dead-letters it.
 */
export async function createIntakeHandler(deps: IntakeDeps): Promise<Intake> {
  // Probot for routing only: it gets no private key (only the token functions read it) and no
  // webhook secret (the webhook verified the signature); every API call uses a token-read token.
  const probot = new Probot({
    appId: deps.appId,
    secret: 'unused-the-webhook-verified-the-signature',
    githubToken: 'unused-per-event-tokens-come-from-token-read',
    // The project's logger: Probot's lines in the same format, without the event payload.
    log: probotLog(deps.logger),
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      throttle: { ...(options.throttle as object), enabled: false },
      retry: { enabled: false },
    })),
  });
  const triggerDeps = {
    store: deps.store,
    tokens: deps.tokens,
    github: deps.github,
    clock: deps.clock,
    logger: deps.logger,
    botLogin: deps.botLogin,
    apiUrl: deps.apiUrl,
    campaigns: deps.campaigns,
    workerSlots: deps.workerSlots,
  };
  const triggers = new TriggerService(triggerDeps);
  const ci = { store: deps.store, tokens: deps.tokens, github: deps.github, clock: deps.clock, logger: deps.logger };
  await probot.load(
    draftsmanApp({
      triggers,
      logger: deps.logger,
      onCheckSuiteCompleted: async (payload, delivery) => {
        await recordCheckSuite(ci, payload);
        // After the verification record: a failing suite on an agent PR head may start a repair.
        await startRepairFromCheckSuite(triggerDeps, payload);
        // On the default branch: one analysis comment at most, never a run.
        await commentOnDefaultBranchFailure(triggerDeps, payload);
        // A campaign's pull request: its tracking comment's CI (once per window).
        await refreshOnCheckSuite(triggerDeps, payload, delivery);
      },
      onCommitStatus: async (payload) => void (await recordCommitStatus(ci, payload)),
      onPullRequestClosed: async (payload, delivery) => {
        await onPullRequestClosed(ci, payload);
        await refreshOnPullRequestClosed(triggerDeps, payload, delivery);
      },
      onReviewSubmitted: async (payload, delivery) => void (await refreshOnReview(triggerDeps, payload, delivery)),
      onInstallation: async (event, payload, delivery) => {
        const outcome = await onInstallationGrants(ci, event, payload);
        deps.logger.info('installation grants checked', { delivery, outcome });
        const removal = deps.schedules ? syncRequestForInstallation(event, payload) : undefined;
        if (removal) await deps.schedules!.sync(removal);
      },
      onPush: async (payload, delivery) => {
        const sync = deps.schedules ? syncRequestForPush(payload) : undefined;
        if (sync) await deps.schedules!.sync(sync);
        const outcomes = await onBasePush(triggerDeps, PushPayload.parse(payload));
        if (outcomes.length > 0) deps.logger.info('push handled', { delivery, outcomes: outcomes.map((o) => `${o.runId}:${o.decision}:${o.outcome.kind}`) });
      },
    }),
  );
  await probot.ready();

  const receive = async (key: string): Promise<IntakeOutcome> => {
    if (parseDeliveryKey(key) === undefined) {
      deps.logger.warn('intake ignored a key that is not a delivery', { key });
      return { key, handled: false, why: 'not a delivery key' };
    }
    const delivery = await readArtifactIfPresent(deps.store, key, StoredDelivery);
    if (!delivery) {
      deps.logger.warn('intake found no delivery under its key', { key });
      return { key, handled: false, why: 'no such delivery' };
    }
    return withLogScope(deliveryFields(delivery.id, delivery.payload), async (): Promise<IntakeOutcome> => {
      const waitedMs = deps.clock.now() - Date.parse(delivery.receivedAt);
      try {
        await probot.receive({ id: delivery.id, name: delivery.name as never, payload: delivery.payload as never });
      } catch (error) {
        if (isSchemaError(error)) {
          deps.logger.warn('intake dropped a payload the handlers refuse', { delivery: delivery.id, event: delivery.name, error: describe(error) });
          return { key, delivery: delivery.id, handled: false, why: 'payload does not match the event schema' };
        }
        deps.logger.error('intake failed', { delivery: delivery.id, event: delivery.name, error: describe(error) });
        throw error;
      }
      deps.logger.info('intake handled delivery', { delivery: delivery.id, event: delivery.name, waitedMs });
      return { key, delivery: delivery.id, handled: true };
    });
  };

  return {
    receive,
    async handle(event) {
      const outcomes: IntakeOutcome[] = [];
      for (const record of BucketEvent.parse(event).Records) {
        if (!record.eventName.startsWith('ObjectCreated')) continue;
        outcomes.push(await receive(decodeS3EventKey(record.s3.object.key)));
      }
      return outcomes;
    },
  };
}

/** A ZodError, alone or as every error Probot aggregated from the handlers. */
function isSchemaError(error: unknown): boolean {
  const inner = (error as { errors?: unknown[] } | undefined)?.errors;
  const all = Array.isArray(inner) && inner.length > 0 ? inner : [error];
  return all.every((e) => e instanceof ZodError);
}
