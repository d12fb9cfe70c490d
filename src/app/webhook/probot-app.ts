import type { ApplicationFunction, Options as ProbotOptions } from 'probot';
import type { Logger } from '../../core/ports.js';
import type { TriggerService } from './trigger-service.js';
import {
  IssueCommentCreatedPayload,
  IssuesClosedPayload,
  IssuesLabeledPayload,
  IssuesOpenedPayload,
  PullRequestReviewCommentCreatedPayload,
  PullRequestReviewSubmittedPayload,
} from './webhook-payloads.js';

export interface DraftsmanAppDeps {
  triggers: TriggerService;
  logger: Logger;
  /** CI feedback and pull-request events (the publisher side acts on what this writes). */
  onCheckSuiteCompleted?: (payload: unknown, deliveryId: string) => Promise<void>;
  onPullRequestClosed?: (payload: unknown, deliveryId: string) => Promise<void>;
  onCommitStatus?: (payload: unknown, deliveryId: string) => Promise<void>;
  /** A submitted review, before the trigger service looks for a revision in it (a campaign pull request's review state). */
  onReviewSubmitted?: (payload: PullRequestReviewSubmittedPayload, deliveryId: string) => Promise<void>;
  /** A push: when it moves the base of open agent pull requests, they are kept current. */
  onPush?: (payload: unknown, deliveryId: string) => Promise<void>;
  /** `installation` and `installation_repositories`: the installation's grants against app.yml (installation-grants.ts). */
  onInstallation?: (event: 'installation' | 'installation_repositories', payload: unknown, deliveryId: string) => Promise<void>;
}

/**
 * The Probot app: routes the events the App subscribes to. Each handler only decides whether to
 * care and writes a request; none runs the pipeline.
 */
export function draftsmanApp(deps: DraftsmanAppDeps): ApplicationFunction {
  return (app) => {
    app.on('issues.labeled', async (context) => {
      const outcome = await deps.triggers.onLabeled(IssuesLabeledPayload.parse(context.payload));
      deps.logger.info('issues.labeled handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('issues.opened', async (context) => {
      const outcome = await deps.triggers.onOpened(IssuesOpenedPayload.parse(context.payload));
      deps.logger.info('issues.opened handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('issue_comment.created', async (context) => {
      const outcome = await deps.triggers.onComment(IssueCommentCreatedPayload.parse(context.payload));
      deps.logger.info('issue_comment.created handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('pull_request_review.submitted', async (context) => {
      const payload = PullRequestReviewSubmittedPayload.parse(context.payload);
      await deps.onReviewSubmitted?.(payload, context.id);
      const outcome = await deps.triggers.onReview(payload);
      deps.logger.info('pull_request_review.submitted handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('pull_request_review_comment.created', async (context) => {
      const outcome = await deps.triggers.onReviewComment(PullRequestReviewCommentCreatedPayload.parse(context.payload));
      deps.logger.info('pull_request_review_comment.created handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('issues.closed', async (context) => {
      const outcome = await deps.triggers.onClosed(IssuesClosedPayload.parse(context.payload));
      deps.logger.info('issues.closed handled', { delivery: context.id, outcome: outcome.kind });
    });
    app.on('installation', async (context) => {
      deps.logger.info('installation event', { delivery: context.id, action: context.payload.action, installation: context.payload.installation.id });
      await deps.onInstallation?.('installation', context.payload, context.id);
    });
    app.on('installation_repositories', async (context) => {
      deps.logger.info('installation_repositories event', {
        delivery: context.id,
        action: context.payload.action,
        installation: context.payload.installation.id,
      });
      await deps.onInstallation?.('installation_repositories', context.payload, context.id);
    });
    app.on('check_suite.completed', async (context) => {
      await deps.onCheckSuiteCompleted?.(context.payload, context.id);
    });
    app.on('status', async (context) => {
      await deps.onCommitStatus?.(context.payload, context.id);
    });
    app.on('pull_request.closed', async (context) => {
      await deps.onPullRequestClosed?.(context.payload, context.id);
    });
    app.on('push', async (context) => {
      await deps.onPush?.(context.payload, context.id);
    });
  };
}

type ProbotLogger = NonNullable<ProbotOptions['log']>;
type LogMethod = 'debug' | 'info' | 'warn' | 'error';

/** What Probot's log calls carry that is a payload: the event (and with it the whole issue body), summarised as its id and name. */
function probotFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'event' || key === 'payload') {
      const event = (value ?? {}) as { id?: unknown; name?: unknown };
      out.event = { id: event.id, name: event.name };
    } else if (key === 'err' || value instanceof Error) out.error = value instanceof Error ? { name: value.name, message: value.message } : value;
    else out[key] = value;
  }
  return out;
}

/**
 * Probot's logger, as the project's: pino's calling conventions (`log.error(obj, msg)`,
 * `log.info(msg)`, `log.child(bindings)`) onto `logger`, so Probot's lines are JSON lines of the
 * same format, redacted, and never carry the event payload. Probot's lines are detail (the
 * intake logs every failure itself): they go out at debug, and its fatal ones as errors.
 */
export function probotLog(logger: Logger, bindings: Record<string, unknown> = {}): ProbotLogger {
  const write =
    (method: LogMethod) =>
    (first?: unknown, second?: unknown): void => {
      const fields =
        typeof first === 'object' && first !== null ? probotFields(first instanceof Error ? { err: first } : (first as Record<string, unknown>)) : {};
      const message = typeof first === 'string' ? first : typeof second === 'string' ? second : first instanceof Error ? first.message : 'probot';
      logger[method](message, { ...bindings, ...fields, source: 'probot' });
    };
  const log = {
    level: 'debug',
    trace: write('debug'),
    debug: write('debug'),
    info: write('debug'),
    warn: write('debug'),
    error: write('debug'),
    fatal: write('error'),
    silent: () => undefined,
    child: (more: Record<string, unknown>) => probotLog(logger, { ...bindings, ...probotFields(more) }),
    isLevelEnabled: () => true,
  };
  return log as unknown as ProbotLogger;
}
