import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * An `on: change` rule with `require-approval` on a recipe change (docs/policy-reference.md, "Rules
 * that can say no"): the attempt stops in NEEDS_APPROVAL at the change's approval gate, the firing
 * is ledgered, and `/agent approve` lets attempt 2 pass the same gate, recomputed by the publisher
 * from the trusted policy, and publish.
 */

const RULE = `  rules:
    - on: change
      paths: [pom.xml]
      action: require-approval
      reason: the build is reviewed by the platform team
`;
const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', `  maxChangedFiles: 20\n${RULE}`);
const ISSUE = 1;

describe('policy rules: require-approval on a change', () => {
  let h: AppHarness;
  let prefix: string;

  beforeAll(async () => {
    expect(POLICY).toContain('require-approval');
    h = await startAppHarness({ policy: POLICY });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    prefix = `runs/acme/orders/${(await h.json(`issues/acme/orders/${ISSUE}/latest.json`)).runId}/`;
  }, 120_000);

  afterAll(async () => h?.stop());

  it('the recipe change stops in NEEDS_APPROVAL naming the rule, and the firing is in the ledger', async () => {
    const run = await h.json(`${prefix}run.json`);
    expect(run).toMatchObject({ status: 'NEEDS_APPROVAL', attempt: 1, pendingGate: expect.any(String) });
    const approval = await h.json(`${prefix}attempts/1/approval-request.json`);
    expect(approval.violations).toEqual([
      { rule: 'RULE_APPROVAL', path: 'pom.xml', message: 'agent.rules[0] (require-approval): the build is reviewed by the platform team (pom.xml)' },
    ]);
    const ledger = (await h.objects()).filter((o) => o.key.startsWith(`${prefix.replace(/^runs\//, 'trail/')}1/ledger/`)).map((o) => JSON.parse(o.text));
    expect(ledger.filter((e) => e.type === 'RULE_FIRED').map((e) => e.payload)).toContainEqual({
      rule: 0,
      on: 'change',
      action: 'require-approval',
      reason: 'the build is reviewed by the platform team',
      path: 'pom.xml',
    });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
  });

  it('/agent approve: attempt 2 passes the gate the publisher recomputes, and publishes', async () => {
    expect((await h.deliver('issue_comment', h.payloads.comment(ISSUE, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
    expect(await h.json(`${prefix}publish.json`)).toMatchObject({ attempt: 2 });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
  });
});
