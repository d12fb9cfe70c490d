import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, S3Event, S3EventRecord } from 'aws-lambda';
import { sign } from '@octokit/webhooks-methods';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { S3ArtifactStore, decodeS3EventKey } from '../../src/app/aws/s3-artifact-store.js';
import { createGitHubApi } from '../../src/app/github/github-api.js';
import { createDispatcherHandler } from '../../src/app/dispatch/create-dispatcher-handler.js';
import { createRunSessionHandler } from '../../src/app/dispatch/create-run-session-handler.js';
import { runSessionOpener } from '../../src/app/dispatch/run-session-client.js';
import type { PolicyDocument } from '../../src/app/dispatch/session-policy.js';
import { InProcessTokenBroker } from '../../src/app/tokens/in-process-token-broker.js';
import { createPublisherHandler, type PublisherResult } from '../../src/app/publisher/create-publisher-handler.js';
import { TOKEN_SCOPES } from '../../src/app/tokens/token-scopes.js';
import { CapturingLogger, CapturingSink } from '../../src/app/logger.js';
import { createMemoryFs } from '../../src/app/local/memfs-adapter.js';
import { createModelProvider } from '../../src/app/model/create-model-provider.js';
import { createModelCallHandler, LambdaModelProvider, modelCallProvider } from '../../src/app/model/model-call.js';
import { ModelConfigError, type ModelSettings } from '../../src/app/model/model-settings.js';
import { usdToMicro, type PriceTable } from '../../src/core/budget/cost.js';
import { lambdaOf } from './lambda-of.js';
import type { ModelProvider } from '../../src/core/ports.js';
import type { BlockModelServer } from './block-model-server.js';
import { BEDROCK_TEST_CREDENTIALS, startBedrockServer } from './bedrock-server.js';
import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { sweep, type SweepReport } from '../../src/app/sweeper/sweep.js';
import { admitRuns } from '../../src/app/queue/run-admission.js';
import type { DispatchOutcome } from '../../src/app/dispatch/create-dispatcher-handler.js';
import { RUN_RECORD_KEY, startWakeQueue, type WakeQueue } from './queue-wake.js';
import type { CampaignLauncher } from '../../src/app/campaign/campaign-launcher.js';
import { createIntakeHandler, type IntakeOutcome } from '../../src/app/webhook/create-intake-handler.js';
import type { ScheduleSyncLauncher } from '../../src/app/schedules/schedule-sync.js';
import { createWebhookHandler } from '../../src/app/webhook/create-webhook-handler.js';
import { parseDeliveryKey } from '../../src/core/artifacts/keys.js';
import { createWorkerHandler, type InvocationContext } from '../../src/app/worker/create-worker-handler.js';
import { codeBuildVerifier } from '../../src/app/worker/codebuild-verifier.js';
import { codeBuildService } from '../../src/app/verifier/codebuild-client.js';
import { createVerifierHandler, type VerifierOutcome } from '../../src/app/verifier/create-verifier-handler.js';
import { s3ObjectSize } from '../../src/app/verifier/s3-size.js';
import { functionForKey as serveFunctionForKey } from '../../src/app/serve/trigger-route.js';
import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import { startCodeBuildStandin, type CodeBuildStandin } from './codebuild-standin/codebuild-standin.js';
import type { ArtifactStore, Clock, IssuedToken, TokenBroker, TokenRole } from '../../src/core/ports.js';
import { parseRunKey } from '../../src/core/runs/run-key.js';
import type { TreeSyntaxService } from '../../src/core/syntax/create-syntax-service.js';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEMO_POLICY, MIGRATION_CHANGED_FILES, MIGRATION_TASK } from '../fixtures/migration-task.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';
import { policyScopedStore } from './iam-policy.js';
import { bucketPolicyStatements, roleStatements } from './stack-roles.js';
import {
  STANDIN_GITHUB_POLICY,
  startGitHubStandin,
  type GitHubStandin,
  type RepoPermission,
  type SeedFile,
  type StandinOptions,
  type StandinRepoSeed,
} from './github-standin/index.js';
import { encodeS3EventKey, startS3Server, type S3TestServer } from './s3-server.js';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerOptions } from './scripted-model-server.js';
import { recordingPuts } from './recording-store.js';

/**
 * The whole App on loopback, for end-to-end, security and reliability tests (issues 6 and 7):
 *
 *   s3rver (+ conditional writes) ── S3 events ──> drain() ──> worker / publisher handlers
 *   GitHub stand-in (REST + real git objects) <── every API call, with minted installation tokens
 *   git http-backend over the stand-in's repositories, behind an auth proxy that accepts only
 *     tokens the stand-in minted for that repository with contents:read (write for a push)
 *   webhook handler <── deliver(): a signed API Gateway v2 event, as GitHub + API Gateway send it
 *
 * Each function gets its own InProcessTokenBroker (webhook and worker: read; publisher: write),
 * its own logger (all lines in one CapturingSink) and the same fixed clock, exactly as the
 * composition roots in src/handlers wire them. Nothing is invoked behind the test's back: S3
 * notifications queue up until `drain()` forwards them, one at a time, in order.
 *
 *   const h = await startAppHarness();
 *   const res = await h.deliver('issues', h.payloads.labeled(1));   // 202
 *   await h.drain();                                                  // worker, then publisher
 *   h.standin.repo(h.fullName).pulls                                  // the draft PR
 *   await h.stop();
 */

export const HARNESS_OWNER = 'acme';
export const HARNESS_REPO = 'orders';
export const HARNESS_FULL_NAME = `${HARNESS_OWNER}/${HARNESS_REPO}`;
export const HARNESS_REPOSITORY_ID = 4242;
export const HARNESS_INSTALLATION_ID = 7;
export const HARNESS_APP_ID = 31;
export const HARNESS_BOT_LOGIN = 'draftsman[bot]';
/** Issue n's GitHub id (not its number) in payloads: ISSUE_ID_BASE + n. */
export const ISSUE_ID_BASE = 1_000_000;
/** A collaborator with write permission (may start, approve, cancel). */
export const MAINTAINER = 'maya';
/** A collaborator with read permission (may not start anything). */
export const READER = 'rick';
/** Every harness starts at this instant; `harness.clock.advance(ms)` moves it. */
export const HARNESS_START = Date.parse('2026-02-03T04:05:06.000Z');

/** The trusted policy on the default branch unless `policy` is given. */
export const DEFAULT_POLICY = `${DEMO_POLICY}limits:
  runsPerHour: 100
  maxOpenPullRequests: 20
`;

/** Issue 6's task: migrate javax.persistence to jakarta.persistence and bump the Spring Boot parent. */
export const MIGRATION_ISSUE_BODY = MIGRATION_TASK;

/** Files the migration task changes in the Maven fixture. */
export { MIGRATION_CHANGED_FILES };

export type HarnessFunction = 'webhook' | 'intake' | 'worker' | 'publisher' | 'verifier';
/** Functions the harness runs on demand rather than from a bucket notification. */
type ScheduledFunction = 'sweeper' | 'dispatcher';

/** One read of a trusted function: `get` of a key, or `list` of a prefix. */
export interface TrustedRead {
  fn: 'webhook' | 'intake' | 'dispatcher' | 'runSession' | 'publisher';
  op: 'get' | 'list';
  key: string;
}

/** `inner`, with every get and list reported to `note` first. */
function recordingReads(inner: ArtifactStore, note: (op: TrustedRead['op'], key: string) => void): ArtifactStore {
  return {
    ...inner,
    get: (key) => (note('get', key), inner.get(key)),
    list: (prefix) => (note('list', prefix), inner.list(prefix)),
    delete: (key) => inner.delete(key),
    put: (key, body, options) => inner.put(key, body, options),
    putIfAbsent: (key, body, options) => inner.putIfAbsent(key, body, options),
    putIfMatch: (key, body, etag, options) => inner.putIfMatch(key, body, etag, options),
  };
}

