import { z } from 'zod';
import { costMicroUsd, formatUsd, type ModelPrice } from './cost.js';
import { describeSpendRefusal, SPEND_CAPS, type SpendCap } from './spend.js';

/** The dimensions a run's model work is bounded in, as the partial report names them. */
export const BUDGET_DIMENSIONS = ['tokens_in', 'tokens_out', 'model_calls', 'tool_calls', 'wall_clock', 'cost_usd'] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/** What model work used: calls, tool calls, tokens each way, and cost (null: no price for the model). */
export const BudgetUsage = z.object({
  modelCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  tokensIn: z.number().int().nonnegative(),
  tokensOut: z.number().int().nonnegative(),
  costMicroUsd: z.number().int().nonnegative().nullable(),
});
export type BudgetUsage = z.infer<typeof BudgetUsage>;

export const NO_USAGE: BudgetUsage = Object.freeze({ modelCalls: 0, toolCalls: 0, tokensIn: 0, tokensOut: 0, costMicroUsd: null });

/** The sum of two usages; a cost is known when either side knows one. */
export function addUsage(a: BudgetUsage, b: BudgetUsage): BudgetUsage {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    toolCalls: a.toolCalls + b.toolCalls,
    tokensIn: a.tokensIn + b.tokensIn,
    tokensOut: a.tokensOut + b.tokensOut,
    costMicroUsd: a.costMicroUsd === null && b.costMicroUsd === null ? null : (a.costMicroUsd ?? 0) + (b.costMicroUsd ?? 0),
  };
}

/**
 * Which budget ran out: the dimension, whether the run's or the phase's, its limit and what was
 * used, in the dimension's unit (tokens, calls, milliseconds, micro-dollars). `needed` is what
 * the refused next step would have taken at worst (a model call's prompt estimate plus its
 * completion cap, priced), so the limit itself is never crossed.
 */
export const Exhaustion = z.object({
  dimension: z.enum(BUDGET_DIMENSIONS),
  /** `run`, `phase`: the attempt's own limits; a spend cap (`task`, `repository`, `installation`): the trusted spend records. */
  scope: z.enum(['run', 'phase', ...SPEND_CAPS]),
  limit: z.number().int().nonnegative(),
  used: z.number().int().nonnegative(),
  needed: z.number().int().nonnegative().optional(),
});
export type Exhaustion = z.infer<typeof Exhaustion>;

/** The exhaustion in words: `cost_usd (run): $0.0081 used of $0.0100; the next model call needs up to $0.0030`. */
export function describeExhaustion(e: Exhaustion): string {
  if (isSpendCap(e.scope)) return describeSpendRefusal({ cap: e.scope, limitMicroUsd: e.limit, spentMicroUsd: e.used, neededMicroUsd: e.needed ?? 0 });
  const amount = (n: number) => (e.dimension === 'cost_usd' ? formatUsd(n) : e.dimension === 'wall_clock' ? `${Math.round(n / 1000)} s` : String(n));
  const next = e.needed === undefined ? '' : `; the next ${e.dimension === 'tool_calls' ? 'tool call' : 'model call'} needs up to ${amount(e.needed)}`;
  return `${e.dimension} (${e.scope}): ${amount(e.used)} used of ${amount(e.limit)}${next}`;
}

function isSpendCap(scope: Exhaustion['scope']): scope is SpendCap {
  return (SPEND_CAPS as readonly string[]).includes(scope);
}

/** The ledger entry type that records which budget stopped a run (payload: an Exhaustion, with where). */
export const BUDGET_EXHAUSTED = 'BUDGET_EXHAUSTED';

/** A point on the run clock after which no new model or tool call starts; `limitMs` is the time it allowed in all. */
export interface Deadline {
  scope: 'run' | 'phase';
  at: number;
  limitMs: number;
}

/** Limits over the whole run (absent: unbounded); the run's earlier usage comes with them as `spent`. */
export interface RunLimits {
  modelCalls?: number;
  toolCalls?: number;
  tokensIn?: number;
  tokensOut?: number;
  costMicroUsd?: number;
}

export interface MeterOptions {
  /** The phase's own limits: calls, tool calls, and prompt plus completion tokens. */
  phase: { maxModelCalls: number; maxSteps: number; maxTokens: number };
  run?: { limits: RunLimits; spent: BudgetUsage };
  /** Wall-clock limits, checked before live calls only (a replay is instant and must end as the original did). */
  deadlines?: readonly Deadline[];
  now?: () => number;
  /** The model's price; absent: cost is unknown (and a cost cap is refused before the meter is built). */
  price?: ModelPrice;
}

/**
 * The budget arithmetic of one phase within its run. Everything is checked before it is
 * spent: a model call goes ahead only when its worst case (the prompt estimate plus the
 * completion cap it is sent with) fits every token and cost limit, so no limit is exceeded
 * after the fact by more than the prompt estimate was wrong.
 */
export class BudgetMeter {
  private usage: BudgetUsage;

  constructor(private readonly options: MeterOptions) {
    this.usage = { ...NO_USAGE, costMicroUsd: options.price ? 0 : null };
  }

  /** This phase's usage so far. */
  get used(): BudgetUsage {
    return { ...this.usage };
  }

  /**
   * Before a model call: the completion cap to send (the wanted cap, lowered to what the token
   * limits leave), or the first exhausted dimension. Run limits are checked before the phase's,
   * since they are the ones a person set.
   */
  beforeModelCall(promptTokens: number, wantedCap: number, live: boolean): { maxTokens: number } | { exhausted: Exhaustion } {
    const clock = live ? this.pastDeadline() : undefined;
    if (clock) return { exhausted: clock };
    const stop = this.callOrPromptLimit(promptTokens);
    if (stop) return stop;
    const cap = this.completionCap(promptTokens, wantedCap);
    if (typeof cap !== 'number') return cap;
    return this.costLimit(promptTokens, cap) ?? { maxTokens: Math.max(1, cap) };
  }

