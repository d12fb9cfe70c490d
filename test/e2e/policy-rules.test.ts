import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { pushCommit } from '../helpers/push-commit.js';
import { answer, callTools, type ScriptedReply } from '../helpers/scripted-model-server.js';

/**
 * `agent.rules` through the whole App (docs/policy-reference.md, "Rules that can say no"): an
 * `on: tool` deny refuses one tool call and the model goes on to publish; an `on: change` deny on
 * an added line ends the run BLOCKED with RULE_DENIED; and a deny rule that lands on the default
 * branch after the worker built its candidate is enforced by the publisher against the trusted
 * policy. Every firing is in the attempt's ledger.
 */

const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const NOTES = 'order-service/NOTES.md';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code.';
const files = mavenMultiModuleRepo();
const TRIMMED = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
const EXITING = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code); System.exit(1)');

const RULES = `  rules:
    - on: tool
      tools: [read]
      paths: ['**/notes.md']
      action: deny
      reason: the notes are private
    - on: change
      addedLines: 'System\\.exit\\('
      action: deny
      reason: services never exit the JVM
`;
const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', `  maxChangedFiles: 20\n${RULES}`);
const FROZEN = DEFAULT_POLICY.replace(
  '  maxChangedFiles: 20\n',
  `  maxChangedFiles: 20\n  rules:\n    - on: change\n      paths: [order-service/src/]\n      addedLines: '\\.trim\\(\\)'\n      action: deny\n      reason: the order service is frozen for the release\n`,
);

const ISSUES = { tool: 1, change: 2, publisher: 3 } as const;
type Scenario = keyof typeof ISSUES;

const write = (content: string) => callTools({ name: 'file_write', arguments: { path: SERVICE, content } });
const SCRIPTS: Record<Scenario, (turn: number) => ScriptedReply> = {
  tool: (turn) => [callTools({ name: 'file_read', arguments: { path: NOTES } }), write(TRIMMED), answer('Trimmed the code.')][turn] ?? answer('done'),
  change: (turn) => [write(EXITING), answer('Done.')][turn] ?? answer('done'),
  publisher: (turn) => [write(TRIMMED), answer('Trimmed the code.')][turn] ?? answer('done'),
};

function scenarioOf(body: any): Scenario | undefined {
  const user = body.messages.find((m: any) => m.role === 'user')?.content ?? '';
  return (Object.keys(ISSUES) as Scenario[]).find((s) => user.includes(`[${s}]`));
}

describe('policy rules that can say no', () => {
  let h: AppHarness;
  const runOf = async (issue: number) => {
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    const prefix = `runs/acme/orders/${latest.runId}/`;
    return { prefix, run: await h.json(`${prefix}run.json`) };
  };
  const ledger = async (prefix: string) =>
    (await h.objects())
      .filter((o) => o.key.startsWith(`${prefix.replace(/^runs\//, 'trail/')}1/ledger/`))
      .map((o) => JSON.parse(o.text))
      .sort((a, b) => a.seq - b.seq);
  const open = async (scenario: Scenario) => {
    h.standin.setIssue(h.fullName, ISSUES[scenario], { title: `[${scenario}] Trim the token exchange code`, body: TASK });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUES[scenario]))).statusCode).toBe(202);
  };

  beforeAll(async () => {
    h = await startAppHarness({
      files: { ...files, [NOTES]: '# Notes\n\nprivate\n' },
      policy: POLICY,
      model: {
        script: (body: any) => {
          const scenario = scenarioOf(body);
          return scenario ? SCRIPTS[scenario](body.messages.filter((m: any) => m.role === 'assistant').length) : answer('nothing to do');
        },
      },
    });
    await open('tool');
    await h.drain();
    await open('change');
    await h.drain();
    // The worker builds its candidate under POLICY; a rule lands on the default branch before the publisher runs.
    await open('publisher');
    await h.drain({ only: ['worker'] });
    pushCommit(h.standin, h.fullName, 'main', { '.agent-policy.yaml': FROZEN }, { message: 'Freeze the order service' });
    await h.drain();
  }, 300_000);

  afterAll(async () => h?.stop());

  it('on: tool deny refuses the call with a tool error, the model goes on, and the refusal is in the ledger', async () => {
    const { prefix, run } = await runOf(ISSUES.tool);
    expect(run).toMatchObject({ status: 'PUBLISHED' });
    const requests = h.model!.requests.filter((r) => r.body && scenarioOf(r.body) === 'tool');
    const toolMessage = requests[1].body.messages.find((m: any) => m.role === 'tool');
    expect(toolMessage.content).toContain('RULE_DENIED');
    expect(toolMessage.content).toContain('the notes are private');
    expect(toolMessage.content).not.toContain('private\n');
    const entries = await ledger(prefix);
    expect(entries.filter((e) => e.type === 'RULE_FIRED')).toEqual([
      expect.objectContaining({
        actor: 'orchestrator',
        payload: { rule: 0, on: 'tool', action: 'deny', reason: 'the notes are private', path: NOTES, tool: 'file_read' },
      }),
    ]);
    expect(entries.filter((e) => e.type === 'TOOL_REFUSED')).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ tool: 'file_read', reason: 'RULE_DENIED' }) }),
    ]);
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([SERVICE]);
  });

  it('on: change deny on an added line ends the run BLOCKED with RULE_DENIED and the rule reason, in the ledger, and nothing is published', async () => {
    const { prefix, run } = await runOf(ISSUES.change);
    expect(run).toMatchObject({ status: 'BLOCKED', reason: 'RULE_DENIED' });
    const entries = await ledger(prefix);
    expect(entries.filter((e) => e.type === 'RULE_FIRED')[0]).toMatchObject({
      actor: 'scope-guard',
      payload: { rule: 1, on: 'change', action: 'deny', reason: 'services never exit the JVM', path: SERVICE },
    });
    const verdicts = entries.filter((e) => e.type === 'SCOPE_VERDICT');
    expect(verdicts.at(-1).payload).toMatchObject({
      status: 'BLOCKED',
      violations: [{ rule: 'RULE_DENIED', path: SERVICE, message: expect.stringContaining('services never exit the JVM') }],
    });
    expect(await h.json(`${prefix}candidate/pr-candidate.json`)).toBeUndefined();
  });

  it('the publisher refuses a candidate that breaks a rule of the trusted policy, whatever the worker checked', async () => {
    const { prefix, run } = await runOf(ISSUES.publisher);
    // The worker's policy had no such rule: it built a candidate and saw no firing.
    expect(await h.json(`${prefix}candidate/pr-candidate.json`)).toMatchObject({ files: [expect.objectContaining({ path: SERVICE })] });
    expect((await ledger(prefix)).filter((e) => e.type === 'RULE_FIRED')).toEqual([]);
    expect(run).toMatchObject({ status: 'BLOCKED', reason: 'RULE_DENIED' });
    const publisher = h.dispatched.find((d) => d.fn === 'publisher' && d.key.startsWith(prefix) && d.key.endsWith('/pr-candidate.json'));
    expect(publisher?.publisher?.[0]).toMatchObject({
      kind: 'candidate',
      outcome: {
        kind: 'refused',
        reason: 'RULE_DENIED',
        error: { data: { problems: [expect.objectContaining({ path: SERVICE, message: expect.stringContaining('frozen for the release') })] } },
      },
    });
    expect(await h.json(`${prefix}publish.json`)).toBeUndefined();
  });
});
