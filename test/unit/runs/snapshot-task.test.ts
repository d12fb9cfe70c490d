import { describe, expect, it } from 'vitest';
import type { RunRequest } from '../../../src/core/runs/run-request.js';
import { taskFromSnapshot } from '../../../src/core/runs/snapshot-task.js';
import { TaskError } from '../../../src/core/task/task-error.js';

const github: RunRequest = {
  schemaVersion: 1,
  runId: 'k3j5h2m4n6p7',
  owner: 'acme',
  repo: 'widgets',
  source: { kind: 'github', repositoryId: 11, installationId: 1, cloneUrl: 'https://example.invalid/acme/widgets.git', apiUrl: 'https://example.invalid' },
  trigger: { kind: 'comment', key: 'comment-1', sender: 'alice' },
  issue: { number: 7, title: 'Rename total', body: 'Rename `total` to `sum`.\n\n```agent\nmode: analysis\n```\n', updatedAt: '2026-01-01T00:00:00.000Z' },
  agentBranch: 'agent/i7/rk3j5h2m4n6p7',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('taskFromSnapshot', () => {
  it('reads an issue run from the issue, its agent block and its mode', () => {
    expect(taskFromSnapshot(github)).toMatchObject({ blockSource: 'issue', mode: 'analysis', objective: expect.stringContaining('Rename `total` to `sum`.') });
  });

  it("takes the triggering comment's block before the issue's, and strips the policy's command line", () => {
    const snapshot = { ...github, comment: { id: 1, body: '/bot run\n\nalso the tests\n\n```agent\nmode: draft_pr\n```' } };
    const task = taskFromSnapshot(snapshot, '/bot');
    expect(task).toMatchObject({ blockSource: 'comment', mode: 'draft_pr' });
    expect(task.objective).toContain('also the tests');
    expect(task.objective).not.toContain('/bot run');
  });

  it('reads a CLI run from its task text', () => {
    const cli: RunRequest = {
      ...github,
      source: { kind: 'local', location: '/repo' },
      issue: undefined,
      task: { title: 'Rename total', body: 'Rename it.' },
      forcedMode: 'analysis',
    };
    expect(taskFromSnapshot(cli)).toMatchObject({ blockSource: 'none', mode: 'analysis', objective: expect.stringContaining('Rename it.') });
  });

  it('throws TaskError for an invalid agent block', () => {
    const broken = { ...github, issue: { ...github.issue!, body: '```agent\nmode: sideways\n```' } };
    expect(() => taskFromSnapshot(broken)).toThrow(TaskError);
  });
});
