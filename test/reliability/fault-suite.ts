import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { progressMarker } from '../../src/app/github/progress-comment.js';
import { MAINTAINER, MIGRATION_ISSUE_BODY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { pushHumanCommit } from '../helpers/push-commit.js';

/**
 * The fault suite (docs/operations.md, "Faults"): seeded, bounded fault injection on the whole
 * App through the harness (s3rver and the GitHub stand-in on loopback, the worker killed at a
 * write, Lambda's retries as the platform gives them, deliveries duplicated, reordered and late),
 * then one judgement per labelled issue: did it reach one clear end, with no duplicate, no wrong
 * content and nothing lost? `npm test` runs a few scenarios once (fault-suite.test.ts); the soak
 * in `npm run bench` runs every scenario many times with a seed and prints the table.
 */

/** A small deterministic generator (mulberry32): the same seed gives the same faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ScenarioContext {
  h: AppHarness;
  issue: number;
  /** Uniform in [0, 1). */
  random: () => number;
  /** An integer in [min, max]. */
  pick(min: number, max: number): number;
}

export interface FaultScenario {
  id: string;
  what: string;
  /** Seeds the faults and delivers the triggers; the suite settles and judges afterwards. */
  run(ctx: ScenarioContext): Promise<void>;
  /** The base branch moves during the run: the change is judged by its paths and blobs, not its tree. */
  movesBase?: boolean;
}

const RUN_REQUEST = /^runs\/[^/]+\/[^/]+\/[^/]+\/request\.json$/;
const issueComments = (n: number) => (method: string, path: string) => method === 'POST' && path === `/repos/acme/orders/issues/${n}/comments`;

/** The create calls of a run: its progress comment, the agent branch's ref, the pull request. */
const createRoutes = (issue: number): ((method: string, path: string) => boolean)[] => [
  issueComments(issue),
  (m, p) => m === 'POST' && p.endsWith('/git/refs'),
  (m, p) => m === 'POST' && p.endsWith('/pulls'),
];

/** Deliver a label, leaving the intake to `settle` (Lambda's retries), as S3 notifications arrive. */
async function label(ctx: ScenarioContext): Promise<void> {
  await ctx.h.deliver('issues', ctx.h.payloads.labeled(ctx.issue), { intake: false });
}

/** Kill the worker at its k-th write under the run (Lambda retries it with the same request id). */
function killWorkerAt(ctx: ScenarioContext, k: number, times: number): void {
  let writes = 0;
  let killed = 0;
  const stop = ctx.h.interceptWorkerWrites(() => {
    writes += 1;
    if (writes >= k && killed < times) {
      killed += 1;
      stop();
      throw new Error(`killed before write ${writes}`);
    }
  });
}

