import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { ArtifactStore, Clock, TokenRole } from '../../core/ports.js';
import { newCapability } from '../dispatch/dispatch-record.js';
import { createGitHubApi, type GitHubRetryPolicy } from '../github/github-api.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { createMemoryFs } from '../local/memfs-adapter.js';
import { createNodeSyntaxService } from '../local/node-grammar-loader.js';
import { createSandboxVerifier, toolchainDirs } from '../local/sandbox-verifier.js';
import { JsonLogger } from '../logger.js';
import { createModelProvider } from '../model/create-model-provider.js';
import { withSpendAccounting } from '../model/in-process-spend.js';
import { sweepOpenAgentPullRequests } from '../publisher/ci-feedback.js';
import { createPublisherHandler } from '../publisher/create-publisher-handler.js';
import { sweep } from '../sweeper/sweep.js';
import { InProcessTokenBroker } from '../tokens/in-process-token-broker.js';
import { createIntakeHandler } from '../webhook/create-intake-handler.js';
import { createWebhookHandler } from '../webhook/create-webhook-handler.js';
import { createWorkerHandler } from '../worker/create-worker-handler.js';
import { toApiGatewayEvent, writeJson, writeResult } from './http-webhook-adapter.js';
import { youngGenerationDuringIngestion } from '../runtime/young-generation.js';
import { localRunSession } from './local-run-session.js';
import { NotifyingStore } from './notifying-store.js';
import { SerialQueue } from './serial-queue.js';
import { serveSchedules } from './serve-schedules.js';
import { serveModelSettings, type ServeSettings } from './serve-settings.js';
import { functionForKey } from './trigger-route.js';
import { parseRunKey } from '../../core/runs/run-key.js';
import { admitRuns } from '../queue/run-admission.js';
import { startWebhookProxy } from './webhook-proxy.js';

/** Said at every start, to the log and the terminal: what this mode gives up. */
export const ONE_PROCESS_NOTICE =
  'draftsman serve runs the webhook, worker, publisher and sweeper in ONE process that holds the App private key, ' +
  'mints both read and write installation tokens and reads and writes the whole artifact store. ' +
  'The least-privilege split of the Lambda deployment (separate token-read and token-write functions, run-scoped ' +
  'worker sessions, one IAM role per function) does NOT apply here. Use it to try and develop the App, not to run it for others.';

/**
 * Re-runs after a failed invocation, as the deployment's asynchronous invocation settings have
 * them (serverless.yml `maximumRetryAttempts`; a test keeps the two in step). A worker retry
 * keeps its invocation id, so the attempt's lease lets it resume from its checkpoints.
 */
export const SERVE_RETRIES = Object.freeze({ intake: 2, worker: 1, publisher: 2, sweeper: 0 });

/** The sweeper's schedule in the deployment. */
export const DEFAULT_SWEEP_EVERY_MS = 15 * 60 * 1000;
/** What a worker invocation may use before it hands over to a continuation, as on Lambda. */
export const DEFAULT_WORKER_BUDGET_MS = 15 * 60 * 1000;

export interface ServeOptions {
  settings: ServeSettings;
  /** The artifact store's directory (the bucket on disk). */
  dir: string;
  clock?: Clock;
  logger?: JsonLogger;
  /** How often the sweeper runs; 0 leaves it to `sweep()`. */
  sweepEveryMs?: number;
  workerBudgetMs?: number;
  /** Retries and waits of every GitHub client (tests shrink them). */
  githubPolicy?: Partial<GitHubRetryPolicy>;
}

export interface ServeHandle {
  /** `http://host:port` the server listens on. */
  url: string;
  /** Where GitHub (or the webhook proxy) delivers. */
  webhookUrl: string;
  /** With WEBHOOK_PROXY_URL: whether its channel answered at start. */
  proxyConnected?: boolean;
  store: ArtifactStore;
  queue: SerialQueue;
  /** Resolves once every queued function has run. */
  idle(): Promise<void>;
  /** Queue one sweep now. */
  sweep(): void;
  stop(): Promise<void>;
}

/**
 * The whole App in one process: the webhook function behind a plain HTTP server (the same
 * signature check and Probot routing as the Lambda), the local artifact store on disk, and the
 * worker, publisher and sweeper run from a serial queue whenever the store writes a key that
 * would start them in the deployment. Runs at their repository's limits wait in the same run
 * queue as deployed (src/core/runs/run-queue.ts); a run record written wakes its admission pass.
 */
