import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHASE_CONTRACTS, phaseStepBudget } from '../../../src/core/phases/phase-contracts.js';
import { MAX_TASK_STEPS } from '../../../src/core/task/task-contract.js';
import { makeBareRepo } from '../../fixtures/make-repo.js';
import { LocalArtifactStore, removeRoot, runOnce, startRun, tempRoot } from './pipeline-harness.js';

/**
 * Step budgets grow with the plan: a grouped bump of ten (and of thirty) dependencies runs every
 * phase to a candidate, where fixed five-step budgets stopped the judge after five segments.
 */
const DEPS = 30;
const dep = (i: number) => `dep-${String(i).padStart(2, '0')}`;
const manifest = `${JSON.stringify({ name: 'web', version: '1.0.0', dependencies: Object.fromEntries(Array.from({ length: DEPS }, (_, i) => [dep(i), '^1.0.0'])) }, null, 2)}\n`;
const task = (steps: number) =>
  [
    `Bump ${steps} dependencies to 2.0.0`,
    '',
    '```agent',
    'steps:',
    ...Array.from({ length: steps }, (_, i) => `  - recipe: bump-dependency\n    package: ${dep(i)}\n    to: 2.0.0`),
    '```',
    '',
  ].join('\n');

let root: string;
let bare: string;

beforeAll(() => {
  root = tempRoot('steps');
  bare = join(root, 'web.git');
  makeBareRepo(bare, { 'package.json': manifest, 'index.js': 'module.exports = 1;\n' });
});
afterAll(() => removeRoot(root));

describe('step budgets scale with the task', () => {
  it.each([10, 30])(
    'a %i-step grouped dependency bump completes through every phase',
    async (steps) => {
      const store = new LocalArtifactStore(join(root, `store-${steps}`));
      const started = await startRun(store, bare, `steps${steps}`, task(steps));
      const result = await runOnce({ store, source: bare, ...started, policy: 'version: 1\n' });
      expect({ status: result.status, reason: result.reason }).toEqual({ status: 'COMPLETED', reason: undefined });
      const candidate = JSON.parse(new TextDecoder().decode((await store.get(result.artifacts['pr-candidate.json']))!.body));
      expect(candidate.files.map((f: { path: string }) => f.path)).toEqual(['package.json']);
    },
    60_000,
  );

  it('grows by the per-segment steps up to the task contract limit, never beyond', () => {
    const judge = PHASE_CONTRACTS.judge;
    expect(phaseStepBudget(judge, 0)).toBe(5);
    expect(phaseStepBudget(judge, 10)).toBe(15);
    expect(phaseStepBudget(judge, 10_000)).toBe(5 + MAX_TASK_STEPS);
    expect(phaseStepBudget(judge, Number.POSITIVE_INFINITY)).toBe(5);
    expect(phaseStepBudget(PHASE_CONTRACTS.diff_boundary_review, 30)).toBe(5);
  });
});