export const SCENARIOS: FaultScenario[] = [
  {
    id: 'none',
    what: 'no fault (the control)',
    run: label,
  },
  {
    id: 's3-5xx',
    what: 'S3 answers 500/503 to a few requests at a random point',
    async run(ctx) {
      await label(ctx);
      const skip = ctx.pick(0, 120);
      let seen = 0;
      const status = ctx.random() < 0.5 ? 500 : 503;
      ctx.h.s3.faults.fail({ status, count: ctx.pick(1, 4), match: () => seen++ >= skip });
    },
  },
  {
    id: 's3-lost-answer',
    what: 'S3 stores a write and its answer is lost (500 after the write landed)',
    async run(ctx) {
      await label(ctx);
      const skip = ctx.pick(0, 60);
      let seen = 0;
      ctx.h.s3.faults.fail({ status: 500, count: ctx.pick(1, 3), after: true, match: (method) => method === 'PUT' && seen++ >= skip });
    },
  },
  {
    id: 's3-outage',
    what: 'S3 fails every request for longer than one invocation retries (the request write, or a write mid-run)',
    async run(ctx) {
      await label(ctx);
      if (ctx.random() < 0.5) {
        ctx.h.s3.faults.fail({ status: 503, count: ctx.pick(5, 10), match: (method, key) => method === 'PUT' && RUN_REQUEST.test(key) });
      } else {
        const skip = ctx.pick(20, 100);
        let seen = 0;
        ctx.h.s3.faults.fail({ status: 503, count: ctx.pick(6, 12), match: () => seen++ >= skip });
      }
    },
  },
  {
    id: 'github-502',
    what: 'GitHub answers 502 to the progress comment, a ref, the pull request or a token mint',
    async run(ctx) {
      const routes = [...createRoutes(ctx.issue), (m: string, p: string) => m === 'POST' && p.endsWith('/access_tokens')];
      const route = routes[ctx.pick(0, routes.length - 1)];
      ctx.h.standin.faults.inject({ kind: '502', count: ctx.pick(1, 6), match: ({ method, path }) => route(method, path) });
      await label(ctx);
    },
  },
  {
    id: 'github-lost-answer',
    what: 'GitHub carries out a create (the progress comment, the ref, the pull request) and its answer is lost',
    async run(ctx) {
      const routes = createRoutes(ctx.issue);
      const route = routes[ctx.pick(0, routes.length - 1)];
      ctx.h.standin.faults.inject({ kind: 'lost-answer', count: ctx.pick(1, 2), match: ({ method, path }) => route(method, path) });
      await label(ctx);
    },
  },
  {
    id: 'github-secondary-limit',
    what: 'GitHub answers a secondary rate limit, short or longer than a function waits',
    async run(ctx) {
      const retryAfter = ctx.random() < 0.5 ? 2 : 60;
      const route = ctx.random() < 0.5 ? issueComments(ctx.issue) : (m: string, p: string) => m === 'POST' && p.endsWith('/pulls');
      ctx.h.standin.faults.inject({ kind: 'secondary-rate-limit', count: ctx.pick(1, 3), retryAfter, match: ({ method, path }) => route(method, path) });
      await label(ctx);
    },
  },
  {
    id: 'worker-killed',
    what: 'the worker dies at a random write, once or on every try',
    async run(ctx) {
      await label(ctx);
      killWorkerAt(ctx, ctx.pick(1, 40), ctx.random() < 0.8 ? 1 : 3);
    },
  },
  {
    id: 'delivery-duplicated',
    what: 'the label delivery arrives twice, and once more under a new delivery id',
    async run(ctx) {
      const payload = ctx.h.payloads.labeled(ctx.issue);
      const first = await ctx.h.deliver('issues', payload, { intake: false });
      await ctx.h.deliver('issues', payload, { intake: false, deliveryId: first.deliveryId });
      await ctx.h.deliver('issues', payload, { intake: false });
    },
  },
  {
    id: 'close-before-label',
    what: 'the issue is closed before its label delivery arrives',
    async run(ctx) {
      const payload = ctx.h.payloads.labeled(ctx.issue);
      await ctx.h.deliver('issues', ctx.h.payloads.closed(ctx.issue, { sender: MAINTAINER }), { intake: false });
      await ctx.h.drain({ retries: 2, throwOnError: false });
      await ctx.h.deliver('issues', payload, { intake: false });
    },
  },
  {
    id: 'close-mid-run',
    what: 'the issue is closed between the worker and the publisher',
    async run(ctx) {
      await label(ctx);
      await ctx.h.drain({ retries: 2, throwOnError: false, only: ['intake', 'worker'] });
      // The close is taken before the publisher's notification is.
      await ctx.h.deliver('issues', ctx.h.payloads.closed(ctx.issue, { sender: MAINTAINER }));
    },
  },
  {
    id: 'label-twice',
    what: 'the label is applied, removed and applied again while the first run works',
    async run(ctx) {
      await label(ctx);
      await ctx.h.drain({ retries: 2, throwOnError: false, only: ['intake'] });
      ctx.h.clock.advance(1000);
      await label(ctx);
    },
  },
  {
    id: 'base-moves',
    what: 'a maintainer pushes to the default branch while the run works',
    movesBase: true,
    async run(ctx) {
      await label(ctx);
      await ctx.h.drain({ retries: 2, throwOnError: false, only: ['intake', 'worker'] });
      await pushHumanCommit(ctx.h, 'main', { [`docs/note-${ctx.issue}.md`]: `note ${ctx.issue}\n` }, `docs: note ${ctx.issue}`);
    },
  },
  {
    id: 'policy-changes',
    what: 'the policy on the default branch changes while the run works',
    movesBase: true,
    async run(ctx) {
      await label(ctx);
      await ctx.h.drain({ retries: 2, throwOnError: false, only: ['intake', 'worker'] });
      const policy = (await ctx.h.standin.readFile(ctx.h.fullName, 'main', '.agent-policy.yaml'))?.toString('utf8') ?? '';
      await pushHumanCommit(ctx.h, 'main', { '.agent-policy.yaml': `${policy}# changed while issue ${ctx.issue} ran\n` }, 'policy: note');
    },
  },
  {
    id: 'bad-payload',
    what: 'a signed label delivery whose payload lacks the issue',
    async run(ctx) {
      const { issue: _issue, ...rest } = ctx.h.payloads.labeled(ctx.issue);
      await ctx.h.deliver('issues', rest, { intake: false });
    },
  },
  {
    id: 'oversized-body',
    what: 'the issue body is 1 MB',
    async run(ctx) {
      ctx.h.standin.setIssue(ctx.h.fullName, ctx.issue, { body: `${'x'.repeat(1024 * 1024)}\n` });
      await label(ctx);
    },
  },
];

