import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, MAINTAINER, MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools, type ScriptedReply } from '../helpers/scripted-model-server.js';

/**
 * The plan gate (docs/policy-reference.md, "A plan to approve") through the whole App: with
 * `agent.requirePlanApproval` a run stops after planning in NEEDS_APPROVAL (PLAN_APPROVAL) with
 * plan.json, shown on the progress comment; `/agent approve` approves the plan by the digest the
 * publisher computed, and the change that follows is held to the plan's files: a model change
 * that adds a file outside the plan stops for a new approval naming it, which the publisher
 * recomputes from the approved plan in the trusted approval marker. `/agent plan` asks the same
 * of one issue under a policy that does not.
 */

const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const NOTES = 'order-service/NOTES.md';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code.';
const files = mavenMultiModuleRepo();
const TRIMMED = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  requirePlanApproval: true\n');

const ISSUES = { clean: 1, extra: 2 } as const;
type Scenario = keyof typeof ISSUES;

const write = (path: string, content: string) => callTools({ name: 'file_write', arguments: { path, content } });
const SCRIPTS: Record<Scenario, (turn: number) => ScriptedReply> = {
  clean: (turn) => [write(SERVICE, TRIMMED), answer('Trimmed the code.')][turn] ?? answer('done'),
  extra: (turn) =>
    [
      write(SERVICE, TRIMMED),
      callTools({ name: 'plan_revise', arguments: { reason: 'the notes describe the token exchange', addFiles: [NOTES] } }),
      write(NOTES, '# Notes\n\nThe code is trimmed before the exchange.\n'),
      answer('Trimmed the code and noted it.'),
    ][turn] ?? answer('done'),
};

function scenarioOf(body: any): Scenario | undefined {
  const user = body.messages.find((m: any) => m.role === 'user')?.content ?? '';
  return (Object.keys(ISSUES) as Scenario[]).find((s) => user.includes(`[${s}]`));
}