export interface AppHarnessOptions {
  /** Files of the seed commit on `main`; default the Maven multi-module fixture. */
  files?: Record<string, SeedFile>;
  /** `.agent-policy.yaml` on the default branch: default DEFAULT_POLICY; null leaves it out. */
  policy?: string | null;
  /** Collaborators and their permission; default `{ maya: 'write', rick: 'read' }`. */
  users?: Record<string, RepoPermission>;
  /**
   * A secret planted where only secrets live (it is the webhook secret). `secrets()` and
   * `leaks()` look for it together with every minted token and the App private key.
   */
  canary?: string;
  /** Issues on the repository; default issues 1..9, each titled and carrying MIGRATION_ISSUE_BODY. */
  issues?: StandinRepoSeed['issues'];
  /** What the worker's `getRemainingTimeInMillis` answers (continuation tests); default 15 minutes. */
  remainingTimeMs?: () => number;
  /**
   * A scripted OpenAI-compatible server the worker uses as its model (with API key
   * MODEL_API_KEY, itself a secret for `leaks()`). Without it the worker has no model.
   */
  model?: ScriptedModelServerOptions;
  /**
   * Which wire protocol the worker's model speaks, through the same factory the worker handler
   * uses: `openai` (default, the scripted server) or `bedrock` (the loopback Bedrock runtime,
   * signed with BEDROCK_TEST_CREDENTIALS, running the same `model.script`).
   */
  modelProvider?: 'openai' | 'bedrock';
  /** MODEL_PRICES of the worker and model-call (a policy's cost caps need a price for the model: `scripted`). */
  prices?: PriceTable;
  /** INSTALLATION_MONTHLY_COST_USD of model-call. */
  installationMonthlyCostUsd?: number;
  /**
   * The worker's model as deployed: every call (and the check before the first phase) goes
   * through model-call (LambdaModelProvider invoking createModelCallHandler), whose settings are
   * the scripted server's with these replacing them (`{ provider: 'anthropic', apiKey: '' }`: a
   * missing key). Needs `model`.
   */
  modelCall?: Partial<ModelSettings>;
  /**
   * `codebuild`: the worker verifies as the Lambda worker does (`codeBuildVerifier`), and a
   * build request goes to the verifier function (VerifierRole), which starts the build on the
   * CodeBuild stand-in with the real client; `drain()` waits for running builds and hands their
   * state-change events to the verifier.
   */
  verify?: 'codebuild';
  /** The intake's campaign launcher (docs/campaigns.md); without it `/agent campaign start` says campaigns are not set up. */
  campaigns?: CampaignLauncher;
  /** The intake's schedule sync (src/app/schedules/schedule-sync.ts); without it `agent.schedules` is not synchronised. */
  schedules?: ScheduleSyncLauncher;
  /** More repositories on the stand-in (a campaign's targets), beside \`acme/orders\`. */
  extraRepos?: StandinRepoSeed[];
  /** More installations of the App on the stand-in (a campaign's targets elsewhere), beside the harness's own. */
  extraInstallations?: StandinOptions['installations'];
  /** The stand-in answers each GitHub API call after this long (default 0; the benchmarks use real GitHub's latency). */
  githubLatencyMs?: number;
  /** The worker's reserved concurrency (WORKER_CONCURRENCY of the intake and the dispatcher): runs beyond it wait in the run queue; default 5. */
  workerSlots?: number;
}

/** The model id the harness's Bedrock provider asks for. */
export const HARNESS_BEDROCK_MODEL = 'anthropic.claude-harness-v1:0';

/** The model API key the worker sends when `model` is set. */
export const MODEL_API_KEY = 'sk-harness-model-key-0123456789abcdef';

export interface DeliverOptions {
  /** X-GitHub-Delivery; default a fresh deterministic GUID. A redelivery reuses the first one's id. */
  deliveryId?: string;
  /** Sign with the wrong secret. */
  badSignature?: boolean;
  /** Extra or replacing headers (any case). */
  headers?: Record<string, string>;
  /** Body encoding as API Gateway sends it; default alternates (every second delivery is base64). */
  base64?: boolean;
  /**
   * Run the intake for the delivery the webhook stored, from the bucket's notification, before
   * `deliver` returns (default true). false leaves the notification queued for `drain()`.
   */
  intake?: boolean;
}

export interface DeliveryResult {
  statusCode: number;
  body: string;
  deliveryId: string;
  /** The key the webhook stored the delivery under, when it stored it. */
  stored?: string;
  /** GitHub API calls the stand-in received while the webhook ran (before its answer). */
  callsBeforeAnswer: number;
  /** What the intake did with the stored delivery, when it ran. */
  intake?: IntakeOutcome[];
}

/** One S3 notification the harness forwarded (or chose not to). */
export interface Dispatch {
  key: string;
  fn: HarnessFunction | 'none';
  /** Invocation number of this key (1 = first, >1 = retries). */
  invocation: number;
  error?: unknown;
  /** The publisher's results for publisher invocations. */
  publisher?: PublisherResult[];
  /** The verifier's outcomes for verifier invocations (a build request, or a build's state change, keyed by build id). */
  verifier?: VerifierOutcome[];
  /** Wall time of the invocation, in milliseconds. */
  ms?: number;
}

export interface DrainOptions {
  /** Re-invocations after a failed one, as Lambda async invocation does (default 0; Lambda: 2). */
  retries?: number;
  /** Only forward to these functions; other notifications stay queued. */
  only?: HarnessFunction[];
  /** Only forward notifications of keys this accepts; others stay queued. */
  keys?: (key: string) => boolean;
  /** Throw an AggregateError when an invocation failed for good (default true). */
  throwOnError?: boolean;
  /** Upper bound on invocations in this drain (a loop guard); default 200. */
  maxInvocations?: number;
}

/** One request that reached the git auth proxy. Never the credential. */
export interface GitAccess {
  method: string;
  path: string;
  /** `owner/name` taken from the path. */
  fullName: string;
  service?: string;
  access: 'read' | 'write';
  /** The stand-in's id of the token used, when one was presented and known. */
  tokenId?: string;
  tokenPermissions?: Record<string, string>;
  status: number;
}

/** A token one of the functions obtained from its broker. */
export interface IssuedTokenRecord {
  fn: HarnessFunction | ScheduledFunction;
  role: TokenRole;
  tokenId: string;
  permissions: Record<string, string>;
}

export interface Leak {
  /** Which secret: `token:<id>`, `private-key`, `canary`, `model-api-key`. */
  secret: string;
  /** Where: `s3:<key>`, `log:<line no>`, `github:comment:<id>`, `github:pull:<n>`, `github:call:<i>`, `model:request:<i>`. */
  where: string;
}

export interface AppHarness {
  owner: string;
  repo: string;
  fullName: string;
  repositoryId: number;
  installationId: number;
  botLogin: string;
  clock: { now(): number; advance(ms: number): void };
  s3: S3TestServer;
  standin: GitHubStandin;
  /** The git http-backend serving `standin.gitRoot` (anonymous; reached only through `gitUrl`). */
  gitBackend: GitHttpServer;
  /** Base URL of the authenticating git proxy; the worker clones `${gitUrl}/<owner>/<repo>.git`. */
  gitUrl: string;
  /** Every request the git proxy saw, oldest first. */
  gitAccess: GitAccess[];
  /** The scripted model server, when `model` was given (and the provider is openai). */
  model?: ScriptedModelServer;
  /** The loopback Bedrock runtime, when `model` was given with `modelProvider: 'bedrock'`. */
  bedrock?: BlockModelServer;
  /** The CodeBuild stand-in, with `verify: 'codebuild'`. */
  codebuild?: CodeBuildStandin;
  /** Every token a function's broker handed out, oldest first. */
  issued: IssuedTokenRecord[];
  /** The store every function uses (s3rver through the S3 adapter). */
  store: ArtifactStore;
  /** Every read (get, list) the trusted functions made, oldest first: what `test/e2e/trust-table.test.ts` holds to docs/trust-chain.md. */
  trustedReads: TrustedRead[];
  /** Every log line of the three functions (each line carries `fn`). */
  logs: CapturingSink;
  /**
   * The run queue's wake-up queue (SQS stand-in): `drain()` sends a message for every run.json
   * written (the EventBridge rule) and, when nothing else is queued, hands visible messages to
   * the dispatcher (Lambda's SQS event source); `sweep()` wakes it too.
   */
  wakeQueue: WakeQueue;
  /** What each wake-up's admission pass did, oldest first. */
  queueWakes: DispatchOutcome[];
  /** Every S3 notification forwarded so far, oldest first. */
  dispatched: Dispatch[];
  /** Invocations that failed for good (every try), oldest first: what Lambda sends to the dead-letter queue. */
  deadLetters: Dispatch[];
  /** Example payloads (from @octokit/webhooks-examples) pointed at the stand-in's repository, users and issues. */
  payloads: HarnessPayloads;
  /** Sign and deliver one webhook to the webhook handler, as API Gateway v2 would. */
  deliver(eventName: string, payload: unknown, options?: DeliverOptions): Promise<DeliveryResult>;
  /** Forward queued S3 notifications to the worker and the publisher until nothing is left. */
  drain(options?: DrainOptions): Promise<Dispatch[]>;
  /** ObjectCreated notifications for the worker or the publisher not forwarded yet (keys, decoded). */
  pending(): string[];
  /**
   * Queue an ObjectCreated notification for `key` again, as S3's at-least-once delivery may
   * (the next `drain()` forwards it). The object need not exist.
   */
  requeue(key: string): void;
  /** Every object in the bucket. */
  objects(): Promise<{ key: string; body: Uint8Array; text: string }[]>;
  /** An object's JSON, or undefined when absent. */
  json<T = any>(key: string): Promise<T | undefined>;
  /** Run `fn` before each of the worker's store writes (put, putIfAbsent, putIfMatch) completes, with the worker's own store (its run session's view); returns an unsubscribe. */
  interceptWorkerWrites(fn: (key: string, workerStore: ArtifactStore) => void | Promise<void>): () => void;
  /** What the worker's pipelines called of `ingestionMemory`, in order ('enter', 'leave'). */
  ingestionMemoryCalls: string[];
  /** The values a leak scan looks for: minted tokens, the App private key (and its lines), the canary. */
  secrets(): { label: string; value: string }[];
  /** Where any secret occurs: S3 objects, log lines, comments and PR bodies, request bodies sent to GitHub or the model. */
  leaks(): Promise<Leak[]>;
  /** The stand-in's id of a token value. */
  tokenId(token: string): string | undefined;
  /**
   * One scheduled sweep (src/app/sweeper/sweep.ts) at the harness clock, as deployed: SweeperRole's
   * view of the bucket and a token-read broker. What it writes is queued like any write: `drain()`
   * forwards it.
   */
  sweep(options?: { stuckAfterMs?: number }): Promise<SweepReport>;
  /** The progress comment body of an issue (the App's comment carrying the progress marker), if any. */
  comments(issue: number): { id: number; body: string; user: string }[];
  stop(): Promise<void>;
}