/** How an issue ended, read from the bucket and GitHub after the run settled. */
export type EndKind = 'published' | 'ended' | 'ignored' | 'stuck';

export interface IssueVerdict {
  scenario: string;
  issue: number;
  end: EndKind;
  /** Why it is stuck, or what was lost, duplicated or wrong. */
  notes: string[];
  duplicates: number;
  wrongContent: boolean;
  lostData: number;
  deadLetters: number;
}

/** Statuses a progress comment may be left in: none of them waits for anything. */
const FINAL_COMMENT = /\*\*Status:\*\* (PUBLISHED|FAILED|BLOCKED|CANCELLED|NEEDS_APPROVAL|BUDGET_EXCEEDED|READY|READY_WITH_WARNINGS|MERGED|CLOSED)\b/;

/** The change between two commits of the stand-in's repository: path → new blob id (deleted: '0'). */
function changeBetween(h: AppHarness, base: string, head: string): Map<string, string> {
  const out = execFileSync('git', ['--git-dir', join(h.standin.gitRoot, `${h.fullName}.git`), 'diff-tree', '-r', '--no-renames', base, head], {
    encoding: 'utf8',
  });
  const change = new Map<string, string>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [meta, path] = line.split('\t');
    change.set(path, meta.split(' ')[3]);
  }
  return change;
}

const sameChange = (a: Map<string, string>, b: Map<string, string>) => a.size === b.size && [...a].every(([p, blob]) => b.get(p) === blob);

/** The published change of an issue's run: its base and head on the stand-in. */
async function publishedChange(h: AppHarness, runId: string): Promise<Map<string, string> | undefined> {
  const publish = await h.json(`runs/acme/orders/${runId}/publish.json`);
  if (!publish) return undefined;
  return changeBetween(h, publish.baseCommitSha, publish.publishedCommitSha);
}

/** One run of an issue: one final progress comment, a final record, and what it published the reference change on a pull request that exists. */
async function judgeRun(
  h: AppHarness,
  runId: string,
  seen: { botComments: { body: string }[]; pulls: { number: number }[]; reference: Map<string, string>; notes: string[] },
): Promise<{ duplicates: number; lostData: number; wrongContent: boolean }> {
  const { notes } = seen;
  const tally = { duplicates: 0, lostData: 0, wrongContent: false };
  const own = seen.botComments.filter((c) => c.body.includes(progressMarker(runId)));
  if (own.length > 1) {
    tally.duplicates += own.length - 1;
    notes.push(`${own.length} progress comments for ${runId}`);
  }
  if (own.length === 0) notes.push(`no progress comment for ${runId}`);
  else if (!FINAL_COMMENT.test(own[0].body)) notes.push(`progress comment of ${runId} not final: ${/\*\*Status:\*\* [A-Z_]+/.exec(own[0].body)?.[0]}`);
  const run = await h.json(`runs/acme/orders/${runId}/run.json`);
  if (!run) notes.push(`no run.json for ${runId}`);
  else if (['QUEUED', 'RUNNING', 'COMPLETED'].includes(run.status)) notes.push(`run ${runId} left ${run.status}`);
  const change = await publishedChange(h, runId);
  if (!change) return tally;
  const publish = await h.json(`runs/acme/orders/${runId}/publish.json`);
  if (!seen.pulls.some((p) => p.number === publish.prNumber)) {
    tally.lostData += 1;
    notes.push(`publish.json names pull request #${publish.prNumber}, which does not exist`);
  }
  if (!sameChange(change, seen.reference)) {
    tally.wrongContent = true;
    notes.push(`published change differs: ${[...change.keys()].join(', ')}`);
  }
  return tally;
}