  private get runSpent(): BudgetUsage {
    return this.options.run?.spent ?? NO_USAGE;
  }

  /** The model-call count, then the prompt's tokens, each against the run's limit and then the phase's. */
  private callOrPromptLimit(promptTokens: number): { exhausted: Exhaustion } | undefined {
    const u = this.usage;
    const limits = this.options.run?.limits;
    const spent = this.runSpent;
    const { phase } = this.options;
    const runCalls = limits?.modelCalls;
    if (runCalls !== undefined && spent.modelCalls + u.modelCalls + 1 > runCalls)
      return this.out('model_calls', 'run', runCalls, spent.modelCalls + u.modelCalls, 1);
    if (u.modelCalls + 1 > phase.maxModelCalls) return this.out('model_calls', 'phase', phase.maxModelCalls, u.modelCalls, 1);
    const runIn = limits?.tokensIn;
    if (runIn !== undefined && spent.tokensIn + u.tokensIn + promptTokens > runIn)
      return this.out('tokens_in', 'run', runIn, spent.tokensIn + u.tokensIn, promptTokens);
    const phaseUsed = u.tokensIn + u.tokensOut;
    if (phaseUsed + promptTokens + 1 > phase.maxTokens) return this.out('tokens_in', 'phase', phase.maxTokens, phaseUsed, promptTokens + 1);
    return undefined;
  }

  /** The wanted completion cap, lowered to what the phase's tokens and the run's output tokens leave. */
  private completionCap(promptTokens: number, wantedCap: number): number | { exhausted: Exhaustion } {
    const u = this.usage;
    const cap = Math.min(wantedCap, this.options.phase.maxTokens - (u.tokensIn + u.tokensOut) - promptTokens);
    const runOut = this.options.run?.limits.tokensOut;
    if (runOut === undefined) return cap;
    const spentOut = this.runSpent.tokensOut + u.tokensOut;
    const left = runOut - spentOut;
    if (left < 1) return this.out('tokens_out', 'run', runOut, spentOut, 1);
    return Math.min(cap, left);
  }

  /** The run's cost limit against the call's worst case (the prompt plus the full completion cap). */
  private costLimit(promptTokens: number, cap: number): { exhausted: Exhaustion } | undefined {
    const runCost = this.options.run?.limits.costMicroUsd;
    if (runCost === undefined || !this.options.price) return undefined;
    const worst = costMicroUsd(this.options.price, promptTokens, cap);
    const used = (this.runSpent.costMicroUsd ?? 0) + (this.usage.costMicroUsd ?? 0);
    return used + worst > runCost ? this.out('cost_usd', 'run', runCost, used, worst) : undefined;
  }

  /** After a model call: count it with the tokens it used; returns the call's cost (null without a price). */
  afterModelCall(tokensIn: number, tokensOut: number): number | null {
    const cost = this.options.price ? costMicroUsd(this.options.price, tokensIn, tokensOut) : null;
    this.usage = addUsage(this.usage, { modelCalls: 1, toolCalls: 0, tokensIn, tokensOut, costMicroUsd: cost });
    return cost;
  }

  /** A phase total above its limit after a call: only when the prompt was larger than estimated. */
  afterCallOverrun(): Exhaustion | undefined {
    const total = this.usage.tokensIn + this.usage.tokensOut;
    const { maxTokens } = this.options.phase;
    return total > maxTokens ? { dimension: 'tokens_in', scope: 'phase', limit: maxTokens, used: total } : undefined;
  }

  /** Before a tool call: the exhausted dimension, if any; otherwise the call is counted. */
  beforeToolCall(live: boolean): Exhaustion | undefined {
    const stop = this.toolCallExhaustion(live);
    if (!stop) this.countToolCall();
    return stop;
  }

  /** What the next tool call would exhaust, if anything; counts nothing. */
  toolCallExhaustion(live: boolean): Exhaustion | undefined {
    const clock = live ? this.pastDeadline() : undefined;
    if (clock) return clock;
    const runTools = this.options.run?.limits.toolCalls;
    const spent = this.options.run?.spent.toolCalls ?? 0;
    if (runTools !== undefined && spent + this.usage.toolCalls + 1 > runTools)
      return { dimension: 'tool_calls', scope: 'run', limit: runTools, used: spent + this.usage.toolCalls, needed: 1 };
    if (this.usage.toolCalls + 1 > this.options.phase.maxSteps)
      return { dimension: 'tool_calls', scope: 'phase', limit: this.options.phase.maxSteps, used: this.usage.toolCalls, needed: 1 };
    return undefined;
  }

  /** One tool call made (after `toolCallExhaustion` found room for it). */
  countToolCall(): void {
    this.usage = { ...this.usage, toolCalls: this.usage.toolCalls + 1 };
  }

  private pastDeadline(): Exhaustion | undefined {
    const now = this.options.now?.();
    if (now === undefined) return undefined;
    // The run's deadline first: it is the one that cannot be raised by a retry.
    const order = [...(this.options.deadlines ?? [])].sort((a, b) => (a.scope === b.scope ? a.at - b.at : a.scope === 'run' ? -1 : 1));
    const hit = order.find((d) => now >= d.at);
    return hit ? { dimension: 'wall_clock', scope: hit.scope, limit: hit.limitMs, used: Math.max(0, hit.limitMs - (hit.at - now)) } : undefined;
  }

  private out(dimension: BudgetDimension, scope: 'run' | 'phase', limit: number, used: number, needed: number): { exhausted: Exhaustion } {
    return { exhausted: { dimension, scope, limit, used, needed } };
  }
}
