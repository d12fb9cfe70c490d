import { describe, expect, it } from 'vitest';
import type { FollowUp } from '../../../src/core/runs/follow-up.js';
import type { RunRequest } from '../../../src/core/runs/run-request.js';
import { attemptNeedsModel } from '../../../src/core/runs/run-needs-model.js';

const request = (body: string): RunRequest => ({
  schemaVersion: 1,
  runId: 'k3j5h2m4n6p7',
  owner: 'acme',
  repo: 'widgets',
  source: { kind: 'github', repositoryId: 11, installationId: 1, cloneUrl: 'https://example.invalid/acme/widgets.git', apiUrl: 'https://example.invalid' },
  trigger: { kind: 'label', key: 'label-1', sender: 'alice' },
  issue: { number: 7, title: 'Rename total', body, updatedAt: '2026-01-01T00:00:00.000Z' },
  agentBranch: 'agent/i7/rk3j5h2m4n6p7',
  createdAt: '2026-01-01T00:00:00.000Z',
});

const STEPS = '```agent\nsteps:\n  - recipe: migrate-import\n    from: javax.persistence\n    to: jakarta.persistence\n```';
const followUp = (kind: FollowUp['kind'], instructions: string): FollowUp => ({
  kind,
  sender: 'alice',
  source: 'comment-1',
  instructions,
  reviewComments: [],
  onto: { branch: 'agent/i7/rk3j5h2m4n6p7', headSha: 'a'.repeat(40), baseBranch: 'main', pullRequest: 8 },
});

/** The model check before the first phase runs only for work a model does: recipe and analysis runs never fail on a missing model. */
describe('attemptNeedsModel', () => {
  it('a change in prose needs a model; recipe steps, analysis and a task that does not parse do not', () => {
    expect(attemptNeedsModel(request('Rename `total` to `sum`.'), undefined)).toBe(true);
    expect(attemptNeedsModel(request(`Migrate.\n\n${STEPS}`), undefined)).toBe(false);
    expect(attemptNeedsModel(request('Explain it.\n\n```agent\nmode: analysis\n```'), undefined)).toBe(false);
    expect(attemptNeedsModel(request('```agent\nsteps: 12\n```'), undefined)).toBe(false);
  });

  it('a revision in prose and a CI repair need a model; a revision with recipe steps does not', () => {
    const recipeRun = request(`Migrate.\n\n${STEPS}`);
    expect(attemptNeedsModel(recipeRun, followUp('revise', 'also the tests please'))).toBe(true);
    expect(attemptNeedsModel(recipeRun, followUp('ci-repair', ''))).toBe(true);
    expect(attemptNeedsModel(recipeRun, followUp('revise', STEPS))).toBe(false);
  });
});