describe('plan gate: requirePlanApproval stops at the plan; the approved change is held to its files', () => {
  let h: AppHarness;
  const runOf = async (issue: number) => {
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    const prefix = `runs/acme/orders/${latest.runId}/`;
    return { prefix, run: await h.json(`${prefix}run.json`) };
  };
  const approve = async (issue: number) => {
    expect((await h.deliver('issue_comment', h.payloads.comment(issue, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
  };

  beforeAll(async () => {
    expect(POLICY).toContain('requirePlanApproval: true');
    h = await startAppHarness({
      files: { ...files, [NOTES]: '# Notes\n' },
      policy: POLICY,
      model: {
        script: (body: any) => {
          const scenario = scenarioOf(body);
          return scenario ? SCRIPTS[scenario](body.messages.filter((m: any) => m.role === 'assistant').length) : answer('nothing to do');
        },
      },
    });
    for (const scenario of Object.keys(ISSUES) as Scenario[]) {
      h.standin.setIssue(h.fullName, ISSUES[scenario], { title: `[${scenario}] Trim the token exchange code`, body: TASK });
      expect((await h.deliver('issues', h.payloads.labeled(ISSUES[scenario]))).statusCode).toBe(202);
      await h.drain();
    }
  }, 300_000);

  afterAll(async () => h?.stop());

  it('the run stops after planning with PLAN_APPROVAL and plan.json, asks no model, and the comment shows the plan', async () => {
    for (const issue of Object.values(ISSUES)) {
      const { prefix, run } = await runOf(issue);
      expect(run).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'PLAN_APPROVAL', attempt: 1 });
      const plan = await h.json(`${prefix}attempts/1/plan.json`);
      expect(plan).toMatchObject({ strategy: 'llm', attempt: 1, estimatedSpend: { modelCallsAtMost: expect.any(Number) } });
      expect(plan.files).toContain(SERVICE);
      expect(plan.files).not.toContain(NOTES);
      expect(plan.targets.map((t: { path: string }) => t.path)).toContain(SERVICE);
      expect(plan.segments).toEqual([expect.objectContaining({ engine: 'llm', files: plan.files })]);
      const gate = await h.json(`${prefix}control/gate-1.json`);
      expect(gate.gateId).toMatch(/^plan-[0-9a-f]{16}$/);
      expect(gate.plan).toMatchObject({ digest: expect.stringMatching(gate.gateId.slice('plan-'.length)), files: plan.files });
      const progress = h.comments(issue).find((c) => c.user === h.botLogin)!;
      expect(progress.body).toContain('**Status:** NEEDS_APPROVAL');
      expect(progress.body).toContain('**Plan approval needed**');
      expect(progress.body).toContain(`\`${SERVICE}\``);
      expect(progress.body).toContain('Estimated spend: at most');
      expect((await h.objects()).some((o) => o.key.startsWith(`${prefix}candidate/`))).toBe(false);
    }
    expect(h.model!.requests).toEqual([]);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
  });

  it('/agent approve binds to the plan digest; the change within the plan publishes', async () => {
    await approve(ISSUES.clean);
    const { prefix, run } = await runOf(ISSUES.clean);
    const gate = await h.json(`${prefix}control/gate-1.json`);
    const approved = { digest: gate.plan.digest, files: gate.plan.files };
    expect(await h.json(`${prefix}attempts/2/request.json`)).toMatchObject({ reason: 'approve', approvedGates: [gate.gateId], approvedPlan: approved });
    expect(await h.json(`${prefix}control/approve-2.json`)).toMatchObject({ gateId: gate.gateId, plan: approved });
    expect(run).toMatchObject({ status: 'PUBLISHED', attempt: 2 });
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([SERVICE]);
  });

  it('a change that touches a file outside the approved plan stops for a new approval naming it; approving that publishes', async () => {
    await approve(ISSUES.extra);
    const { prefix, run } = await runOf(ISSUES.extra);
    expect(run).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'APPROVAL_REQUIRED', attempt: 2 });
    const asked = await h.json(`${prefix}attempts/2/approval-request.json`);
    expect(asked.violations).toEqual([{ rule: 'OUTSIDE_PLAN', path: NOTES, message: `not in the approved plan: ${NOTES}` }]);
    // The publisher recomputed the gate from the approved plan in the trusted marker, not from the worker's word.
    const gate = await h.json(`${prefix}control/gate-2.json`);
    expect(gate).toMatchObject({ gateId: asked.gateId, violations: asked.violations });
    expect(gate.plan).toBeUndefined();
    const progress = h.comments(ISSUES.extra).find((c) => c.user === h.botLogin)!;
    expect(progress.body).toContain('**Approval needed**');
    expect(progress.body).toContain(`\`${NOTES}\``);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);

    await approve(ISSUES.extra);
    const plan = (await h.json(`${prefix}control/gate-1.json`)).plan;
    expect(await h.json(`${prefix}control/approve-3.json`)).toMatchObject({ gateId: gate.gateId, plan: { digest: plan.digest, files: plan.files } });
    expect((await runOf(ISSUES.extra)).run).toMatchObject({ status: 'PUBLISHED', attempt: 3 });
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual([NOTES, SERVICE].sort());
  });
});

describe('/agent plan: the plan gate on one issue, under a policy that does not ask it of every run', () => {
  let h: AppHarness;
  let prefix: string;

  beforeAll(async () => {
    h = await startAppHarness({ policy: DEFAULT_POLICY });
    expect((await h.deliver('issue_comment', h.payloads.comment(1, '/agent plan', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
    prefix = `runs/acme/orders/${(await h.json('issues/acme/orders/1/latest.json')).runId}/`;
  }, 120_000);

  afterAll(async () => h?.stop());

  it('stops at the recipe plan with no model spend; /agent approve publishes the planned change', async () => {
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'PLAN_APPROVAL' });
    const plan = await h.json(`${prefix}attempts/1/plan.json`);
    expect(plan).toMatchObject({ strategy: 'recipe', estimatedSpend: { modelCallsAtMost: 0, costUsdAtMost: 0 } });
    for (const file of MIGRATION_CHANGED_FILES) expect(plan.files).toContain(file);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    expect((await h.deliver('issue_comment', h.payloads.comment(1, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 2 });
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
  });
});