export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const { settings } = options;
  const clock = options.clock ?? { now: () => Date.now() };
  const root = options.logger ?? new JsonLogger({ level: settings.LOG_LEVEL, clock, bindings: { fn: 'serve' } });
  for (const secret of [settings.WEBHOOK_SECRET, settings.privateKey, settings.MODEL_API_KEY]) if (secret) root.redact(secret);
  const loggerOf = (fn: string) => root.child({ fn });
  root.warn(ONE_PROCESS_NOTICE);

  const queue = new SerialQueue(loggerOf('queue'));
  // Deliveries get their own queue: a long worker run does not hold back the next trigger's
  // decision and progress comment, as the intake function does not wait for the worker's.
  const intakes = new SerialQueue(loggerOf('queue'));
  const disk = new LocalArtifactStore(resolve(options.dir));
  const store: ArtifactStore = new NotifyingStore(disk, (key) => {
    const fn = functionForKey(key);
    if (fn === 'intake')
      intakes.push(
        `intake ${key}`,
        retrying('intake', key, async () => void (await intake().then((i) => i.receive(key)))),
      );
    if (fn === 'worker') queue.push(`worker ${key}`, runWorker(key));
    // What infra/run-queue.yml's rule does: a run record written (a run that ended frees its slot) wakes the run queue.
    if (parseRunKey(key)?.kind === 'run') wakeRunQueue();
    if (fn === 'publisher')
      queue.push(
        `publisher ${key}`,
        retrying('publisher', key, () => runPublisher(key)),
      );
  });

  const brokers: Record<Exclude<TokenRole, 'worker' | 'notice'>, InProcessTokenBroker> = {
    read: broker('read'),
    write: broker('write'),
  };
  function broker(role: TokenRole): InProcessTokenBroker {
    return new InProcessTokenBroker({
      role,
      appId: settings.APP_ID,
      apiUrl: settings.apiUrl,
      clock,
      loadPrivateKey: async () => settings.privateKey,
      policy: options.githubPolicy,
      logger: loggerOf(`token-${role}`),
    });
  }
  const githubFor = (logger: JsonLogger) => (token: string) => {
    logger.redact(token);
    return createGitHubApi({ token, baseUrl: settings.apiUrl, policy: options.githubPolicy, logger });
  };
  const botLogin = `${settings.GITHUB_APP_SLUG}[bot]`;

  const webhookLogger = loggerOf('webhook');
  const webhook = createWebhookHandler({ store, clock, logger: webhookLogger, secret: settings.WEBHOOK_SECRET, botLogin });
  // The intake runs in process after the answer, from the delivery the webhook stored.
  const intakeLogger = loggerOf('intake');
  const schedulesLogger = loggerOf('schedules');
  const schedules = await serveSchedules({
    deps: { store, tokens: brokers.read, github: githubFor(schedulesLogger), clock, logger: schedulesLogger, botLogin, apiUrl: settings.apiUrl },
    app: { id: settings.APP_ID, privateKey: settings.privateKey, apiUrl: settings.apiUrl, githubPolicy: options.githubPolicy },
    enqueue: (label, run) => intakes.push(label, run),
  });
  const intake = createLazy(() =>
    createIntakeHandler({
      store,
      tokens: brokers.read,
      github: githubFor(intakeLogger),
      clock,
      logger: intakeLogger,
      appId: settings.APP_ID,
      botLogin,
      apiUrl: settings.apiUrl,
      schedules: schedules.launcher,
    }),
  );
  await intake();

  const workerLogger = loggerOf('worker');
  const syntax = createLazy(() => createNodeSyntaxService({ wasmDir: settings.DRAFTSMAN_WASM_DIR }));
  const worker = createWorkerHandler({
    session: localRunSession({ store, readTokens: brokers.read }),
    github: githubFor(workerLogger),
    clock,
    logger: workerLogger,
    syntax,
    newFs: createMemoryFs,
    verifier: createSandboxVerifier({ toolchains: toolchainDirs(settings.DRAFTSMAN_VERIFY_TOOLCHAINS), bwrap: settings.DRAFTSMAN_BWRAP }),
    model: withSpendAccounting(createModelProvider(serveModelSettings(settings)), {
      store,
      clock,
      prices: settings.MODEL_PRICES,
      installationMonthlyCostUsd: settings.INSTALLATION_MONTHLY_COST_USD,
    }),
    prices: settings.MODEL_PRICES,
    // The CLI's root capped the young generation at start-up; runs release it after ingestion, as the worker's do.
    ingestionMemory: youngGenerationDuringIngestion,
    identity: { name: botLogin, email: `${botLogin}@users.noreply.github.com` },
  });
  let invocations = 0;
  const budget = options.workerBudgetMs ?? DEFAULT_WORKER_BUDGET_MS;
  function runWorker(key: string): () => Promise<void> {
    const awsRequestId = `serve-${++invocations}`;
    return retrying('worker', key, async () => {
      const started = clock.now();
      await worker({ key, capability: newCapability() }, { awsRequestId, getRemainingTimeInMillis: () => budget - (clock.now() - started) });
    });
  }

  /** The invocation, re-run after a failure as often as the deployment would; the last failure goes to the queue's log. */
  function retrying(fn: keyof typeof SERVE_RETRIES, key: string, invoke: () => Promise<void>): () => Promise<void> {
    return async () => {
      for (let retry = 0; ; retry++) {
        try {
          return await invoke();
        } catch (error) {
          if (retry >= SERVE_RETRIES[fn]) throw error;
          root.warn('invocation failed; retrying as the deployment would', { function: fn, key, retry: retry + 1, error });
        }
      }
    };
  }

  const publisherLogger = loggerOf('publisher');
  const publisher = createPublisherHandler({ store, tokens: brokers.write, github: githubFor(publisherLogger), clock, logger: publisherLogger, botLogin });
  async function runPublisher(key: string): Promise<void> {
    const results = await publisher({ Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key: encodeURIComponent(key) } } }] });
    for (const r of results)
      publisherLogger.info('publisher finished', { key: r.key, kind: r.kind, outcome: r.kind === 'ignored' ? undefined : r.outcome.kind });
  }

  // The run queue's admission pass (the dispatcher's on a wake-up in the deployment), beside the
  // intakes; wake-ups that come while one is queued are served by it.
  let admissionQueued = false;
  const admissionLogger = loggerOf('dispatcher');
  function wakeRunQueue(): void {
    if (admissionQueued) return;
    admissionQueued = true;
    intakes.push('run queue', async () => {
      admissionQueued = false;
      await admitRuns({ store, tokens: brokers.read, github: githubFor(admissionLogger), clock, logger: admissionLogger, botLogin });
    });
  }

  const sweeperLogger = loggerOf('sweeper');
  const sweepDeps = { store, tokens: brokers.read, github: githubFor(sweeperLogger), clock, logger: sweeperLogger };
  const queueSweep = () =>
    queue.push('sweeper', async () => {
      const report = await sweep({
        ...sweepDeps,
        wake: async () => wakeRunQueue(),
        pollCi: (repositories) => sweepOpenAgentPullRequests(sweepDeps, repositories),
      });
      sweeperLogger.info('sweep finished', {
        locksReleased: report.locksReleased.length,
        runsFailed: report.runsFailed.length,
        ciPolled: report.ciPolled.length,
        problems: report.problems.length,
      });
    });

  let requests = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      webhookLogger.error('request failed', { error });
      if (!res.headersSent) writeJson(res, 500, { message: 'internal error' });
      else res.destroy();
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/ping') return writeJson(res, 200, { status: 'ok', queued: queue.size + intakes.size });
    if (path !== settings.WEBHOOK_PATH) return writeJson(res, 404, { message: 'not found' });
    if (req.method !== 'POST') return writeJson(res, 405, { message: 'method not allowed' });
    const event = await toApiGatewayEvent(req, path, `serve-${++requests}`, clock.now());
    if (event === 'too-large') return writeJson(res, 413, { message: 'payload too large' });
    writeResult(res, await webhook(event));
  }
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(settings.PORT, settings.HOST, () => ready());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const webhookUrl = `${url}${settings.WEBHOOK_PATH}`;

  const proxy = settings.WEBHOOK_PROXY_URL ? await startWebhookProxy(settings.WEBHOOK_PROXY_URL, webhookUrl, loggerOf('smee')) : undefined;
  const sweepEvery = options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
  const timer = sweepEvery > 0 ? setInterval(queueSweep, sweepEvery) : undefined;
  timer?.unref();
  root.info('draftsman serve listening', {
    webhookUrl,
    store: disk.root,
    apiUrl: settings.apiUrl,
    webhookProxy: settings.WEBHOOK_PROXY_URL,
    sweepEveryMs: sweepEvery,
    model: settings.MODEL_NAME,
  });

  return {
    url,
    webhookUrl,
    proxyConnected: proxy?.connected,
    store,
    queue,
    async idle() {
      // An intake may queue a worker, whose publisher may in turn write a delivery-free key: wait until both are still.
      do {
        await intakes.idle();
        await queue.idle();
      } while (intakes.size > 0 || queue.size > 0);
    },
    sweep: queueSweep,
    async stop() {
      if (timer) clearInterval(timer);
      schedules.scheduler.stop();
      await proxy?.stop();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      await intakes.idle();
      await queue.idle();
    },
  };
}

/** A value built on first use and shared afterwards (grammar loading is the slow part). */
function createLazy<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= build());
}