export interface HarnessPayloads {
  /** Applies the label on the stand-in (the issue's updated_at moves to the harness clock), then builds the event. */
  labeled(issue: number, options?: { label?: string; sender?: string }): Record<string, unknown>;
  /** A comment written now by the harness clock, or at `createdAt` (epoch ms). */
  comment(
    issue: number,
    body: string,
    options?: { sender?: string; commentId?: number; senderType?: 'User' | 'Bot'; createdAt?: number },
  ): Record<string, unknown>;
  closed(issue: number, options?: { sender?: string }): Record<string, unknown>;
  /** `issues.opened` for an issue seeded in the stand-in, with its labels and author. */
  opened(issue: number): Record<string, unknown>;
  /** `issue_comment.created` on pull request `number` (a PR is an issue; `issue.pull_request` is set). */
  prComment(number: number, body: string, options?: { sender?: string; commentId?: number; senderType?: 'User' | 'Bot' }): Record<string, unknown>;
  /** `pull_request_review.submitted` for a review added with `standin.addReview`. */
  reviewSubmitted(number: number, review: { id: number; body: string; sender?: string; commitId: string; state?: string }): Promise<Record<string, unknown>>;
  /** `pull_request_review_comment.created`: an inline comment on `path` at `line` of pull request `number`. */
  reviewComment(
    number: number,
    comment: { id: number; body: string; path: string; line: number; sender?: string; senderType?: 'User' | 'Bot' },
  ): Promise<Record<string, unknown>>;
  checkSuiteCompleted(suite: {
    id: number;
    headSha: string;
    headBranch: string | null;
    conclusion?: string | null;
    app?: { id: number; slug: string };
  }): Record<string, unknown>;
  /** A `push` of `before..after` to `refs/heads/<branch>` (see test/helpers/push-commit.ts to make the commit). */
  push(branch: string, commits: { before: string; after: string }, options?: { sender?: string }): Record<string, unknown>;
  /** `pull_request.closed` for pull request `number` of the harness repository, merged or not. */
  pullRequestClosed(number: number, pr: { merged: boolean; headRef: string; headSha: string }): Record<string, unknown>;
}

