import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrCandidate } from '../../../src/core/git/pr-candidate.js';
import { policyViews } from '../../../src/core/paths/policy-views.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { checkApproval, trustedChangeRisk } from '../../../src/core/publish/check-approval.js';
import { parseTask } from '../../../src/core/task/parse-task.js';
import { LocalArtifactStore, MIGRATION_POLICY, MIGRATION_TASK, makeMavenBare, removeRoot, runOnce, startRun, tempRoot } from './pipeline-harness.js';

/**
 * Risk routes a real migration: fourteen entity files with the old import and the parent pom
 * make a mechanical change that publishes without approval by default, stops at
 * `agent.approval.minRisk: MEDIUM`, and the publisher recomputes exactly the pipeline's risk.
 */
const ENTITIES = 12;
const entity = (i: number) => `package com.acme.order.model;

import javax.persistence.Entity;
import javax.persistence.Id;

@Entity
public class Line${i} {
  @Id
  private Long id;
}
`;
const extra = Object.fromEntries(Array.from({ length: ENTITIES }, (_, i) => [`order-service/src/main/java/com/acme/order/model/Line${i}.java`, entity(i)]));

let root: string;
let bare: string;

beforeAll(() => {
  root = tempRoot('risk');
  bare = join(root, 'orders.git');
  makeMavenBare(bare, extra);
});
afterAll(() => removeRoot(root));

async function run(name: string, policy: string) {
  const dir = join(root, name);
  const store = new LocalArtifactStore(dir);
  const started = await startRun(store, bare, name, MIGRATION_TASK);
  const result = await runOnce({ store, source: bare, ...started, policy });
  const key = result.artifacts['pr-candidate.json'];
  const candidateObject = key ? await store.get(key) : undefined;
  const candidate = candidateObject ? (JSON.parse(new TextDecoder().decode(candidateObject.body)) as PrCandidate) : undefined;
  const task = parseTask({ title: MIGRATION_TASK.split('\n')[0], body: MIGRATION_TASK, source: 'cli' });
  return { result, candidate, views: policyViews(parsePolicy({ text: policy }), task), task };
}

describe('risk of a mechanical migration of 14 production files', () => {
  it('is MEDIUM, grouped in words, publishes without approval by default, and the publisher computes the same risk', async () => {
    const { result, candidate, views, task } = await run('default', MIGRATION_POLICY);
    expect(result.status).toBe('COMPLETED');
    expect(candidate!.files).toHaveLength(ENTITIES + 3);
    expect(candidate!.risk).toEqual({
      riskScore: 6,
      riskLevel: 'MEDIUM',
      reasons: ['dependency manifest (1): pom.xml (+3)', '14 production files, mechanical import change and dependency version bump (+3)'],
      requiredGate: 'HUMAN_REVIEW',
    });
    expect(trustedChangeRisk(candidate!, views, task)).toEqual(candidate!.risk);
    expect(checkApproval(candidate!, views, task, [])).toBeUndefined();
  }, 60_000);

  it('stops for approval under agent.approval.minRisk MEDIUM, and the publisher refuses the same candidate unapproved', async () => {
    const policy = `${MIGRATION_POLICY}  approval:\n    minRisk: MEDIUM\n`;
    const { result } = await run('medium', policy);
    expect(result.status).toBe('NEEDS_APPROVAL');
    const details = result.details as { violations: { rule: string; message: string }[]; gateId: string };
    expect(details.violations.map((v) => v.rule)).toEqual(['MEDIUM_RISK']);
    expect(details.violations[0].message).toContain('14 production files, mechanical import change and dependency version bump (+3)');

    const published = await run('medium-published', MIGRATION_POLICY);
    const strict = policyViews(parsePolicy({ text: policy }), published.task);
    const refusal = checkApproval(published.candidate!, strict, published.task, []);
    expect(refusal).toMatchObject({ reason: 'APPROVAL_REQUIRED', data: { gateId: details.gateId, riskLevel: 'MEDIUM' } });
    expect(checkApproval(published.candidate!, strict, published.task, [details.gateId])).toBeUndefined();
  }, 60_000);
});
