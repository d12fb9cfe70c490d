import { describe, expect, it } from 'vitest';
import { ProgressTracker } from '../../../src/app/worker/progress-tracker.js';
import type { RunProgress } from '../../../src/core/ports.js';

const rethrow = (error: unknown) => {
  throw error;
};

describe('ProgressTracker', () => {
  it('keeps the checklist of the ten phases from the phase events and sends the whole picture each time', async () => {
    const sent: RunProgress[] = [];
    const tracker = new ProgressTracker({ report: async (p) => void sent.push(p) }, rethrow);
    await tracker.report({ runId: 'r', attempt: 1, status: 'QUEUED', phases: [], taskEcho: 'task' });
    tracker.phase({ phase: 'ingestion', state: 'done', files: { count: 3, of: 'snapshot' } });
    tracker.phase({ phase: 'intake', state: 'done' });
    tracker.phase({ phase: 'discovery', state: 'running' });
    await tracker.flush();
    // The queued report, then discovery running: intake's end is shown by that write, not by one of its own.
    expect(sent).toHaveLength(2);
    const last = sent[1];
    expect(last).toMatchObject({ status: 'RUNNING', phase: 'discovery', taskEcho: 'task' });
    expect(last.phases).toHaveLength(10);
    expect(last.phases.slice(0, 3).map((p) => p.state)).toEqual(['done', 'running', 'pending']);
  });

  it('a failed or blocked phase is written at once; a passed one waits for the next write', async () => {
    const sent: RunProgress[] = [];
    const tracker = new ProgressTracker({ report: async (p) => void sent.push(p) }, rethrow);
    await tracker.report({ runId: 'r', attempt: 1, status: 'RUNNING', phases: [] });
    tracker.phase({ phase: 'intake', state: 'done' });
    await tracker.flush();
    expect(sent).toHaveLength(1);
    tracker.phase({ phase: 'discovery', state: 'failed' });
    await tracker.flush();
    expect(sent).toHaveLength(2);
    expect(sent[1].phases.slice(0, 2).map((p) => p.state)).toEqual(['done', 'failed']);
  });

  it('reports made while one is being written are written once, as the newest of them', async () => {
    const sent: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tracker = new ProgressTracker(
      {
        report: async (p) => {
          if (sent.length === 0) await gate;
          sent.push(p.message ?? '');
        },
      },
      rethrow,
    );
    const first = tracker.report({ runId: 'r', attempt: 1, status: 'RUNNING', phases: [], message: 'one' });
    await new Promise((resolve) => setImmediate(resolve));
    void tracker.report({ runId: 'r', attempt: 1, status: 'RUNNING', phases: [], message: 'two' });
    const third = tracker.report({ runId: 'r', attempt: 1, status: 'RUNNING', phases: [], message: 'three' });
    release();
    await Promise.all([first, third]);
    expect(sent).toEqual(['one', 'three']);
  });
});