const require = createRequire(import.meta.url);
const EXAMPLES = require('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[];

/** An example payload of `event` with `action` (undefined: an event without actions, such as push). */
function example(event: string, action: string | undefined): Record<string, unknown> {
  const found = EXAMPLES.find((g) => g.name === event)?.examples.find((e) => e.action === action);
  if (!found) throw new Error(`no @octokit/webhooks-examples payload for ${event}.${action}`);
  return structuredClone(found);
}

let sharedSyntax: Promise<TreeSyntaxService> | undefined;
/** One syntax service per process: grammar loading is the slow part. */
function syntaxService(): Promise<TreeSyntaxService> {
  sharedSyntax ??= createNodeSyntaxService();
  return sharedSyntax;
}

let sharedKey: string | undefined;
/** One App key per process (RSA generation costs ~100 ms). */
function appPrivateKey(): string {
  sharedKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  return sharedKey;
}

/**
 * Which function an S3 ObjectCreated key triggers: the bucket notifications `serve` follows too,
 * and the EventBridge rules of infra/bucket.yml for verification (a build request to the
 * verifier, a build's result to the dispatcher, which resumes the worker).
 */
export function functionForKey(key: string): HarnessFunction | 'none' {
  const kind = parseRunKey(key)?.kind;
  if (kind === 'verify-request') return 'verifier';
  if (kind === 'verify-result') return 'worker';
  return serveFunctionForKey(key) ?? 'none';
}

/**
 * The stand-in as every App-level test seeds it: the App, its installation, and `acme/orders`
 * with the Maven multi-module tree, the default policy, the maintainer and the reader, and
 * migration issues (what the harness, `draftsman serve`'s test and the bundle test all start from).
 */
export function harnessStandinOptions(o: {
  privateKeyPem: string;
  clock?: StandinOptions['clock'];
  users?: Record<string, RepoPermission>;
  files?: Record<string, SeedFile>;
  issues?: NonNullable<StandinRepoSeed['issues']>;
  extraRepos?: StandinRepoSeed[];
  extraInstallations?: StandinOptions['installations'];
}): StandinOptions {
  const users = o.users ?? { [MAINTAINER]: 'write', [READER]: 'read' };
  const files = o.files ?? { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEFAULT_POLICY };
  const issues = o.issues ?? [{ number: 1, title: 'Migrate to Jakarta Persistence (1)', body: MIGRATION_ISSUE_BODY, user: MAINTAINER }];
  return {
    appId: HARNESS_APP_ID,
    privateKeyPem: o.privateKeyPem,
    clock: o.clock,
    users: Object.keys(users),
    installations: [{ id: HARNESS_INSTALLATION_ID, account: HARNESS_OWNER }, ...(o.extraInstallations ?? [])],
    repos: [
      { owner: HARNESS_OWNER, name: HARNESS_REPO, id: HARNESS_REPOSITORY_ID, installationId: HARNESS_INSTALLATION_ID, files, collaborators: users, issues },
      ...(o.extraRepos ?? []),
    ],
  };
}

/** A token broker of the read role over the harness's App key and stand-in, as token-read is deployed. */
export function harnessReadTokens(h: AppHarness): InProcessTokenBroker {
  const pem = h.secrets().find((s) => s.label === 'private-key')!.value;
  return new InProcessTokenBroker({
    appId: HARNESS_APP_ID,
    apiUrl: h.standin.url,
    clock: h.clock,
    loadPrivateKey: async () => pem,
    policy: STANDIN_GITHUB_POLICY,
    role: 'read',
  });
}

/**
 * A worker wired like the harness's (stand-in, git proxy, read-only tokens) over `store`, for
 * tests that invoke it directly: a retry can carry the request id of the invocation it retries,
 * as Lambda's async retries do. The run session is fixed: these tests are about resuming, not
 * about the trust chain.
 */
export function directWorkerHandler(h: AppHarness, store: ArtifactStore): ReturnType<typeof createWorkerHandler> {
  return createWorkerHandler({
    session: async () => ({ store, tokens: harnessReadTokens(h) }),
    github: (token) => createGitHubApi({ token, baseUrl: h.standin.url, policy: STANDIN_GITHUB_POLICY }),
    clock: h.clock,
    logger: new CapturingLogger({ clock: h.clock }),
    syntax: () => createNodeSyntaxService(),
    newFs: createMemoryFs,
    identity: { name: h.botLogin, email: `${h.botLogin}@users.noreply.github.com` },
    cloneUrl: (request) => `${h.gitUrl}/${request.owner}/${request.repo}.git`,
  });
}

/** The worker's model: the Bedrock stand-in, the scripted server directly, or (`modelCall`) through model-call as deployed. */
function harnessProviderModel(
  options: AppHarnessOptions,
  modelServer: ScriptedModelServer | undefined,
  bedrockServer: { baseUrl: string } | undefined,
): ModelProvider | ModelConfigError | undefined {
  const noRetries = { maxRetries: 0, sleep: async () => {} };
  if (bedrockServer)
    return createModelProvider(
      { provider: 'bedrock', model: HARNESS_BEDROCK_MODEL, baseUrl: bedrockServer.baseUrl, region: 'us-east-1' },
      { ...noRetries, awsCredentials: BEDROCK_TEST_CREDENTIALS },
    );
  if (!modelServer) return undefined;
  const scripted = { provider: 'openai', model: 'scripted', baseUrl: modelServer.baseUrl, apiKey: MODEL_API_KEY };
  // With `modelCall`, model-call is configured with these settings over the scripted model's (a missing key, a bad provider).
  return modelCallProvider(() => createModelProvider({ ...scripted, ...options.modelCall }, noRetries));
}

/** Start everything on loopback; `stop()` tears it all down. */
export async function startAppHarness(options: AppHarnessOptions = {}): Promise<AppHarness> {
  let now = HARNESS_START;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const privateKeyPem = appPrivateKey();
  const secret = options.canary ?? 'harness-webhook-secret-0123456789';
  const users = options.users ?? { [MAINTAINER]: 'write', [READER]: 'read' };
  const files: Record<string, SeedFile> = { ...(options.files ?? mavenMultiModuleRepo()) };
  const policy = options.policy === undefined ? DEFAULT_POLICY : options.policy;
  if (policy !== null) files['.agent-policy.yaml'] = policy;
  const issues =
    options.issues ??
    Array.from({ length: 9 }, (_, i) => ({ number: i + 1, title: `Migrate to Jakarta Persistence (${i + 1})`, body: MIGRATION_ISSUE_BODY, user: MAINTAINER }));

  // The packaged bucket policy holds for every caller, as S3 applies it (a trail is create-only).
  const s3 = await startS3Server({ bucketPolicy: bucketPolicyStatements('draftsman-test') });
  const queue: S3EventRecord[] = [];
  // `deliver` waits for the notification of the delivery it stored: handed over as it arrives.
  const notificationWaiters = new Map<string, ((record: S3EventRecord) => void)[]>();
  const unsubscribe = s3.onEvent((event) => {
    for (const record of event.Records) {
      const waiting = record.eventName.startsWith('ObjectCreated') ? notificationWaiters.get(decodeS3EventKey(record.s3.object.key)) : undefined;
      const take = waiting?.shift();
      if (take) take(record);
      else queue.push(record);
    }
  });
  const standin = await startGitHubStandin({
    ...harnessStandinOptions({ privateKeyPem, clock, users, files, issues, extraRepos: options.extraRepos, extraInstallations: options.extraInstallations }),
    latencyMs: options.githubLatencyMs,
  });
  const gitBackend = await startGitHttpServer({ root: standin.gitRoot });
  const useBedrock = options.model !== undefined && options.modelProvider === 'bedrock';
  const modelServer = options.model && !useBedrock ? await startScriptedModelServer({ ...options.model, apiKey: MODEL_API_KEY }) : undefined;
  const bedrockServer =
    options.model && useBedrock
      ? await startBedrockServer({ script: options.model.script, accessKeyId: BEDROCK_TEST_CREDENTIALS.accessKeyId, region: 'us-east-1' })
      : undefined;
  const providerModel = harnessProviderModel(options, modelServer, bedrockServer);

  const tokenId = (token: string): string | undefined => {
    const values = standin.state.tokenValues();
    const index = values.indexOf(token);
    return index >= 0 ? standin.state.tokens()[index]?.id : undefined;
  };
  const tokenOf = (token: string) => {
    const index = standin.state.tokenValues().indexOf(token);
    return index >= 0 ? standin.state.tokens()[index] : undefined;
  };

  const gitAccess: GitAccess[] = [];
  const proxy = await startGitAuthProxy({
    target: gitBackend.url,
    authorize: (token, fullName, access) => standin.authorizeGit(token, fullName, access),
    describe: (token) => {
      const t = tokenOf(token);
      return t ? { tokenId: t.id, tokenPermissions: { ...t.permissions } } : {};
    },
    record: (r) => gitAccess.push(r),
  });

  const store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => {} });
  const logs = new CapturingSink();
  const loggerFor = (fn: HarnessFunction | ScheduledFunction) => new CapturingLogger({ clock, bindings: { fn } }, logs);
  const loggers = {
    webhook: loggerFor('webhook'),
    intake: loggerFor('intake'),
    worker: loggerFor('worker'),
    publisher: loggerFor('publisher'),
    sweeper: loggerFor('sweeper'),
    dispatcher: loggerFor('dispatcher'),
  };
  const wakeQueue = await startWakeQueue();
  const queueWakes: DispatchOutcome[] = [];
  const issued: IssuedTokenRecord[] = [];
  const tokenOptions = { appId: HARNESS_APP_ID, apiUrl: standin.url, clock, loadPrivateKey: async () => privateKeyPem, policy: STANDIN_GITHUB_POLICY };
  const broker = (fn: HarnessFunction | ScheduledFunction, role: TokenRole): TokenBroker => {
    const inner = new InProcessTokenBroker({ ...tokenOptions, role });
    return {
      async token(request): Promise<IssuedToken> {
        const result = await inner.token(request);
        const t = tokenOf(result.token);
        issued.push({ fn, role: request.role, tokenId: t?.id ?? 'unknown', permissions: { ...(t?.permissions ?? {}) } });
        return result;
      },
    };
  };
  const api = (logger: CapturingLogger) => (token: string) => {
    logger.redact(token);
    return createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY, logger });
  };

  // The webhook and the intake see the bucket through their roles in infra/roles.yml; the
  // webhook's store also notes what it wrote, so `deliver` runs the intake for exactly that.
  const trustedReads: TrustedRead[] = [];
  const readsOf = (fn: TrustedRead['fn'], inner: ArtifactStore) => recordingReads(inner, (op, key) => trustedReads.push({ fn, op, key }));
  const roleStore = (role: string) => policyScopedStore(store, s3.bucket, [roleStatements(role, { bucket: s3.bucket })], {});
  const workerModel = deployedModel(providerModel, { store: roleStore('ModelCallRole'), clock, options });
  const webhookRoleStore = readsOf('webhook', roleStore('WebhookRole'));
  const storedByWebhook: string[] = [];
  const webhookStore = recordingPuts(webhookRoleStore, (key) => storedByWebhook.push(key));
  const webhook = createWebhookHandler({ store: webhookStore, clock, logger: loggers.webhook, secret, botLogin: HARNESS_BOT_LOGIN });
  const intake = await createIntakeHandler({
    store: readsOf('intake', roleStore('IntakeRole')),
    tokens: broker('intake', 'read'),
    github: api(loggers.intake),
    clock,
    logger: loggers.intake,
    appId: HARNESS_APP_ID,
    botLogin: HARNESS_BOT_LOGIN,
    apiUrl: standin.url,
    campaigns: options.campaigns,
    schedules: options.schedules,
    workerSlots: options.workerSlots,
  });

  // The trust chain as deployed: S3 events go to the dispatcher, which invokes the worker with
  // a capability; the worker trades it at run-session for a store that enforces RunWorkerRole
  // (from infra/roles.yml) and the session policy, and for its run's read token.
  const interceptors = new Set<(key: string, workerStore: ArtifactStore) => void | Promise<void>>();
  const runWorkerRole = roleStatements('RunWorkerRole', { bucket: s3.bucket });
  const vended = new Map<string, { policy?: PolicyDocument; tags: Record<string, string> }>();
  const sessionSecrets: string[] = [];
  const runSession = createRunSessionHandler({
    store: readsOf('runSession', store),
    clock,
    logger: new CapturingLogger({ clock, bindings: { fn: 'runSession' } }, logs),
    credentials: {
      async issue(input) {
        const n = vended.size + 1;
        const credentials = {
          accessKeyId: `ASIAHARNESS${n}`,
          secretAccessKey: `harness-secret-access-key-${n}`,
          sessionToken: `harness-session-token-${n}`,
          expiration: new Date(clock.now() + input.durationSeconds * 1000).toISOString(),
        };
        vended.set(credentials.accessKeyId, { policy: input.policy, tags: Object.fromEntries(input.tags.map((t) => [t.Key, t.Value])) });
        sessionSecrets.push(credentials.secretAccessKey, credentials.sessionToken);
        return credentials;
      },
    },
    tokens: broker('worker', 'read'),
    bucket: s3.bucket,
  });
  let capabilities = 0;
  /**
   * The dispatcher as deployed: it invokes the worker asynchronously, so its own invocation
   * succeeds once the invoke is accepted; Lambda then retries a failed worker `retries` times
   * with the same payload (the same capability) and the same request id. The worker's last
   * error, if every try failed, is what an on-failure destination would receive.
   */
  const dispatcherFor = (context: InvocationContext, retries: number, failed: { error?: unknown }) =>
    createDispatcherHandler({
      store: readsOf('dispatcher', roleStore('DispatcherRole')),
      clock,
      logger: new CapturingLogger({ clock, bindings: { fn: 'dispatcher' } }, logs),
      random: (size) => createHash('sha256').update(`harness-capability-${++capabilities}`).digest().subarray(0, size),
      admit: () =>
        admitRuns({
          store: readsOf('dispatcher', roleStore('DispatcherRole')),
          tokens: broker('dispatcher', 'read'),
          github: api(loggers.dispatcher),
          clock,
          logger: loggers.dispatcher,
          botLogin: HARNESS_BOT_LOGIN,
          workerSlots: options.workerSlots,
        }),
      invokeWorker: async (invocation) => {
        sessionSecrets.push(invocation.capability);
        for (let attempt = 0; attempt <= retries; attempt++) {
          try {
            await worker(invocation, context);
            failed.error = undefined;
            return;
          } catch (error) {
            failed.error = error;
          }
        }
      },
    });
  const ingestionMemoryCalls: string[] = [];
  const worker = createWorkerHandler({
    session: runSessionOpener({
      invoke: (invocation) => runSession(invocation),
      storeFor: (credentials) => {
        const session = vended.get(credentials.accessKeyId);
        if (!session) throw new Error('credentials run-session never vended');
        const layers = session.policy ? [runWorkerRole, session.policy.Statement] : [runWorkerRole];
        return interceptWrites(policyScopedStore(store, s3.bucket, layers, session.tags), interceptors);
      },
      redact: (value) => loggers.worker.redact(value),
    }),
    github: (token) => createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY, logger: loggers.worker }),
    clock,
    logger: loggers.worker,
    syntax: syntaxService,
    newFs: createMemoryFs,
    model: workerModel,
    prices: options.prices,
    verifier: options.verify === 'codebuild' ? codeBuildVerifier : undefined,
    ingestionMemory: { enter: () => void ingestionMemoryCalls.push('enter'), leave: () => void ingestionMemoryCalls.push('leave') },
    identity: { name: HARNESS_BOT_LOGIN, email: `${HARNESS_BOT_LOGIN}@users.noreply.github.com` },
    cloneUrl: (request) => `${proxy.url}/${request.owner}/${request.repo}.git`,
  });
  const publisher = createPublisherHandler({
    store: readsOf('publisher', store),
    tokens: broker('publisher', 'write'),
    github: api(loggers.publisher),
    clock,
    logger: loggers.publisher,
    botLogin: HARNESS_BOT_LOGIN,
  });

  // Verification builds as deployed: the verifier (VerifierRole) starts them with the real
  // CodeBuild client; each build's state-change event waits for `drain()`, as EventBridge's would.
  const buildEvents: unknown[] = [];
  const codebuild =
    options.verify === 'codebuild'
      ? await startCodeBuildStandin({ s3Endpoint: s3.endpoint, onEvent: async (event) => void buildEvents.push(event) })
      : undefined;
  const verifier = codebuild
    ? createVerifierHandler({
        store: roleStore('VerifierRole'),
        sizeOf: s3ObjectSize(s3.client, s3.bucket),
        clock,
        logger: new CapturingLogger({ clock, bindings: { fn: 'verifier' } }, logs),
        builds: codeBuildService(
          new CodeBuildClient({
            endpoint: codebuild.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'AKIDHARNESSVERIFIER', secretAccessKey: 'harness-verifier-secret' },
            maxAttempts: 1,
          }),
        ),
        credentials: {
          // s3rver accepts only its own key pair; the session token rides along as a real session's would.
          issue: async () => {
            const sessionToken = `harness-build-session-${sessionSecrets.length + 1}`;
            sessionSecrets.push(sessionToken);
            return { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', sessionToken, expiration: new Date(clock.now() + 3_600_000).toISOString() };
          },
        },
        bucket: s3.bucket,
        projects: { isolated: 'draftsman-verify' },
        image: 'aws/codebuild/standard:7.0',
      })
    : undefined;

  let deliveries = 0;
  let invocations = 0;
  const dispatched: Dispatch[] = [];
  const deadLetters: Dispatch[] = [];
  const invocationsByKey = new Map<string, number>();

  const deliver = async (eventName: string, payload: unknown, opts: DeliverOptions = {}): Promise<DeliveryResult> => {
    deliveries += 1;
    const deliveryId = opts.deliveryId ?? `00000000-0000-4000-8000-${String(deliveries).padStart(12, '0')}`;
    const body = JSON.stringify(payload);
    const signature = await sign(opts.badSignature ? `${secret}-wrong` : secret, body);
    const base64 = opts.base64 ?? deliveries % 2 === 0;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/harness',
      'x-github-delivery': deliveryId,
      'x-github-event': eventName,
      'x-github-hook-id': '1',
      'x-github-hook-installation-target-id': String(HARNESS_APP_ID),
      'x-github-hook-installation-target-type': 'integration',
      'x-hub-signature-256': signature,
    };
    for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
    const event = {
      version: '2.0',
      routeKey: 'POST /webhook',
      rawPath: '/webhook',
      rawQueryString: '',
      headers,
      requestContext: {
        http: { method: 'POST', path: '/webhook', protocol: 'HTTP/1.1', sourceIp: '140.82.115.1', userAgent: headers['user-agent'] },
        requestId: `api-${deliveries}`,
        routeKey: 'POST /webhook',
        stage: '$default',
        timeEpoch: clock.now(),
      },
      body: base64 ? Buffer.from(body, 'utf8').toString('base64') : body,
      isBase64Encoded: base64,
    } as unknown as APIGatewayProxyEventV2;
    const callsBefore = standin.calls.length;
    const writtenBefore = storedByWebhook.length;
    const result: APIGatewayProxyStructuredResultV2 = await webhook(event);
    const callsBeforeAnswer = standin.calls.length - callsBefore;
    // This delivery's own object (deliveries run side by side in some tests).
    const stored = storedByWebhook.slice(writtenBefore).find((key) => parseDeliveryKey(key) === deliveryId);
    const answered = { statusCode: result.statusCode ?? 0, body: typeof result.body === 'string' ? result.body : '', deliveryId, stored, callsBeforeAnswer };
    if (!stored || opts.intake === false) return answered;
    // The bucket's notification for the stored delivery, as the intake function receives it.
    const record = await takeNotification(stored);
    invocations += 1;
    const invocation = (invocationsByKey.get(stored) ?? 0) + 1;
    invocationsByKey.set(stored, invocation);
    const dispatch: Dispatch = { key: stored, fn: 'intake', invocation };
    dispatched.push(dispatch);
    try {
      return { ...answered, intake: await intake.handle({ Records: [record] }) };
    } catch (error) {
      dispatch.error = error;
      throw error;
    }
  };

  /** Wait for s3rver's ObjectCreated notification of `key` (queued before the PUT is answered) and take it off the queue. */
  const takeNotification = async (key: string): Promise<S3EventRecord> => {
    const index = queue.findIndex((r) => r.eventName.startsWith('ObjectCreated') && decodeS3EventKey(r.s3.object.key) === key);
    if (index >= 0) return queue.splice(index, 1)[0];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = notificationWaiters.get(key) ?? [];
        list.splice(list.indexOf(take), 1);
        reject(new Error(`no ObjectCreated notification for ${key}`));
      }, 60_000);
      const take = (record: S3EventRecord) => {
        clearTimeout(timer);
        resolve(record);
      };
      notificationWaiters.set(key, [...(notificationWaiters.get(key) ?? []), take]);
    });
  };

  // s3rver emits a PUT's notification before it answers the PUT, so by the time a handler's
  // writes have resolved their notifications are queued; one turn of the event loop lets any
  // answer already on the socket be read.
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  /** Builds still running end; each state-change event goes to the verifier, as EventBridge delivers it. Empty when none ended. */
  const deliverBuildEvents = async (only: DrainOptions['only']): Promise<Dispatch[]> => {
    if (!codebuild || !verifier || only?.includes('verifier') === false) return [];
    await codebuild.idle();
    const out: Dispatch[] = [];
    for (const event of buildEvents.splice(0)) {
      invocations += 1;
      const dispatch: Dispatch = { key: (event as { detail: { 'build-id': string } }).detail['build-id'], fn: 'verifier', invocation: 1 };
      try {
        dispatch.verifier = await verifier(event);
      } catch (error) {
        dispatch.error = error;
        deadLetters.push(dispatch);
      }
      dispatched.push(dispatch);
      out.push(dispatch);
    }
    return out;
  };

  /**
   * One invocation of `fn` with the bucket's event, its results noted on `dispatch`. The worker
   * runs behind the dispatcher, which Lambda retries `retries` times on its own: the worker's
   * last error, when every try failed, is returned.
   */
  const invoke = async (fn: HarnessFunction, event: S3Event, dispatch: Dispatch, retries: number): Promise<{ workerError?: unknown }> => {
    if (fn === 'intake') await intake.handle(event);
    else if (fn === 'worker') {
      const context: InvocationContext = {
        awsRequestId: `worker-${invocations}`,
        getRemainingTimeInMillis: options.remainingTimeMs ?? (() => 15 * 60_000),
      };
      const worker: { error?: unknown } = {};
      await dispatcherFor(context, retries, worker)(event);
      return { workerError: worker.error };
    } else if (fn === 'verifier') {
      if (!verifier) throw new Error('a build request, but the harness was started without verify: codebuild');
      dispatch.verifier = await verifier(event);
    } else dispatch.publisher = await publisher(event);
    return {};
  };

  /** The EventBridge rule of infra/run-queue.yml: every run.json written wakes the run queue. */
  const runRecordRule = async (eventName: string, key: string) => {
    if (eventName.startsWith('ObjectCreated') && RUN_RECORD_KEY.test(key)) await wakeQueue.runRecordWritten(key);
  };
  /** One batch of wake-ups to the dispatcher, as Lambda's SQS event source hands it; false when none was waiting. */
  const deliverWakes = async (counted: () => void): Promise<boolean> => {
    const woke = await wakeQueue.deliver((event) =>
      dispatcherFor({ awsRequestId: `wake-${++invocations}`, getRemainingTimeInMillis: () => 30_000 }, 0, {})(event),
    );
    if (!woke) return false;
    counted();
    queueWakes.push(...woke);
    return true;
  };

  const drain = async (opts: DrainOptions = {}): Promise<Dispatch[]> => {
    const retries = opts.retries ?? 0;
    const max = opts.maxInvocations ?? 200;
    const done: Dispatch[] = [];
    const failed: Dispatch[] = [];
    let count = 0;
    for (;;) {
      await settle();
      const index = queue.findIndex((r) => {
        if (!r.eventName.startsWith('ObjectCreated')) return true;
        const key = decodeS3EventKey(r.s3.object.key);
        const fn = functionForKey(key);
        return fn === 'none' || ((!opts.only || opts.only.includes(fn)) && (!opts.keys || opts.keys(key)));
      });
      if (index < 0) {
        // Nothing queued: the run queue's wake-ups go to the dispatcher (Lambda's SQS event source).
        const counted = () => {
          if (++count > max) throw new Error(`drain: more than ${max} invocations; last a run queue wake-up`);
        };
        if (await deliverWakes(counted)) continue;
        // Builds still running end, and their events go to the verifier.
        const ended = await deliverBuildEvents(opts.only);
        if (ended.length === 0) break;
        if ((count += ended.length) > max) throw new Error(`drain: more than ${max} invocations; last a build state change`);
        done.push(...ended);
        failed.push(...ended.filter((d) => d.error !== undefined));
        continue;
      }
      const [record] = queue.splice(index, 1);
      const key = decodeS3EventKey(record.s3.object.key);
      const fn = record.eventName.startsWith('ObjectCreated') ? functionForKey(key) : 'none';
      await runRecordRule(record.eventName, key);
      if (fn === 'none') continue;
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (++count > max) throw new Error(`drain: more than ${max} invocations; last key ${key}`);
        invocations += 1;
        const invocation = (invocationsByKey.get(key) ?? 0) + 1;
        invocationsByKey.set(key, invocation);
        const dispatch: Dispatch = { key, fn, invocation };
        const event: S3Event = { Records: [record] };
        const startedAt = performance.now();
        try {
          const { workerError } = await invoke(fn, event, dispatch, retries);
          if (workerError !== undefined) {
            // Lambda retried the worker already; the dispatcher's own invocation succeeded.
            dispatch.error = workerError;
            dispatched.push(dispatch);
            done.push(dispatch);
            failed.push(dispatch);
            deadLetters.push(dispatch);
            break;
          }
        } catch (error) {
          dispatch.error = error;
        }
        dispatch.ms = performance.now() - startedAt;
        dispatched.push(dispatch);
        done.push(dispatch);
        if (!dispatch.error) break;
        if (attempt === retries) {
          failed.push(dispatch);
          deadLetters.push(dispatch);
        }
      }
    }
    if (failed.length > 0 && opts.throwOnError !== false) {
      throw new AggregateError(
        failed.map((d) => d.error),
        `drain: ${failed.length} invocation(s) failed: ${failed.map((d) => `${d.fn} ${d.key}: ${d.error instanceof Error ? d.error.message : String(d.error)}`).join('; ')}`,
      );
    }
    return done;
  };

  const objects = async () => (await s3.objects()).map((o) => ({ ...o, text: Buffer.from(o.body).toString('utf8') }));

  const secrets = (): { label: string; value: string }[] => {
    const out: { label: string; value: string }[] = [];
    const values = standin.state.tokenValues();
    const tokens = standin.state.tokens();
    values.forEach((value, i) => out.push({ label: `token:${tokens[i]?.id ?? i}`, value }));
    out.push({ label: 'private-key', value: privateKeyPem.trim() });
    // Any one line of the key's base64 body is enough to call it a leak.
    for (const line of privateKeyPem.split('\n')) if (line.length >= 40 && !line.startsWith('-----')) out.push({ label: 'private-key', value: line });
    out.push({ label: 'canary', value: secret });
    for (const value of sessionSecrets) out.push({ label: 'run-session', value });
    if (modelServer) out.push({ label: 'model-api-key', value: MODEL_API_KEY });
    if (bedrockServer) out.push({ label: 'aws-secret-access-key', value: BEDROCK_TEST_CREDENTIALS.secretAccessKey });
    return out;
  };

  const comments = (issue: number) =>
    [...standin.repo(HARNESS_FULL_NAME).comments.values()]
      .filter((c) => c.issueNumber === issue)
      .sort((a, b) => a.id - b.id)
      .map((c) => ({ id: c.id, body: c.body, user: c.user.login }));

  const leaks = async (): Promise<Leak[]> => {
    const found: Leak[] = [];
    const all = secrets();
    const scan = (text: string, where: string) => {
      for (const s of all) {
        const base64 = Buffer.from(s.value, 'utf8').toString('base64').replace(/=+$/, '');
        if (text.includes(s.value) || text.includes(base64)) found.push({ secret: s.label, where });
      }
    };
    for (const o of await objects()) {
      scan(o.text, `s3:${o.key}`);
      scan(o.key, `s3-key:${o.key}`);
    }
    logs.lines.forEach((line, i) => scan(line, `log:${i + 1}`));
    const repo = standin.repo(HARNESS_FULL_NAME);
    for (const c of repo.comments.values()) scan(c.body, `github:comment:${c.id}`);
    for (const p of repo.pulls.values()) scan(JSON.stringify(p), `github:pull:${p.number}`);
    modelServer?.requests.forEach((r) => scan(r.raw, `model:request:${r.index}`));
    bedrockServer?.requests.forEach((r) => scan(r.raw, `model:request:${r.index}`));
    standin.calls.forEach((c, i) => {
      if (c.body !== undefined && !c.path.endsWith('/access_tokens')) scan(JSON.stringify(c.body), `github:call:${i}`);
    });
    return found;
  };

  const payloads = buildPayloads(standin, () => clock.now());

  return {
    owner: HARNESS_OWNER,
    repo: HARNESS_REPO,
    fullName: HARNESS_FULL_NAME,
    repositoryId: HARNESS_REPOSITORY_ID,
    installationId: HARNESS_INSTALLATION_ID,
    botLogin: HARNESS_BOT_LOGIN,
    clock,
    s3,
    standin,
    gitBackend,
    gitUrl: proxy.url,
    gitAccess,
    model: modelServer,
    bedrock: bedrockServer,
    codebuild,
    issued,
    store,
    trustedReads,
    logs,
    dispatched,
    deadLetters,
    wakeQueue,
    queueWakes,
    payloads,
    deliver,
    drain,
    pending: () =>
      queue
        .filter((r) => r.eventName.startsWith('ObjectCreated') && functionForKey(decodeS3EventKey(r.s3.object.key)) !== 'none')
        .map((r) => decodeS3EventKey(r.s3.object.key)),
    requeue(key) {
      queue.push({
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: new Date(clock.now()).toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'harness' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': 'harness', 'x-amz-id-2': 'harness' },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'harness',
          bucket: { name: s3.bucket, ownerIdentity: { principalId: 'harness' }, arn: `arn:aws:s3:::${s3.bucket}` },
          object: { key: encodeS3EventKey(key), size: 0, eTag: '', sequencer: '0' },
        },
      });
    },
    objects,
    async json(key) {
      const object = await store.get(key);
      return object ? JSON.parse(Buffer.from(object.body).toString('utf8')) : undefined;
    },
    ingestionMemoryCalls,
    interceptWorkerWrites(fn) {
      interceptors.add(fn);
      return () => interceptors.delete(fn);
    },
    secrets,
    leaks,
    tokenId,
    comments,
    sweep: (o = {}) =>
      sweep({
        store: roleStore('SweeperRole'),
        tokens: broker('sweeper', 'read'),
        github: api(loggers.sweeper),
        clock,
        logger: loggers.sweeper,
        botLogin: HARNESS_BOT_LOGIN,
        stuckAfterMs: o.stuckAfterMs,
        wake: wakeQueue.wake,
      }),
    async stop() {
      unsubscribe();
      await modelServer?.close();
      await bedrockServer?.close();
      await codebuild?.close();
      await proxy.stop();
      await wakeQueue.close();
      await gitBackend.stop();
      await standin.stop();
      await s3.stop();
    },
  };
}

