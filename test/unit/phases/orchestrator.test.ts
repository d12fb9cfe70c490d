import { describe, expect, it } from 'vitest';
import { ArtifactStoreError } from '../../../src/core/artifacts/artifact-error.js';
import { gitPatchCodec } from '../../../src/core/pipeline/patch-codec.js';
import { runOrchestrator, type OrchestratorOptions, type PhaseHandler } from '../../../src/core/phases/orchestrator.js';
import type { PhaseName } from '../../../src/core/phases/phase-contracts.js';
import type { PhaseProgress } from '../../../src/core/ports.js';
import { openWorkspace } from '../../../src/core/workspace/workspace.js';
import { RecordingArtifactStore } from '../../helpers/git-artifact-store.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

const clock = { now: () => Date.parse('2026-02-03T04:05:06Z') };
const PREFIX = 'runs/o/r/x/attempts/1/';
const FILES = { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' };

/** Handlers for the first phases: intake and discovery do nothing, planning plans src/a.ts, mechanical_change edits it. */
function handlers(overrides: Partial<Record<PhaseName, PhaseHandler['run']>> = {}): PhaseHandler[] {
  const noop: PhaseHandler['run'] = async () => ({ output: null, summary: 'ok' });
  const base: Record<string, PhaseHandler['run']> = {
    intake: noop,
    discovery: noop,
    planning: async () => ({ output: { paths: ['src/a.ts'] }, summary: 'planned' }),
    mechanical_change: async (context) => {
      await context.workspace.write('src/a.ts', 'export const a = 10;\n');
      await context.recordSegment('edit-a');
      return { output: { edited: 1 }, summary: 'edited' };
    },
  };
  return (['intake', 'discovery', 'planning', 'mechanical_change'] as const).map((name) => ({ name, run: overrides[name] ?? base[name] }));
}

async function setup(overrides: Partial<Record<PhaseName, PhaseHandler['run']>> = {}, extra: Partial<OrchestratorOptions> = {}) {
  const repo = await createMemoryRepo(FILES);
  const store = new RecordingArtifactStore();
  const options: OrchestratorOptions = {
    runId: 'run1',
    attempt: 1,
    store,
    attemptPrefix: PREFIX,
    workspace: repo.workspace,
    handlers: handlers(overrides),
    patches: gitPatchCodec,
    clock,
    isCancelled: async () => false,
    writablePaths: (path, outputs) => Boolean((outputs.planning as { paths?: string[] } | undefined)?.paths?.includes(path)),
    ...extra,
  };
  return { repo, store, options };
}

const types = (result: { ledger: { entries(): readonly { type: string }[] } }) => result.ledger.entries().map((e) => e.type);

describe('runOrchestrator', () => {
  it('runs the phases in order with a checkpoint after each and the patch stack of the edit', async () => {
    const { store, options } = await setup();
    const result = await runOrchestrator(options);
    expect(result.state).toBe('COMPLETED');
    expect(result.checkpoints.map((c) => [c.seq, c.phase, c.nextPhase])).toEqual([
      [0, 'intake', 'discovery'],
      [1, 'discovery', 'planning'],
      [2, 'planning', 'mechanical_change'],
      [3, 'mechanical_change', null],
    ]);
    expect(result.checkpoints[3].patches).toEqual([`${PREFIX}patches/000000-edit-a.diff`]);
    expect(new TextDecoder().decode(store.objects.get(`${PREFIX}patches/000000-edit-a.diff`))).toContain('+export const a = 10;');
  });

  it('tells the reporter when each phase starts and ends, with the changed files and the elapsed time by its clock', async () => {
    let now = 0;
    const events: PhaseProgress[] = [];
    const { options } = await setup(
      { discovery: async () => ((now += 1500), { output: null, summary: 'mapped' }) },
      { clock: { now: () => now }, reporter: { report: async () => undefined, phase: (p) => events.push(p) } },
    );
    await runOrchestrator(options);
    const ended = (phase: string, summary: string, count: number, elapsedMs: number) => [
      { phase, state: 'running' },
      { phase, state: 'done', summary, files: { count, of: 'changed' }, elapsedMs },
    ];
    expect(events).toEqual([
      ...ended('intake', 'ok', 0, 0),
      ...ended('discovery', 'mapped', 0, 1500),
      ...ended('planning', 'planned', 0, 0),
      ...ended('mechanical_change', 'edited', 1, 0),
    ]);
  });

  it('reports a failed phase as failed with the error', async () => {
    const events: PhaseProgress[] = [];
    const { options } = await setup(
      {
        discovery: async () => {
          throw new Error('boom');
        },
      },
      { reporter: { report: async () => undefined, phase: (p) => events.push(p) } },
    );
    await runOrchestrator(options);
    expect(events.at(-1)).toMatchObject({ phase: 'discovery', state: 'failed', summary: 'boom' });
  });

  it('a forbidden tool stops the run BLOCKED: TOOL_REFUSED and PHASE_FAILED are ledgered, no checkpoint for that phase', async () => {
    const { options } = await setup({
      discovery: async (context) => {
        await context.runtime.use('git_commit');
        return { output: null, summary: 'unreachable' };
      },
    });
    const result = await runOrchestrator(options);
    expect(result).toMatchObject({ state: 'BLOCKED', details: { phase: 'discovery', code: 'TOOL_NOT_ALLOWED' } });
    expect(result.checkpoints.map((c) => c.phase)).toEqual(['intake']);
    expect(types(result)).toEqual(expect.arrayContaining(['TOOL_REFUSED', 'PHASE_FAILED']));
  });

  it('a write outside the planned files stops the run BLOCKED with WRITE_REFUSED, and the file is unchanged', async () => {
    const { repo, options } = await setup({
      mechanical_change: async (context) => {
        await context.workspace.write('src/b.ts', 'export const b = 20;\n');
        return { output: null, summary: 'unreachable' };
      },
    });
    const result = await runOrchestrator(options);
    expect(result).toMatchObject({ state: 'BLOCKED', details: { phase: 'mechanical_change', code: 'FILE_NOT_ALLOWED' } });
    expect(types(result)).toContain('WRITE_REFUSED');
    expect(repo.workspace.changes()).toEqual([]);
  });

  it('an error in a handler fails the run with PHASE_FAILED', async () => {
    const { options } = await setup({
      planning: async () => {
        throw new Error('boom');
      },
    });
    const result = await runOrchestrator(options);
    expect(result).toMatchObject({ state: 'FAILED', reason: 'planning: boom', details: { code: 'PHASE_FAILED' } });
  });

  it('a transient fault in a handler is thrown on (the invocation is retried), ledgered as PHASE_INTERRUPTED; the retry resumes from the last checkpoint', async () => {
    let faults = 1;
    const mechanicalChange = handlers().find((h) => h.name === 'mechanical_change')!.run;
    const overrides = {
      mechanical_change: async (context: Parameters<PhaseHandler['run']>[0]) => {
        await context.workspace.write('src/a.ts', 'export const a = 10;\n');
        if (faults-- > 0) throw new ArtifactStoreError('STORE_UNAVAILABLE', 'S3 put still failing after 5 attempts', {});
        return mechanicalChange(context);
      },
    };
    const { repo, store, options } = await setup(overrides);
    await expect(runOrchestrator(options)).rejects.toThrow(ArtifactStoreError);
    const workspace = await openWorkspace({ fs: repo.fs, gitdir: repo.gitdir, commitSha: repo.commitSha });
    const retried = await runOrchestrator({ ...options, workspace, handlers: handlers(overrides) });
    expect(retried).toMatchObject({ state: 'COMPLETED', resumedFrom: 'planning' });
    expect(types(retried)).toEqual(expect.arrayContaining(['PHASE_INTERRUPTED', 'RESUMED']));
    expect(types(retried)).not.toContain('PHASE_FAILED');
    expect(retried.ledger.entries().find((e) => e.type === 'PHASE_INTERRUPTED')).toMatchObject({
      phase: 'mechanical_change',
      payload: { reason: 'STORE_UNAVAILABLE' },
    });
    expect(retried.ledger.entries().map((e) => e.seq)).toEqual(retried.ledger.entries().map((_, i) => i));
    expect(await workspace.readText('src/a.ts')).toBe('export const a = 10;\n');
    expect((await store.list(`${PREFIX}checkpoints/`)).length).toBe(4);
  });

  it('a deterministic store failure in a handler still ends the attempt FAILED', async () => {
    const { options } = await setup({
      planning: async () => {
        throw new ArtifactStoreError('STORE_REQUEST_FAILED', 'S3 put failed: AccessDenied', {});
      },
    });
    const result = await runOrchestrator(options);
    expect(result).toMatchObject({ state: 'FAILED', details: { code: 'PHASE_FAILED' } });
    expect(types(result)).not.toContain('PHASE_INTERRUPTED');
  });

  it('a cancel marker between phases stops the run CANCELLED', async () => {
    let asked = 0;
    const { options } = await setup({}, { isCancelled: async () => ++asked > 2 });
    const result = await runOrchestrator(options);
    expect(result.state).toBe('CANCELLED');
    expect(result.checkpoints.map((c) => c.phase)).toEqual(['intake', 'discovery']);
  });

  it('resumes on a fresh workspace from the patch stack and continues with the next phase', async () => {
    const { repo, store, options } = await setup({}, { shouldYield: () => true });
    const stopped = await runOrchestrator({ ...options, handlers: handlers() });
    expect(stopped.state).toBe('SUSPENDED');
    // Run until mechanical_change is done, one phase per invocation, each on a fresh workspace.
    let last = stopped;
    for (let i = 0; i < 5 && last.state === 'SUSPENDED'; i++) {
      const workspace = await openWorkspace({ fs: repo.fs, gitdir: repo.gitdir, commitSha: repo.commitSha });
      last = await runOrchestrator({ ...options, workspace, handlers: handlers() });
    }
    expect(last.state).toBe('COMPLETED');
    const fresh = await openWorkspace({ fs: repo.fs, gitdir: repo.gitdir, commitSha: repo.commitSha });
    const done = await runOrchestrator({ ...options, workspace: fresh, handlers: handlers() });
    // Nothing left to run; the rebuilt workspace holds the edit.
    expect(done.state).toBe('COMPLETED');
    expect(done.resumedFrom).toBe('mechanical_change');
    expect(await fresh.readText('src/a.ts')).toBe('export const a = 10;\n');
    expect((await store.list(`${PREFIX}checkpoints/`)).length).toBe(4);
  });

  it('refuses to resume when the patch stack does not rebuild the recorded workspace', async () => {
    const { repo, store, options } = await setup();
    await runOrchestrator(options);
    const key = `${PREFIX}checkpoints/000003-mechanical_change.json`;
    const checkpoint = JSON.parse(new TextDecoder().decode(store.objects.get(key)));
    await store.put(key, JSON.stringify({ ...checkpoint, diffHash: '0'.repeat(64) }));
    const workspace = await openWorkspace({ fs: repo.fs, gitdir: repo.gitdir, commitSha: repo.commitSha });
    await expect(runOrchestrator({ ...options, workspace })).rejects.toThrow(/different workspace/);
  });
});
