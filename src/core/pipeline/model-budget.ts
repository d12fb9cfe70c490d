import { z } from 'zod';
import {
  addUsage,
  BUDGET_EXHAUSTED,
  describeExhaustion,
  Exhaustion,
  NO_USAGE,
  priceOf,
  SpendRecord,
  usdToMicro,
  type BudgetUsage,
  type LlmPhaseResult,
  type RunLimits,
  type RunLlmPhaseInput,
} from '../engines/llm/index.js';
import type { SpendScope } from '../ports.js';
import { spendCaps } from '../policy/spend-caps.js';
import type { LedgerEntry } from '../phases/ledger.js';
import type { RunReportInput } from '../phases/run-report-schema.js';
import type { PhaseContext } from '../phases/orchestrator.js';
import { PHASE_CONTRACTS, PHASE_NAMES, type PhaseName } from '../phases/phase-contracts.js';
import type { TaskContract } from '../task/task-contract.js';
import { viewsFor, type PipelineEnv } from './pipeline-env.js';

/** The ledger entry of one model call (written by the model segment), as far as the budgets read it. */
const ExchangeEntry = z.object({
  segment: z.string(),
  exchange: z.object({
    response: z.object({
      message: z.object({ tool_calls: z.array(z.unknown()).optional() }),
      usage: z.object({ promptTokens: z.number().int().nonnegative(), completionTokens: z.number().int().nonnegative() }).optional(),
    }),
  }),
  /** As the engine counted it (estimated when the provider reported none), with its cost. */
  usage: z
    .object({ tokensIn: z.number().int().nonnegative(), tokensOut: z.number().int().nonnegative(), costMicroUsd: z.number().int().nonnegative().nullable() })
    .optional(),
});

/** An exhaustion as ledgered, with where it happened (no segment: between phases). */
export const ExhaustedEntry = Exhaustion.extend({ segment: z.string().optional(), phase: z.enum(PHASE_NAMES) });
export type ExhaustedEntry = z.infer<typeof ExhaustedEntry>;

/** One model call's usage from its ledger entry; tool calls are those the model asked for. */
function callUsage(payload: unknown): BudgetUsage | undefined {
  const parsed = ExchangeEntry.safeParse(payload);
  if (!parsed.success) return undefined;
  const { exchange, usage } = parsed.data;
  const tokens = usage ?? {
    tokensIn: exchange.response.usage?.promptTokens ?? 0,
    tokensOut: exchange.response.usage?.completionTokens ?? 0,
    costMicroUsd: null,
  };
  return { modelCalls: 1, toolCalls: exchange.response.message.tool_calls?.length ?? 0, ...tokens };
}

/**
 * The model usage of the attempt, from its ledger (the one record that survives a crash and is
 * replayed on resume): in all and per phase.
 */
export function modelUsage(entries: readonly LedgerEntry[]): { total: BudgetUsage; byPhase: Map<PhaseName, BudgetUsage> } {
  let total = NO_USAGE;
  const byPhase = new Map<PhaseName, BudgetUsage>();
  for (const entry of entries) {
    if (entry.type !== 'MODEL_EXCHANGE' || !entry.phase) continue;
    const usage = callUsage(entry.payload);
    if (!usage) continue;
    total = addUsage(total, usage);
    byPhase.set(entry.phase, addUsage(byPhase.get(entry.phase) ?? NO_USAGE, usage));
  }
  return { total, byPhase };
}

/**
 * What the run spent before a segment began: every model call ledgered before the segment's
 * first one (all of them for a segment not yet started). A resumed phase replays its segments,
 * and each must see what it saw the first time, or its requests would differ from the recording.
 */
export function spentBefore(entries: readonly LedgerEntry[], phase: PhaseName, segment: string): BudgetUsage {
  const isOwn = (e: LedgerEntry) => e.type === 'MODEL_EXCHANGE' && e.phase === phase && e.payload.segment === segment;
  const first = entries.findIndex(isOwn);
  return modelUsage(first < 0 ? entries : entries.slice(0, first)).total;
}