/** The read scopes token-read asks for, and the write scopes of token-write (plus GitHub's implicit metadata:read). */
export function scopesOf(role: TokenRole): Record<string, string> {
  return { metadata: 'read', ...TOKEN_SCOPES[role] };
}

/**
 * The worker's model as deployed: each call a synchronous invoke of model-call (ModelCallRole's
 * store), which charges the run's spend records and calls the provider.
 */
function deployedModel(
  provider: ModelProvider | ModelConfigError | undefined,
  deps: { store: ArtifactStore; clock: Clock; options: Pick<AppHarnessOptions, 'prices' | 'installationMonthlyCostUsd' | 'modelCall'> },
): ModelProvider | undefined {
  if (!provider) return undefined;
  let reservations = 0;
  const cap = deps.options.installationMonthlyCostUsd;
  const modelCall = createModelCallHandler(provider, {
    store: deps.store,
    clock: deps.clock,
    prices: deps.options.prices,
    ...(cap !== undefined ? { installationMonthlyMicroUsd: usdToMicro(cap) } : {}),
    reservationId: () => `harness-reservation-${++reservations}`,
  });
  const model = provider instanceof ModelConfigError ? (deps.options.modelCall?.model ?? 'scripted') : provider.model;
  return new LambdaModelProvider({ client: lambdaOf(modelCall), functionName: 'draftsman-test-modelCall', model });
}

