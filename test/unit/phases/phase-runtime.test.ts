import { beforeEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/core/phases/ledger.js';
import { PHASE_CONTRACTS, PHASE_NAMES, TOOL_NAMES, type PhaseName, type ToolName } from '../../../src/core/phases/phase-contracts.js';
import { PhaseContractError, PhaseRuntime } from '../../../src/core/phases/phase-runtime.js';
import { RecordingArtifactStore } from '../../helpers/git-artifact-store.js';
import { createMemoryRepo, type MemoryRepo } from '../../helpers/memory-repo.js';

const clock = { now: () => Date.parse('2026-02-03T04:05:06Z') };
const TARGET = 'src/target.ts';

let store: RecordingArtifactStore;
let ledger: Ledger;
let repo: MemoryRepo;

beforeEach(async () => {
  store = new RecordingArtifactStore();
  ledger = await Ledger.open(store, 'runs/o/r/x/attempts/1/ledger/', clock);
  repo = await createMemoryRepo({ [TARGET]: 'export const a = 1;\n', 'src/other.ts': 'export const b = 2;\n' });
});

function runtimeFor(phase: PhaseName): PhaseRuntime {
  return new PhaseRuntime(PHASE_CONTRACTS[phase], ledger, (path) => path === TARGET);
}

async function refusal(promise: Promise<unknown>): Promise<PhaseContractError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PhaseContractError);
  return error as PhaseContractError;
}

/** The tool a phase most plausibly over-reaches with, for the per-phase table. */
const OVERREACH: Record<PhaseName, ToolName> = {
  intake: 'file_read',
  discovery: 'file_write',
  planning: 'recipe_apply',
  baseline: 'model_call',
  mechanical_change: 'git_commit',
  local_repair: 'file_delete',
  regression_verification: 'file_write',
  diff_boundary_review: 'model_call',
  judge: 'file_write',
  pr_preparation: 'model_call',
};

