import { readFileSync } from 'node:fs';
import { StateMachine } from 'aws-local-stepfunctions';
import { createCampaignHandler } from '../../../src/app/campaign/campaign-function.js';
import { executionInput, type CampaignLauncher } from '../../../src/app/campaign/campaign-launcher.js';
import type { RepositoryResolver } from '../../../src/app/campaign/campaign-item.js';
import { createGitHubApi } from '../../../src/app/github/github-api.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { listInstallationRepositories } from '../../../src/app/tokens/list-installation.js';
import { lookupRepository } from '../../../src/app/tokens/lookup-repository.js';
import { HARNESS_APP_ID, HARNESS_BOT_LOGIN, harnessReadTokens, startAppHarness, type AppHarness } from '../../helpers/app-harness.js';
import { STANDIN_GITHUB_POLICY, type StandinInstallation, type StandinRepoSeed } from '../../helpers/github-standin/index.js';
import { policyScopedStore } from '../../helpers/iam-policy.js';
import { roleStatements } from '../../helpers/stack-roles.js';

/**
 * A fleet for the campaign state machine (infra/campaign-state-machine.json): target
 * repositories of mixed policies on the GitHub stand-in, a home issue with the campaign spec,
 * and the state machine executed by aws-local-stepfunctions with the real campaign function
 * behind its task states and the App's run chain (dispatcher, worker, publisher) behind it.
 */

// aws-local-stepfunctions v3 calls Promise.withResolvers (Node 22); on Node 20 it gets this equivalent.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.assign(Promise, {
    withResolvers<T>() {
      let resolve!: (value: T) => void;
      let reject!: (reason: unknown) => void;
      const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
      return { promise, resolve, reject };
    },
  });
}

export const ADMIN = 'ada';
export const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:draftsman-test-campaign';
export const DEFINITION_FILE = new URL('../../../infra/campaign-state-machine.json', import.meta.url);

/** What each kind of target is, and how its run must end. */
export const KINDS = {
  ok: { policy: 'version: 1\n', java: 'javax', state: 'changed' },
  disabled: { policy: 'version: 1\nagent:\n  enabled: false\n', java: 'javax', state: 'declined' },
  approval: { policy: 'version: 1\nagent:\n  requireApprovalFor:\n    - "src/**"\n', java: 'javax', state: 'declined' },
  forbidden: { policy: 'version: 1\nagent:\n  forbiddenPaths:\n    - "src/**"\n', java: 'javax', state: 'unchanged' },
  migrated: { policy: 'version: 1\n', java: 'jakarta', state: 'unchanged' },
  nomatch: { policy: 'version: 1\n', java: 'none', state: 'unchanged' },
  readonly: { policy: 'version: 1\n', java: 'javax', state: 'declined' },
} as const;
export type TargetKind = keyof typeof KINDS;

const ORDER: TargetKind[] = ['ok', 'disabled', 'approval', 'forbidden', 'migrated', 'nomatch', 'readonly', 'ok'];

/** `count` targets cycling through the kinds (half of them more or less plain migrations), plus one the App is not installed on. */
export function fleet(count: number, kinds: readonly TargetKind[] = ORDER): { name: string; kind: TargetKind }[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { name: `acme/${kind}-${String(i + 1).padStart(2, '0')}`, kind };
  });
}

function javaFile(kind: 'javax' | 'jakarta'): string {
  return `package com.acme;\n\nimport ${kind}.persistence.Entity;\nimport ${kind}.persistence.Id;\n\n@Entity\npublic class Order {\n  @Id\n  private Long id;\n}\n`;
}

export function targetSeed(name: string, kind: TargetKind, id: number): StandinRepoSeed {
  const spec = KINDS[kind];
  const files: Record<string, string> = { '.agent-policy.yaml': spec.policy, 'README.md': `# ${name}\n` };
  if (spec.java !== 'none') files['src/main/java/com/acme/Order.java'] = javaFile(spec.java);
  else files['src/main/resources/app.properties'] = 'name=app\n';
  return {
    owner: 'acme',
    name: name.split('/')[1],
    id,
    installationId: 7,
    files,
    collaborators: { [ADMIN]: kind === 'readonly' ? 'read' : 'admin' },
  };
}

/**
 * The home issue's body: the campaign spec, whose `repositories` block is the targets' list
 * unless `repositories` gives its lines (under `repositories:`, e.g. a `select`).
 */
export function campaignSpecIssue(targets: string[], concurrency: number, startsPerMinute: number, repositories?: string[]): string {
  return [
    'Move the fleet to Jakarta Persistence.',
    '',
    '```agent',
    'version: 1',
    'name: jakarta',
    'title: Migrate to Jakarta Persistence',
    'task:',
    '  steps:',
    '    - recipe: migrate-import',
    '      from: javax.persistence',
    '      to: jakarta.persistence',
    'repositories:',
    ...(repositories ?? ['  list:', ...targets.map((t) => `    - ${t}`)]),
    'pace:',
    `  concurrency: ${concurrency}`,
    `  startsPerMinute: ${startsPerMinute}`,
    '```',
    '',
  ].join('\n');
}

/** An execution the intake asked the launcher for. */
export type Started = Parameters<CampaignLauncher['start']>[0];

