import { describe, expect, it } from 'vitest';
import { readArtifact, writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { AttemptRequest, RunRecord, RunRequest } from '../../../src/core/runs/run-request.js';
import { ApprovalMarker } from '../../../src/core/runs/run-state.js';
import type { PublisherResult } from '../../../src/app/publisher/create-publisher-handler.js';
import { deliver, FULL, usePublisherScenarios, writeCandidate, writesTo, type Scenario } from './publisher-fixture.js';

/**
 * What the publisher trusts: approval and risk from the trusted policy (not the candidate's own
 * risk report), and the repository, run and branch from the trigger-written request at the
 * run's own key (not from the candidate or anything the worker writes).
 */
const scenarios = usePublisherScenarios();
let seq = 0;

async function scenarioWith(agentPolicy: string[] = []): Promise<Scenario> {
  seq += 1;
  const scenario = await scenarios.start({ runId: `guard${seq}run`, issue: 60 + seq, agentPolicy });
  return scenario;
}

const GREET = { 'src/greet.ts': 'export const greet = () => "hi";\n' };

function refusal(result: PublisherResult): { reason: string; data: Record<string, unknown> } {
  if (result.kind !== 'candidate' || result.outcome.kind !== 'refused') throw new Error(`not refused: ${JSON.stringify(result)}`);
  return { reason: result.outcome.reason, data: result.outcome.error.data };
}

async function expectNothingWritten(s: Scenario, before: number): Promise<void> {
  expect(writesTo(s.standin.calls.slice(before))).toEqual([]);
  const repo = s.standin.repo(FULL);
  expect(repo.pulls.size).toBe(0);
  expect(await repo.git.listRefs('refs/heads/agent/')).toEqual([]);
  expect(await s.store.get(s.keys.publish)).toBeUndefined();
}

describe('approval and risk come from the trusted policy', () => {
  it.each([
    { name: 'a requireApprovalFor path', policy: ['requireApprovalFor: ["src/greet.ts"]'], rule: 'REQUIRES_APPROVAL' },
    { name: 'a HIGH risk rule', policy: ['riskRules:', '  - { glob: "src/**", level: HIGH, reason: "core code" }'], rule: 'HIGH_RISK' },
  ])('refuses an unapproved candidate touching $name, whatever risk the candidate claims', async ({ policy, rule }) => {
    const s = await scenarioWith(policy);
    const { candidate } = await writeCandidate(s, GREET);
    expect(candidate.risk).toMatchObject({ riskLevel: 'LOW', requiredGate: 'NONE' });
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    const refused = refusal(result);
    expect(refused.reason).toBe('APPROVAL_REQUIRED');
    expect((refused.data.problems as { rule: string }[]).map((p) => p.rule)).toContain(rule);
    expect(refused.data.gateId).toMatch(/^gate-[0-9a-f]{16}$/);
    await expectNothingWritten(s, before);
    expect(await readArtifact(s.store, s.keys.run, RunRecord)).toMatchObject({ status: 'BLOCKED', reason: 'APPROVAL_REQUIRED' });
  });

  it('publishes once the trigger recorded the approval of that gate; an approval the worker could write is not enough', async () => {
    const s = await scenarioWith(['requireApprovalFor: ["src/greet.ts"]']);
    await writeCandidate(s, GREET);
    const gateId = refusal((await deliver(s, s.keys.candidate.prCandidate))[0]).data.gateId as string;

    // Attempt 2 claims the gate in its attempt request (the worker writes attempts/*): still refused.
    await writeArtifact(s.store, s.keys.attempt(2).request, AttemptRequest, {
      schemaVersion: 1,
      runId: s.runId,
      attempt: 2,
      reason: 'approve',
      approvedGates: [gateId],
      createdAt: '2025-06-01T12:00:00.000Z',
    });
    await writeCandidate(s, GREET, { attempt: 2 });
    expect(refusal((await deliver(s, s.keys.candidate.prCandidate))[0]).reason).toBe('APPROVAL_REQUIRED');

    // The approval marker only the trigger writes, for this attempt and this gate: published.
    await writeArtifact(s.store, s.keys.approve(2), ApprovalMarker, {
      schemaVersion: 1,
      runId: s.runId,
      attempt: 2,
      by: 'alice',
      gateId,
      at: '2025-06-01T12:00:00.000Z',
    });
    await writeCandidate(s, GREET, { attempt: 2 });
    const [result] = await deliver(s, s.keys.candidate.prCandidate);
    expect(result).toMatchObject({ outcome: { kind: 'published', record: { attempt: 2 } } });
  });
});

describe('the run, repository and branch come from the trigger-written request at the run key', () => {
  it.each([
    {
      name: 'a candidate naming another run and its branch',
      forge: async (s: Scenario) => void (await writeCandidate(s, GREET, { runId: 'otherrun1', branch: `agent/i${s.issue}/rotherrun1` })),
      reason: 'CANDIDATE_MISMATCH',
    },
    {
      name: 'a request naming another repository than its key',
      forge: async (s: Scenario) => {
        await writeCandidate(s, GREET);
        const request = await readArtifact(s.store, s.keys.request, RunRequest);
        await writeArtifact(s.store, s.keys.request, RunRequest, { ...request, owner: 'victim' });
      },
      reason: 'BINDING_MISMATCH',
    },
    {
      name: 'a request naming another run than its key',
      forge: async (s: Scenario) => {
        await writeCandidate(s, GREET);
        const request = await readArtifact(s.store, s.keys.request, RunRequest);
        await writeArtifact(s.store, s.keys.request, RunRequest, { ...request, runId: 'otherrun1' });
      },
      reason: 'BINDING_MISMATCH',
    },
    {
      name: 'a GitHub request without an issue, naming its own branch',
      forge: async (s: Scenario) => {
        await writeCandidate(s, GREET);
        const request = await readArtifact(s.store, s.keys.request, RunRequest);
        await writeArtifact(s.store, s.keys.request, RunRequest, { ...request, issue: undefined });
      },
      reason: 'BINDING_MISMATCH',
    },
    {
      name: 'a request whose branch is not the one of its issue and run',
      forge: async (s: Scenario) => {
        await writeCandidate(s, GREET, { branch: 'agent/i1/rsomeoneelse' });
        const request = await readArtifact(s.store, s.keys.request, RunRequest);
        await writeArtifact(s.store, s.keys.request, RunRequest, { ...request, agentBranch: 'agent/i1/rsomeoneelse' });
      },
      reason: 'BINDING_MISMATCH',
    },
  ])('refuses $name and writes nothing', async ({ forge, reason }) => {
    const s = await scenarioWith();
    await forge(s);
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);
    expect(refusal(result).reason).toBe(reason);
    await expectNothingWritten(s, before);
    // No token was minted for a run that does not bind.
    expect(s.standin.calls.slice(before).filter((c) => c.path.startsWith('/app/'))).toEqual([]);
  });
});
