import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The scenario files that take longest (measured in full runs on two cores, 25–60 s each),
 * slowest first. Vitest starts the files it has durations for longest first; a fresh clone (CI)
 * has none, and vitest then starts the largest files first, so a small file that runs for a
 * minute (the corpus) could start last and keep one core busy while the other waits. A file
 * missing from this list is only started later; a stale entry costs nothing.
 */
export const SLOW_FILES = [
  'test/integration/eval/corpus.test.ts',
  'test/reliability/transient-faults.test.ts',
  'test/e2e/commands.test.ts',
  'test/e2e/trigger-replay-and-close.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/integration/deploy/bundle.test.ts',
  'test/e2e/ci-repair.test.ts',
  'test/reliability/publish-faults.test.ts',
  'test/e2e/revise.test.ts',
  'test/integration/replay/replay.test.ts',
];

/** Vitest's order (projects one after another, known durations longest first), with `SLOW_FILES` first within their project. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOW_FILES.indexOf(relative(this.ctx.config.root, spec.moduleId).split('\\').join('/'));
      return index < 0 ? SLOW_FILES.length : index;
    };
    const projectOrder = new Map<string, number>();
    for (const spec of sorted) if (!projectOrder.has(spec.project.name)) projectOrder.set(spec.project.name, projectOrder.size);
    // Array.prototype.sort is stable: within a rank, vitest's own order stays.
    return [...sorted].sort((a, b) => projectOrder.get(a.project.name)! - projectOrder.get(b.project.name)! || rank(a) - rank(b));
  }
}