/** `store` with `interceptors` run before each write; they also get `store` (the worker's own view). */
function interceptWrites(store: ArtifactStore, interceptors: Set<(key: string, workerStore: ArtifactStore) => void | Promise<void>>): ArtifactStore {
  const before = async (key: string) => {
    for (const fn of interceptors) await fn(key, store);
  };
  return {
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    async put(key, body, options) {
      await before(key);
      return store.put(key, body, options);
    },
    async putIfAbsent(key, body, options) {
      await before(key);
      return store.putIfAbsent(key, body, options);
    },
    async putIfMatch(key, body, etag, options) {
      await before(key);
      return store.putIfMatch(key, body, etag, options);
    },
  };
}

/** Payloads as GitHub would send them now; a comment's `created_at` is `now()` (the harness clock in the harness). */
export function buildPayloads(standin: GitHubStandin, now: () => number = () => Date.now()): HarnessPayloads {
  const userJson = (login: string, type: 'User' | 'Bot' = 'User') => {
    const u = standin.state.users.get(login.toLowerCase());
    return { login, id: u?.id ?? 1, node_id: `U_${login}`, type: u?.type ?? type, site_admin: false };
  };
  const repository = (base: Record<string, unknown> | undefined) => ({
    ...(base ?? {}),
    id: HARNESS_REPOSITORY_ID,
    node_id: 'R_harness',
    name: HARNESS_REPO,
    full_name: HARNESS_FULL_NAME,
    private: true,
    owner: { ...((base?.owner as object) ?? {}), login: HARNESS_OWNER, id: 500, type: 'Organization' },
    default_branch: 'main',
    html_url: `https://github.com/${HARNESS_FULL_NAME}`,
    clone_url: `https://github.com/${HARNESS_FULL_NAME}.git`,
  });
  const issueJson = (base: Record<string, unknown>, number: number) => {
    const state = standin.repo(HARNESS_FULL_NAME).issues.get(number);
    if (!state) throw new Error(`the stand-in has no issue #${number}`);
    const copy: Record<string, unknown> = {
      ...base,
      id: ISSUE_ID_BASE + number,
      number,
      title: state.title,
      body: state.body,
      state: state.state,
      user: userJson(state.user.login),
      labels: state.labels.map((name) => ({ name })),
      created_at: new Date(state.createdAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      updated_at: new Date(state.updatedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      html_url: `https://github.com/${HARNESS_FULL_NAME}/issues/${number}`,
      url: `https://api.github.com/repos/${HARNESS_FULL_NAME}/issues/${number}`,
    };
    delete copy.pull_request;
    return copy;
  };
  const installation = { id: HARNESS_INSTALLATION_ID, node_id: 'I_harness' };
  let commentIds = 70_000;
  const labelIds = new Map<string, number>();
  return {
    labeled(number, o = {}) {
      const p = example('issues', 'labeled');
      const label = o.label ?? 'agent:run';
      if (!labelIds.has(label)) labelIds.set(label, 8_100 + labelIds.size);
      // As on GitHub, applying the label updates the issue (its updated_at is part of the event).
      const labels = standin.repo(HARNESS_FULL_NAME).issues.get(number)?.labels ?? [];
      standin.setIssue(HARNESS_FULL_NAME, number, { labels: labels.includes(label) ? labels : [...labels, label] });
      const labelJson = { ...(p.label as object), id: labelIds.get(label), name: label };
      return {
        ...p,
        issue: issueJson(p.issue as Record<string, unknown>, number),
        label: labelJson,
        repository: repository(p.repository as Record<string, unknown>),
        sender: userJson(o.sender ?? MAINTAINER),
        installation,
      };
    },
    comment(number, body, o = {}) {
      const p = example('issue_comment', 'created');
      const user = userJson(o.sender ?? MAINTAINER, o.senderType);
      if (o.senderType) user.type = o.senderType;
      const at = new Date(o.createdAt ?? now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const comment = { ...(p.comment as object), id: o.commentId ?? ++commentIds, body, user, performed_via_github_app: null, created_at: at, updated_at: at };
      return {
        ...p,
        issue: issueJson(p.issue as Record<string, unknown>, number),
        comment,
        repository: repository(p.repository as Record<string, unknown>),
        sender: user,
        installation,
      };
    },
    opened(number) {
      const p = example('issues', 'opened');
      const issue = issueJson(p.issue as Record<string, unknown>, number);
      const author = (issue.user as { login: string }).login;
      return { ...p, issue, repository: repository(p.repository as Record<string, unknown>), sender: userJson(author), installation };
    },
    closed(number, o = {}) {
      // The examples have no issues.closed; an issues.reopened payload with the closing fields set.
      const p = example('issues', 'reopened');
      // GitHub closes the issue before it sends the event.
      const stored = standin.repo(HARNESS_FULL_NAME).issues.get(number);
      if (stored) stored.state = 'closed';
      const issue = { ...issueJson(p.issue as Record<string, unknown>, number), state: 'closed', closed_at: '2026-02-03T05:00:00Z' };
      return {
        ...p,
        action: 'closed',
        issue,
        repository: repository(p.repository as Record<string, unknown>),
        sender: userJson(o.sender ?? MAINTAINER),
        installation,
      };
    },
    prComment(number, body, o = {}) {
      const p = example('issue_comment', 'created');
      const pull = standin.repo(HARNESS_FULL_NAME).pulls.get(number);
      if (!pull) throw new Error(`the stand-in has no pull request #${number}`);
      const user = userJson(o.sender ?? MAINTAINER, o.senderType);
      if (o.senderType) user.type = o.senderType;
      const base = p.issue as Record<string, unknown>;
      const issue = {
        ...base,
        id: ISSUE_ID_BASE + number,
        number,
        title: pull.title,
        body: pull.body,
        state: pull.state,
        user: userJson(pull.user.login),
        labels: [],
        updated_at: new Date(pull.updatedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        html_url: `https://github.com/${HARNESS_FULL_NAME}/pull/${number}`,
        url: `https://api.github.com/repos/${HARNESS_FULL_NAME}/issues/${number}`,
        pull_request: {
          url: `https://api.github.com/repos/${HARNESS_FULL_NAME}/pulls/${number}`,
          html_url: `https://github.com/${HARNESS_FULL_NAME}/pull/${number}`,
        },
      };
      const at = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const comment = { ...(p.comment as object), id: o.commentId ?? ++commentIds, body, user, performed_via_github_app: null, created_at: at, updated_at: at };
      return { ...p, issue, comment, repository: repository(p.repository as Record<string, unknown>), sender: user, installation };
    },
    async reviewSubmitted(number, review) {
      const p = example('pull_request_review', 'submitted');
      const pull = standin.repo(HARNESS_FULL_NAME).pulls.get(number);
      if (!pull) throw new Error(`the stand-in has no pull request #${number}`);
      const user = userJson(review.sender ?? MAINTAINER);
      const ref = async (name: string) => ({ ref: name, sha: await standin.resolve(HARNESS_FULL_NAME, name), repo: repository(undefined) });
      const pull_request = { ...(p.pull_request as object), number, state: pull.state, head: await ref(pull.head), base: await ref(pull.base) };
      const reviewJson = { ...(p.review as object), id: review.id, body: review.body, user, commit_id: review.commitId, state: review.state ?? 'commented' };
      return { ...p, review: reviewJson, pull_request, repository: repository(p.repository as Record<string, unknown>), sender: user, installation };
    },
    async reviewComment(number, c) {
      // The example that carries `line` (GitHub's current payload), not the older position-only one.
      const group = EXAMPLES.find((g) => g.name === 'pull_request_review_comment')!.examples;
      const p = structuredClone(group.find((e) => e.action === 'created' && 'line' in (e.comment as object))!);
      const pull = standin.repo(HARNESS_FULL_NAME).pulls.get(number);
      if (!pull) throw new Error(`the stand-in has no pull request #${number}`);
      const user = userJson(c.sender ?? MAINTAINER, c.senderType);
      if (c.senderType) user.type = c.senderType;
      const ref = async (name: string) => ({ ref: name, sha: await standin.resolve(HARNESS_FULL_NAME, name), repo: repository(undefined) });
      const pull_request = { ...(p.pull_request as object), number, state: pull.state, head: await ref(pull.head), base: await ref(pull.base) };
      const at = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const comment = {
        ...(p.comment as object),
        id: c.id,
        body: c.body,
        path: c.path,
        line: c.line,
        original_line: c.line,
        start_line: null,
        original_start_line: null,
        start_side: null,
        user,
        created_at: at,
        updated_at: at,
      };
      return { ...p, comment, pull_request, repository: repository(p.repository as Record<string, unknown>), sender: user, installation };
    },
    checkSuiteCompleted(suite) {
      const p = example('check_suite', 'completed');
      const base = p.check_suite as Record<string, unknown>;
      const check_suite = {
        ...base,
        id: suite.id,
        head_branch: suite.headBranch,
        head_sha: suite.headSha,
        after: suite.headSha,
        status: 'completed',
        conclusion: suite.conclusion === undefined ? 'success' : suite.conclusion,
        url: `https://api.github.com/repos/${HARNESS_FULL_NAME}/check-suites/${suite.id}`,
        app: { ...((base.app as object) ?? {}), id: suite.app?.id ?? 15368, slug: suite.app?.slug ?? 'github-actions', name: 'GitHub Actions' },
        pull_requests: [],
      };
      return { ...p, check_suite, repository: repository(p.repository as Record<string, unknown>), sender: userJson(MAINTAINER), installation };
    },
    push(branch, commits, o = {}) {
      const p = example('push', undefined);
      const sender = userJson(o.sender ?? MAINTAINER);
      return {
        ...p,
        ref: `refs/heads/${branch}`,
        before: commits.before,
        after: commits.after,
        created: false,
        deleted: false,
        forced: false,
        base_ref: null,
        compare: `https://github.com/${HARNESS_FULL_NAME}/compare/${commits.before.slice(0, 12)}...${commits.after.slice(0, 12)}`,
        commits: [],
        head_commit: null,
        repository: repository(p.repository as Record<string, unknown>),
        pusher: { name: sender.login, email: `${sender.login}@example.com` },
        sender,
        installation,
      };
    },
    pullRequestClosed(number, pr) {
      const p = example('pull_request', 'closed');
      const repo = repository(p.repository as Record<string, unknown>);
      const base = p.pull_request as Record<string, unknown>;
      const head = { ...(base.head as object), ref: pr.headRef, sha: pr.headSha, repo };
      const pull_request = { ...base, number, state: 'closed', merged: pr.merged, head };
      return { ...p, number, pull_request, repository: repo, sender: userJson(MAINTAINER), installation };
    },
  };
}

interface GitProxyOptions {
  target: string;
  authorize: (token: string, fullName: string, access: 'read' | 'write') => boolean;
  describe: (token: string) => { tokenId?: string; tokenPermissions?: Record<string, string> };
  record: (access: GitAccess) => void;
}

/**
 * GitHub's side of smart HTTP: basic auth `x-access-token:<installation token>`, accepted only
 * for a token the stand-in minted for that repository with contents:read (write to push).
 * Authorised requests are forwarded, without the credential, to the anonymous http-backend.
 */
async function startGitAuthProxy(options: GitProxyOptions): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(?:info\/refs|git-upload-pack|git-receive-pack|HEAD|objects\/.*)$/.exec(url.pathname);
    const service = url.searchParams.get('service') ?? /(git-upload-pack|git-receive-pack)$/.exec(url.pathname)?.[1] ?? undefined;
    const access: 'read' | 'write' = service === 'git-receive-pack' ? 'write' : 'read';
    const fullName = match ? `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}` : '';
    const entry: GitAccess = { method: req.method ?? 'GET', path: url.pathname, fullName, service, access, status: 0 };
    const finish = (status: number, text?: string, headers: Record<string, string> = {}) => {
      entry.status = status;
      options.record(entry);
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
    };
    const credential = parseBasic(req.headers.authorization);
    if (credential) Object.assign(entry, options.describe(credential.password));
    if (!match) return void req.resume().on('end', () => finish(404, 'Not Found\n'));
    if (!credential) return void req.resume().on('end', () => finish(401, 'authentication required\n', { 'www-authenticate': 'Basic realm="GitHub"' }));
    if (credential.user !== 'x-access-token' || !options.authorize(credential.password, fullName, access)) {
      return void req
        .resume()
        .on('end', () =>
          finish(access === 'write' && entry.tokenId ? 403 : 401, 'Invalid username or token.\n', { 'www-authenticate': 'Basic realm="GitHub"' }),
        );
    }
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    const upstream = httpRequest(`${options.target}${url.pathname}${url.search}`, { method: req.method, headers }, (up) => {
      entry.status = up.statusCode ?? 0;
      options.record(entry);
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) finish(502, `proxy error: ${error.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  };
  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+(.+)$/i.exec((header ?? '').trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