/**
 * One clear end for `issue`: no trigger left half-taken (intake record, lock), every run's record
 * and progress comment final, at most one progress comment per run, at most one pull request
 * for the issue, its change the reference change, and each published run's publish record
 * naming a pull request that exists.
 */
export async function judgeIssue(
  h: AppHarness,
  scenario: FaultScenario,
  issue: number,
  reference: Map<string, string>,
  deadLetters: number,
): Promise<IssueVerdict> {
  const notes: string[] = [];
  let duplicates = 0;
  let lostData = 0;
  let wrongContent = false;
  const requests = [];
  for (const key of (await h.store.list('runs/acme/orders/')).filter((k) => RUN_REQUEST.test(k))) {
    const request = await h.json(key);
    if (request?.issue?.number === issue) requests.push(request);
  }
  if ((await h.store.list(`intakes/acme/orders/${issue}/`)).length > 0) notes.push('an intake record is left');
  if (await h.store.get(`locks/acme/orders/issues/${issue}.json`)) notes.push('the issue is still locked');
  const pulls = [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head.startsWith(`agent/i${issue}/`));
  if (pulls.length > 1) {
    duplicates += pulls.length - 1;
    notes.push(`${pulls.length} pull requests`);
  }
  const botComments = h.comments(issue).filter((c) => c.user === h.botLogin);
  for (const request of requests) {
    const tally = await judgeRun(h, request.runId, { botComments, pulls, reference, notes });
    duplicates += tally.duplicates;
    lostData += tally.lostData;
    wrongContent ||= tally.wrongContent;
  }
  for (const p of pulls) {
    const runId = p.head.split('/r')[1];
    if (!(await h.json(`runs/acme/orders/${runId}/publish.json`))) {
      lostData += 1;
      notes.push(`pull request #${p.number} has no publish record`);
    }
  }
  const stuck = notes.some((n) => /left|locked|not final|no run\.json|no progress comment/.test(n));
  const end: EndKind = stuck ? 'stuck' : pulls.length > 0 ? 'published' : requests.length > 0 ? 'ended' : 'ignored';
  return { scenario: scenario.id, issue, end, notes, duplicates, wrongContent, lostData, deadLetters };
}

/**
 * Run the queued invocations with Lambda's retries, then let time pass and the sweeper run, as
 * in production, until nothing is left to do (a bounded number of rounds).
 */
export async function settle(h: AppHarness): Promise<void> {
  await h.drain({ retries: 2, throwOnError: false });
  for (let round = 0; round < 3; round++) {
    h.s3.faults.clear();
    h.standin.faults.clear();
    h.clock.advance(20 * 60_000);
    await h.sweep();
    await h.drain({ retries: 2, throwOnError: false });
  }
  // The lock of a run that ended lives until the sweeper finds it expired.
  h.clock.advance(150 * 60_000);
  await h.sweep();
  await h.drain({ retries: 2, throwOnError: false });
}

export interface SoakTable {
  seed: number;
  runs: number;
  rows: {
    scenario: string;
    runs: number;
    published: number;
    ended: number;
    ignored: number;
    stuck: number;
    duplicates: number;
    wrongContent: number;
    lostData: number;
    deadLetters: number;
  }[];
  verdicts: IssueVerdict[];
}

