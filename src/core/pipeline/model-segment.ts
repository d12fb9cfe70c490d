import { runLlmPhase } from '../engines/llm/index.js';
import { groundedFacts, inferredOf } from './inferred-steps.js';
import { redactSecrets } from '../secrets/secret-scan.js';
import type { PhaseContext } from '../phases/orchestrator.js';
import { PHASE_CONTRACTS } from '../phases/phase-contracts.js';
import type { TaskContract } from '../task/task-contract.js';
import { noteExhaustion, segmentBudget, spendScope } from './model-budget.js';
import { segmentPrompt } from './model-context.js';
import { segmentReplay } from './model-replay.js';
import { segmentTools } from './model-tools/segment-tools.js';
import type { SegmentResult } from './phases/change-phase.js';
import type { Segment } from './phases/planning-phase.js';
import type { PipelineEnv } from './pipeline-env.js';

/**
 * One model segment: a bounded tool-calling loop whose tools are projections of core services
 * (read, search, navigate the map, precise edits within the segment's files, diff). Every write goes through the
 * phase runtime (contract and allowed files); file content is redacted before any request.
 * Exchanges are ledgered, and a resumed attempt replays them instead of asking again.
 */
export async function runModelSegment(env: PipelineEnv, context: PhaseContext, task: TaskContract, segment: Segment): Promise<SegmentResult> {
  if (!env.model) throw new Error('no model is configured');
  const model = env.model.forSpend?.(spendScope(env)) ?? env.model;
  const written = new Map<string, number>();
  const redact = (text: string) => redactSecrets(text).text;

  const tools = segmentTools({ env, context, task, segment, written });

  const replay = await segmentReplay(env, context, segment.id);
  const contract = PHASE_CONTRACTS[context.phase];
  const result = await runLlmPhase({
    model,
    phase: { name: context.phase, goal: contract.modelGoal ?? contract.goal, allowedTools: [...contract.allowedTools] },
    tools,
    ...(await segmentPrompt({ env, context, task, segment })),
    task: { title: env.request.issue?.title ?? env.request.task?.title ?? '', objective: withGroundedFacts(task.objective, context.outputs) },
    ...segmentBudget(env, context, task, segment),
    redact,
    // Any edit is progress: a repeated read after it may answer differently.
    progress: () => [...written.values()].reduce((sum, n) => sum + n, 0),
    replay: replay.exchanges,
    replayFrom: replay.from,
    record: async (exchange, usage) => {
      await context.ledger.append({ actor: 'model', phase: context.phase, type: 'MODEL_EXCHANGE', payload: { segment: segment.id, exchange, usage } });
    },
  });
  await noteExhaustion(context, segment, result);
  for (const refusal of result.refusals) {
    await context.ledger.append({
      actor: 'orchestrator',
      phase: context.phase,
      type: 'TOOL_REFUSED',
      payload: { tool: refusal.tool, reason: refusal.reason ?? '', message: refusal.message ?? '' },
    });
  }
  return {
    id: segment.id,
    engine: 'llm',
    changedFiles: [...written.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, edits]) => ({ path, edits })),
    skipped: [],
    notes: [`model ${model.model}: ${result.status} (${result.reason})`],
    lockfilesToRefresh: [],
    model: {
      calls: result.calls,
      tokens: result.tokens,
      status: result.status,
      reason: result.reason,
      summary: result.summary.slice(0, 2000),
      usage: result.usage,
      ...(result.exhausted ? { exhausted: result.exhausted } : {}),
    },
  };
}

/** The objective, followed by what grounding found in the issue's words (a model runs when none of it could). */
function withGroundedFacts(objective: string, outputs: Readonly<Record<string, unknown>>): string {
  const facts = groundedFacts(inferredOf(outputs));
  return facts.length > 0 ? `${objective}\n\n${facts.join('\n')}` : objective;
}
