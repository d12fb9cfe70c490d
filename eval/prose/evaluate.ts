import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { groundProse } from '../../src/core/pipeline/ground-prose.js';
import { editablePaths } from '../../src/core/pipeline/pipeline-env.js';
import { policyViews } from '../../src/core/paths/policy-views.js';
import { defaultPolicy } from '../../src/core/policy/agent-policy.js';
import { mirrorCheckouts } from '../mirror-checkouts.js';
import { PROSE_CASES, type ProseCase } from './cases.js';
import { scoreProse, type ProducedSteps, type ProseScore } from './score.js';

/** One checkout's map and contents, shared by the cases pinned to the same commit. */
/**
 * Every corpus case whose mirror is present, read and grounded as a run with no task block and
 * `agent.inferSteps: run` would (the default policy's path rules, no model): what runs is
 * scored against the block the real commit applied, or against "must not run".
 */
export async function runProse(options: {
  mirrors: string;
  log?: (line: string) => void;
}): Promise<{ score: ProseScore; skipped: string[]; ms: number[]; notRun: Map<string, string> }> {
  const syntax = await createNodeSyntaxService();
  // The default policy's rules, as a run on a repository without `.agent-policy.yaml` has them.
  const { rules } = policyViews(defaultPolicy());
  const checkouts = mirrorCheckouts(options.mirrors, rules, options.log);
  const produced = new Map<string, ProducedSteps>();
  const present: ProseCase[] = [];
  const skipped: string[] = [];
  const ms: number[] = [];
  const notRun = new Map<string, string>();
  for (const c of PROSE_CASES) {
    const checkout = await checkouts.at(c.repo, c.commit);
    if (!checkout) {
      skipped.push(c.id);
      continue;
    }
    const { workspace, map, contents } = checkout;
    const started = performance.now();
    const inferred = await groundProse(
      { title: c.title, body: c.body },
      {
        map,
        editable: editablePaths(workspace, rules),
        read: (p) => contents.text(p),
        isLockfile: rules.isLockfile,
        syntax,
      },
      { mode: 'run' },
    );
    ms.push(performance.now() - started);
    produced.set(c.id, inferred.steps);
    const why = [...inferred.readings.filter((r) => !r.grounded).map((r) => r.why ?? ''), ...inferred.unread.map((u) => u.why)];
    if (why.length > 0) notRun.set(c.id, why.join('; '));
    present.push(c);
  }
  return { score: scoreProse(present, produced), skipped, ms, notRun };
}