export interface Fleet {
  h: AppHarness;
  targets: { name: string; kind: TargetKind }[];
  /** The campaign record key the intake handed to the launcher. */
  started: Started[];
  /** Every call the intake made to the launcher, an execution that existed already included. */
  asked: Started[];
  handler: ReturnType<typeof createCampaignHandler>;
  /** Content-creating GitHub requests (POST, PATCH, PUT, DELETE) per target repository. */
  contentCalls(): Map<string, number>;
  /** The definition as deployed, with the campaign function's ARN substituted. */
  definition(): Record<string, unknown>;
  /** Execute the state machine for the started campaign (or the execution given); the run chain drains between looks. */
  execute(execution?: Started): Promise<unknown>;
}

export async function startFleet(
  count: number,
  options: {
    concurrency: number;
    startsPerMinute: number;
    missing?: string;
    githubLatencyMs?: number;
    kinds?: readonly TargetKind[];
    /** The spec's `repositories` lines in place of the targets' list. */
    repositories?: string[];
    /** More repositories on the stand-in (besides the targets). */
    seeds?: StandinRepoSeed[];
    /** More installations of the App on the stand-in (for seeds outside the home's). */
    installations?: StandinInstallation[];
  },
): Promise<Fleet> {
  const targets = fleet(count, options.kinds);
  const names = [...targets.map((t) => t.name), ...(options.missing ? [options.missing] : [])];
  const started: Started[] = [];
  const asked: Started[] = [];
  const launcher: CampaignLauncher = {
    async start(input) {
      asked.push(input);
      if (started.some((s) => (s.name ?? s.campaignId) === (input.name ?? input.campaignId))) return 'running';
      started.push(input);
      return 'started';
    },
  };
  const h = await startAppHarness({
    campaigns: launcher,
    users: { [ADMIN]: 'admin' },
    issues: [
      { number: 1, title: 'Jakarta campaign', body: campaignSpecIssue(names, options.concurrency, options.startsPerMinute, options.repositories), user: ADMIN },
    ],
    extraRepos: [...targets.map((t, i) => targetSeed(t.name, t.kind, 5000 + i)), ...(options.seeds ?? [])],
    extraInstallations: options.installations,
    githubLatencyMs: options.githubLatencyMs,
  });
  const pem = h.secrets().find((s) => s.label === 'private-key')!.value;
  const logs = new CapturingLogger({ clock: h.clock, bindings: { fn: 'campaign' } }, h.logs);
  // The deployed resolver's lookup (token-read's, in any installation of the App as src/handlers/campaign.ts asks), against the stand-in.
  const repositories: RepositoryResolver = {
    resolve: (fullName, installationId) =>
      lookupRepository(
        { appId: HARNESS_APP_ID, apiUrl: h.standin.url, privateKey: pem, clock: h.clock, policy: STANDIN_GITHUB_POLICY },
        { installationId, lookup: fullName, anyInstallation: true },
      ),
  };
  const app = { appId: HARNESS_APP_ID, apiUrl: h.standin.url, privateKey: pem, clock: h.clock, policy: STANDIN_GITHUB_POLICY };
  // The deployed lister's listing (token-read's), against the stand-in.
  const listing = { list: (installationId: number) => listInstallationRepositories(app, { installationId, list: 'repositories' }) };
  const handler = createCampaignHandler({
    // The campaign function sees the bucket through CampaignRole, as deployed (infra/roles.yml).
    store: policyScopedStore(h.store, h.s3.bucket, [roleStatements('CampaignRole', { bucket: h.s3.bucket })], {}),
    tokens: harnessReadTokens(h),
    github: (token) => createGitHubApi({ token, baseUrl: h.standin.url, policy: STANDIN_GITHUB_POLICY }),
    clock: h.clock,
    logger: logs,
    botLogin: HARNESS_BOT_LOGIN,
    apiUrl: h.standin.url,
    repositories,
    listing,
  });
  const definition = () => JSON.parse(readFileSync(DEFINITION_FILE, 'utf8').replaceAll('${CampaignFunctionArn}', FUNCTION_ARN)) as Record<string, unknown>;
  // The run chain is one queue: looks at runs wait for it, one drain at a time.
  let chain: Promise<unknown> = Promise.resolve();
  const drained = () => (chain = chain.then(() => h.drain({ retries: 2, maxInvocations: 2000 })));
  const task = async (input: unknown) => {
    const action = (input as { action: string }).action;
    if (action === 'poll') await drained();
    const out = (await handler(input)) as { state?: string; waitSeconds?: number };
    // The Wait states are overridden to 0 ms: the clock moves by what they would have waited.
    if (out.state === 'waiting' && out.waitSeconds) h.clock.advance(out.waitSeconds * 1000);
    return out as never;
  };
  return {
    h,
    targets,
    started,
    asked,
    handler,
    definition,
    contentCalls() {
      const counts = new Map<string, number>();
      for (const call of h.standin.calls) {
        const match = /^\/repos\/([^/]+\/[^/]+)\//.exec(call.path);
        if (!match || call.method === 'GET' || call.method === 'HEAD') continue;
        counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
      }
      return counts;
    },
    async execute(execution = started.at(-1)!) {
      const machine = new StateMachine(definition() as never, { validationOptions: { checkArn: true, checkPaths: true } });
      // The input as stepFunctionsLauncher sends it.
      const run = machine.run(executionInput(execution) as never, {
        overrides: {
          taskResourceLocalHandlers: { Plan: task, Start: task, Poll: task, Finish: task, Refresh: task } as never,
          waitTimeOverrides: { 'Wait to start': 0, 'Wait for the run': 0, 'Wait to refresh': 0 },
          retryIntervalOverrides: { Plan: 0, Start: 0, Poll: 0, Finish: 0, Refresh: 0 },
        },
      });
      return run.result;
    },
  };
}