describe('phase contracts are enforced at run time', () => {
  it('every phase allows exactly its contract tools, and forbids the rest', async () => {
    for (const phase of PHASE_NAMES) {
      const contract = PHASE_CONTRACTS[phase];
      expect([...contract.allowedTools, ...contract.forbiddenTools].sort()).toEqual([...TOOL_NAMES].sort());
      for (const tool of TOOL_NAMES) {
        const runtime = runtimeFor(phase);
        const outcome = await runtime.allow(tool).then(
          () => 'allowed',
          (e: PhaseContractError) => e.reason,
        );
        expect(`${phase} ${tool} ${outcome}`).toBe(`${phase} ${tool} ${contract.allowedTools.includes(tool) ? 'allowed' : 'TOOL_NOT_ALLOWED'}`);
      }
    }
  });

  it.each(PHASE_NAMES.map((p) => [p, OVERREACH[p]] as const))('%s: %s is refused with a TOOL_REFUSED ledger entry', async (phase, tool) => {
    expect(PHASE_CONTRACTS[phase].forbiddenTools).toContain(tool);
    const runtime = runtimeFor(phase);
    const error = await refusal(runtime.use(tool, { why: 'test' }));
    expect(error.reason).toBe('TOOL_NOT_ALLOWED');
    expect(error.data).toEqual({ tool, phase });
    expect(runtime.stepsUsed).toBe(0);
    const entries = ledger.entries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'orchestrator', phase, type: 'TOOL_REFUSED', payload: { tool, why: 'test' } });
    // The refusal is durable: a fresh ledger over the same store sees it.
    const reopened = await Ledger.open(store, 'runs/o/r/x/attempts/1/ledger/', clock);
    expect(reopened.entries().map((e) => e.type)).toEqual(['TOOL_REFUSED']);
  });

  it.each(PHASE_NAMES.filter((p) => PHASE_CONTRACTS[p].allowedFiles === 'none'))(
    '%s: a write through the guarded workspace is refused and nothing changes',
    async (phase) => {
      const guarded = runtimeFor(phase).guard(repo.workspace);
      const error = await refusal(guarded.write(TARGET, 'export const a = 2;\n'));
      // These phases may not even use file_write; the refusal names the tool.
      expect(error.reason).toBe('TOOL_NOT_ALLOWED');
      expect(await refusal(guarded.delete(TARGET))).toMatchObject({ reason: 'TOOL_NOT_ALLOWED' });
      expect(repo.workspace.changes()).toEqual([]);
      expect(ledger.entries().map((e) => [e.type, e.payload.tool, e.payload.path])).toEqual([
        ['TOOL_REFUSED', 'file_write', TARGET],
        ['TOOL_REFUSED', 'file_delete', TARGET],
      ]);
    },
  );

  it.each(['mechanical_change', 'local_repair'] as const)('%s: writes only the planned targets (FILE_NOT_ALLOWED + WRITE_REFUSED otherwise)', async (phase) => {
    const guarded = runtimeFor(phase).guard(repo.workspace);
    await guarded.write(TARGET, 'export const a = 2;\n');
    const error = await refusal(guarded.write('src/other.ts', 'export const b = 3;\n'));
    expect(error.reason).toBe('FILE_NOT_ALLOWED');
    expect(error.data).toEqual({ path: 'src/other.ts', phase });
    expect(repo.workspace.changes().map((c) => c.path)).toEqual([TARGET]);
    expect(await repo.workspace.readText('src/other.ts')).toBe('export const b = 2;\n');
    expect(ledger.entries().map((e) => [e.phase, e.type, e.payload.path])).toEqual([[phase, 'WRITE_REFUSED', 'src/other.ts']]);
  });

  it('local_repair may rewrite a target but not delete it (file_delete is outside its contract)', async () => {
    const guarded = runtimeFor('local_repair').guard(repo.workspace);
    const error = await refusal(guarded.delete(TARGET));
    expect(error.reason).toBe('TOOL_NOT_ALLOWED');
    expect(error.data).toEqual({ tool: 'file_delete', phase: 'local_repair' });
    expect(repo.workspace.changes()).toEqual([]);
    expect(ledger.entries().map((e) => [e.type, e.payload.tool, e.payload.path])).toEqual([['TOOL_REFUSED', 'file_delete', TARGET]]);
    // mechanical_change has file_delete: deleting a planned target works there.
    await runtimeFor('mechanical_change').guard(repo.workspace).delete(TARGET);
    expect(repo.workspace.changes()).toEqual([expect.objectContaining({ path: TARGET, kind: 'DELETED' })]);
  });

  it('discovery may read but not write; reading in intake is refused', async () => {
    const discovery = runtimeFor('discovery').guard(repo.workspace);
    expect(await discovery.readText(TARGET)).toBe('export const a = 1;\n');
    await expect(discovery.write(TARGET, 'x')).rejects.toMatchObject({ reason: 'TOOL_NOT_ALLOWED' });
    await expect(runtimeFor('intake').guard(repo.workspace).readText(TARGET)).rejects.toMatchObject({ reason: 'TOOL_NOT_ALLOWED' });
    expect(ledger.entries().map((e) => [e.phase, e.payload.tool])).toEqual([
      ['discovery', 'file_write'],
      ['intake', 'file_read'],
    ]);
  });

  it('no phase may reset the workspace through its guard', async () => {
    await guardedWrite('mechanical_change');
    expect(() => runtimeFor('mechanical_change').guard(repo.workspace).reset()).toThrow(PhaseContractError);
    expect(repo.workspace.changes()).toHaveLength(1);
  });

  it('the step budget stops a phase that loops', async () => {
    const runtime = runtimeFor('intake');
    const max = PHASE_CONTRACTS.intake.budgets.maxSteps;
    for (let i = 0; i < max; i++) await runtime.use('task_parse');
    expect(runtime.stepsUsed).toBe(max);
    const error = await refusal(runtime.use('task_parse'));
    expect(error.reason).toBe('STEP_BUDGET_EXCEEDED');
    expect(ledger.entries().map((e) => e.type)).toEqual(['STEP_BUDGET_EXCEEDED']);
  });
});

async function guardedWrite(phase: PhaseName): Promise<void> {
  await runtimeFor(phase).guard(repo.workspace).write(TARGET, 'export const a = 2;\n');
}
