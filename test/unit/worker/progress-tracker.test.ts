import { describe, expect, it } from 'vitest';
import { ProgressTracker } from '../../../src/app/worker/progress-tracker.js';
import type { RunProgress } from '../../../src/core/ports.js';

describe('ProgressTracker', () => {
  it('keeps the checklist of the ten phases from the phase events and sends the whole picture each time', async () => {
    const sent: RunProgress[] = [];
    const tracker = new ProgressTracker({ report: async (p) => void sent.push(p) }, (error) => {
      throw error;
    });
    await tracker.report({ runId: 'r', attempt: 1, status: 'QUEUED', phases: [], taskEcho: 'task' });
    tracker.phase({ phase: 'ingestion', state: 'done', files: { count: 3, of: 'snapshot' } });
    tracker.phase({ phase: 'intake', state: 'done' });
    tracker.phase({ phase: 'discovery', state: 'running' });
    await tracker.flush();
    expect(sent).toHaveLength(3);
    const last = sent[2];
    expect(last).toMatchObject({ status: 'RUNNING', phase: 'discovery', taskEcho: 'task' });
    expect(last.phases).toHaveLength(10);
    expect(last.phases.slice(0, 3).map((p) => p.state)).toEqual(['done', 'running', 'pending']);
  });
});