/** The run's limits on model work: the policy's `agent.budgets`, model calls as the task and policy allow. */
export function runLimits(env: PipelineEnv, task: TaskContract): RunLimits {
  const budgets = env.policy.agent.budgets;
  return {
    modelCalls: viewsFor(env, task).limits.maxModelCalls,
    ...(budgets.maxToolCalls !== undefined ? { toolCalls: budgets.maxToolCalls } : {}),
    ...(budgets.maxInputTokens !== undefined ? { tokensIn: budgets.maxInputTokens } : {}),
    ...(budgets.maxOutputTokens !== undefined ? { tokensOut: budgets.maxOutputTokens } : {}),
    ...(budgets.maxCostUsd !== undefined ? { costMicroUsd: usdToMicro(budgets.maxCostUsd) } : {}),
  };
}

/** Whom the attempt's model calls are charged to, with the policy's spend caps (the deployment's installation cap is the model caller's). */
export function spendScope(env: PipelineEnv): SpendScope {
  const source = env.request.source;
  return {
    owner: env.owner,
    repo: env.repo,
    runId: env.request.runId,
    attempt: env.attempt,
    installation: source.kind === 'github' ? String(source.installationId) : 'local',
    caps: spendCaps(env.policy),
  };
}

/** The budget part of a model segment's engine input: the phase's budgets, the run's limits and spending, price and deadlines. */
export function segmentBudget(
  env: PipelineEnv,
  context: PhaseContext,
  task: TaskContract,
  segment: { id: string },
): Pick<RunLlmPhaseInput, 'budgets' | 'run' | 'price' | 'deadlines' | 'now'> {
  const contract = PHASE_CONTRACTS[context.phase];
  const price = env.model ? priceOf(env.prices, env.model.model) : undefined;
  return {
    budgets: { maxModelCalls: viewsFor(env, task).limits.maxModelCalls, maxTokens: contract.budgets.maxTokens, maxSteps: contract.budgets.maxSteps },
    run: { limits: runLimits(env, task), spent: spentBefore(context.ledger.entries(), context.phase, segment.id) },
    ...(price ? { price } : {}),
    deadlines: context.deadlines,
    now: () => env.clock.now(),
  };
}

/** Ledger which budget stopped a segment, so the run report can name it. */
export async function noteExhaustion(context: PhaseContext, segment: { id: string }, result: LlmPhaseResult): Promise<void> {
  if (!result.exhausted) return;
  const payload: ExhaustedEntry = { ...result.exhausted, segment: segment.id, phase: context.phase };
  await context.ledger.append({ actor: 'orchestrator', phase: context.phase, type: BUDGET_EXHAUSTED, payload });
}

/** The last exhaustion the attempt ledgered, if any. */
export function lastExhaustion(entries: readonly LedgerEntry[]): ExhaustedEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].type !== BUDGET_EXHAUSTED) continue;
    const parsed = ExhaustedEntry.safeParse(entries[i].payload);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** The one sentence a stop at a spend cap ends with (the cap, the spend, the setting to raise), from a stop's details; undefined for any other stop. */
export function spendCapSentence(details: Record<string, unknown> | undefined): string | undefined {
  const parsed = Exhaustion.safeParse(details?.exhausted);
  if (!parsed.success || parsed.data.scope === 'run' || parsed.data.scope === 'phase') return undefined;
  return describeExhaustion(parsed.data);
}

/** The report's spend so far: the run's spend record (written by the model caller) and the model's price; none before any call. */
export async function taskSpend(env: PipelineEnv): Promise<RunReportInput['budget']['spend']> {
  const object = await env.store.get(env.keys.spend);
  if (!object) return undefined;
  const parsed = SpendRecord.safeParse(JSON.parse(new TextDecoder().decode(object.body)));
  if (!parsed.success) return undefined;
  const { calls, tokensIn, tokensOut, costMicroUsd } = parsed.data;
  const price = env.model ? priceOf(env.prices, env.model.model) : undefined;
  return { calls, tokensIn, tokensOut, costMicroUsd, ...(price && env.model ? { price: { model: env.model.model, ...price } } : {}) };
}