/**
 * `runs` scenario runs, round-robin over `scenarios`, each on its own issue of one harness, with
 * faults drawn from `seed`. The first issue runs fault-free first: its change is the reference.
 */
export async function runFaultSuite(options: {
  seed: number;
  runs: number;
  scenarios?: FaultScenario[];
  onVerdict?: (v: IssueVerdict) => void;
}): Promise<SoakTable> {
  const scenarios = options.scenarios ?? SCENARIOS;
  const random = seededRandom(options.seed);
  const pick = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const issues = Array.from({ length: options.runs + 1 }, (_, i) => ({
    number: i + 1,
    title: `Migrate to Jakarta Persistence (${i + 1})`,
    body: MIGRATION_ISSUE_BODY,
    user: MAINTAINER,
  }));
  const h = await startAppHarness({ issues });
  const verdicts: IssueVerdict[] = [];
  try {
    await h.deliver('issues', h.payloads.labeled(1));
    await h.drain();
    const first = await h.json(`issues/acme/orders/1/latest.json`);
    const reference = await publishedChange(h, first.runId);
    if (!reference) throw new Error('the fault-free reference run did not publish');
    for (let i = 0; i < options.runs; i++) {
      const scenario = scenarios[i % scenarios.length];
      const issue = i + 2;
      const deadBefore = h.deadLetters.length;
      await scenario.run({ h, issue, random, pick });
      await settle(h);
      const verdict = await judgeIssue(h, scenario, issue, reference, h.deadLetters.length - deadBefore);
      verdicts.push(verdict);
      options.onVerdict?.(verdict);
      // A reviewer closes the pull request, so that the policy's limit on open ones never refuses the next run.
      for (const pull of h.standin.repo(h.fullName).pulls.values()) pull.state = 'closed';
    }
  } finally {
    await h.stop();
  }
  const rows = scenarios.map((s) => {
    const mine = verdicts.filter((v) => v.scenario === s.id);
    const count = (end: EndKind) => mine.filter((v) => v.end === end).length;
    return {
      scenario: s.id,
      runs: mine.length,
      published: count('published'),
      ended: count('ended'),
      ignored: count('ignored'),
      stuck: count('stuck'),
      duplicates: mine.reduce((n, v) => n + v.duplicates, 0),
      wrongContent: mine.filter((v) => v.wrongContent).length,
      lostData: mine.reduce((n, v) => n + v.lostData, 0),
      deadLetters: mine.reduce((n, v) => n + v.deadLetters, 0),
    };
  });
  return { seed: options.seed, runs: options.runs, rows, verdicts };
}

/** The table as Markdown: one row per scenario and a total. */
export function formatSoakTable(table: SoakTable): string {
  const head = ['scenario', 'runs', 'clear end', 'published', 'ended', 'started nothing', 'stuck', 'duplicates', 'wrong content', 'lost data', 'dead letters'];
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const total = table.rows.reduce(
    (t, r) => ({
      runs: t.runs + r.runs,
      clear: t.clear + r.runs - r.stuck,
      published: t.published + r.published,
      ended: t.ended + r.ended,
      ignored: t.ignored + r.ignored,
      stuck: t.stuck + r.stuck,
      duplicates: t.duplicates + r.duplicates,
      wrong: t.wrong + r.wrongContent,
      lost: t.lost + r.lostData,
      dead: t.dead + r.deadLetters,
    }),
    { runs: 0, clear: 0, published: 0, ended: 0, ignored: 0, stuck: 0, duplicates: 0, wrong: 0, lost: 0, dead: 0 },
  );
  return [
    `seed ${table.seed}, ${table.runs} runs`,
    '',
    line(head),
    line(head.map(() => '---')),
    ...table.rows.map((r) =>
      line([r.scenario, r.runs, r.runs - r.stuck, r.published, r.ended, r.ignored, r.stuck, r.duplicates, r.wrongContent, r.lostData, r.deadLetters]),
    ),
    line([
      '**total**',
      total.runs,
      total.clear,
      total.published,
      total.ended,
      total.ignored,
      total.stuck,
      total.duplicates,
      total.wrong,
      total.lost,
      total.dead,
    ]),
  ].join('\n');
}
