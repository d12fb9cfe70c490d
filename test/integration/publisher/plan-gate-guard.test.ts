import { describe, expect, it } from 'vitest';
import { writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { ApprovalMarker } from '../../../src/core/runs/run-state.js';
import { AttemptRequest } from '../../../src/core/runs/run-request.js';
import type { PublisherResult } from '../../../src/app/publisher/create-publisher-handler.js';
import { deliver, usePublisherScenarios, writeCandidate } from './publisher-fixture.js';

/**
 * The plan gate at publication (docs/trust-chain.md, "The gate an approval covers"): under a
 * trusted policy with `requirePlanApproval`, a candidate is published only when the approval
 * marker the trigger wrote carries an approved plan, and only if every changed file is one of
 * the plan's files; a worker that made its candidate past the plan gate, or beyond the plan,
 * publishes nothing.
 */
const scenarios = usePublisherScenarios();

function refusal(result: PublisherResult): { reason: string; problems: { rule?: string; path?: string }[] } {
  if (result.kind !== 'candidate' || result.outcome.kind !== 'refused') throw new Error(`not refused: ${JSON.stringify(result)}`);
  return { reason: result.outcome.reason, problems: (result.outcome.error.data.problems ?? []) as { rule?: string; path?: string }[] };
}

const PLAN = { digest: 'a'.repeat(64), files: ['src/greet.ts'] };

describe('publication under requirePlanApproval', () => {
  it('refuses a candidate without an approved plan, and one touching a file outside it; publishes the planned change', async () => {
    const s = await scenarios.start({ runId: 'planrun1', issue: 90, agentPolicy: ['requirePlanApproval: true'] });
    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hello";\n' });
    const unplanned = refusal((await deliver(s, s.keys.candidate.prCandidate))[0]);
    expect(unplanned.reason).toBe('APPROVAL_REQUIRED');
    expect(unplanned.problems.map((p) => p.rule)).toEqual(['PLAN_APPROVAL']);

    await writeArtifact(s.store, s.keys.attempt(2).request, AttemptRequest, {
      schemaVersion: 1,
      runId: s.runId,
      attempt: 2,
      reason: 'approve',
      approvedGates: ['plan-aaaaaaaaaaaaaaaa'],
      approvedPlan: PLAN,
      createdAt: '2025-06-01T12:00:00.000Z',
    });
    await writeArtifact(s.store, s.keys.approve(2), ApprovalMarker, {
      schemaVersion: 1,
      runId: s.runId,
      attempt: 2,
      by: 'alice',
      gateId: 'plan-aaaaaaaaaaaaaaaa',
      plan: PLAN,
      at: '2025-06-01T12:00:00.000Z',
    });
    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hello";\n', 'src/extra.ts': 'export const extra = 1;\n' }, { attempt: 2 });
    const beyond = refusal((await deliver(s, s.keys.candidate.prCandidate))[0]);
    expect(beyond.reason).toBe('APPROVAL_REQUIRED');
    expect(beyond.problems).toEqual([expect.objectContaining({ rule: 'OUTSIDE_PLAN', path: 'src/extra.ts' })]);

    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hello";\n' }, { attempt: 2 });
    const [result] = await deliver(s, s.keys.candidate.prCandidate);
    expect(result).toMatchObject({ outcome: { kind: 'published', record: { attempt: 2 } } });
  });
});
