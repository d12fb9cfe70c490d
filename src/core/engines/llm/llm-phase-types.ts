// The engine's public shapes: what a phase gives `runLlmPhase` and what it gets back.
import type { ModelProvider } from '../../ports.js';
import type { BudgetUsage, Deadline, Exhaustion, RunLimits } from '../../budget/budget.js';
import type { ModelPrice } from '../../budget/cost.js';
import type { LlmTool } from './llm-tool.js';
import type { RecordedExchange } from './recorded-exchange.js';
import type { HistoryBound } from './history-bound.js';

/** The part of a phase contract the engine enforces: its goal and the tools it may use. */
export interface LlmPhase {
  name: string;
  goal: string;
  allowedTools: string[];
}

export interface LlmBudgets {
  maxModelCalls: number;
  /** Prompt plus completion tokens over the whole phase. */
  maxTokens: number;
  /** Tool calls executed (refused ones count too). */
  maxSteps: number;
}

/** What one model call used, as counted against the budgets; ledgered with its exchange so a later phase can add it up. */
export interface LlmCallUsage {
  tokensIn: number;
  tokensOut: number;
  /** Null when the model has no price. */
  costMicroUsd: number | null;
  toolCalls: number;
}

export interface RunLlmPhaseInput {
  model: ModelProvider;
  phase: LlmPhase;
  /** Every tool the caller can offer; only those in `phase.allowedTools` are shown to the model. */
  tools: LlmTool<any>[];
  system: string;
  task: { title: string; objective: string };
  /** Repository context (map projection, targets); framed as untrusted data. */
  context: string;
  budgets: LlmBudgets;
  /** The run's limits and what earlier phases and segments of the run spent; absent: the phase's budgets only. */
  run?: { limits: RunLimits; spent: BudgetUsage };
  /** The model's price (cost is counted only with one); a run cost limit without it is refused. */
  price?: ModelPrice;
  /** Wall-clock limits (the phase's, the run's) on `now`'s clock; checked before every live call. */
  deadlines?: readonly Deadline[];
  now?: () => number;
  /** Applied to every message content and tool-call argument before it is sent, and to every tool result. */
  redact: (text: string) => string;
  /** Exchanges recorded by an earlier attempt of this phase, replayed in order instead of calling the model. */
  replay?: RecordedExchange[];
  /**
   * Called with each new exchange and what it used, before the loop goes on, so the caller can
   * ledger it; replayed exchanges only when they come from an earlier attempt.
   */
  record: (exchange: RecordedExchange, usage: LlmCallUsage) => Promise<void>;
  /**
   * Where `replay` comes from. `attempt` (default): this attempt's own record, and a request that
   * differs from it fails the phase (REPLAY_DIVERGED). `earlier-attempt`: a retry picking up a
   * conversation a provider error cut; the replay ends where the conversation departs from it,
   * and each replayed exchange is recorded again, so this attempt's own record is complete.
   */
  replayFrom?: 'attempt' | 'earlier-attempt';
  /** Longest tool output fed back to the model; longer output is cut with a note. Default 24,000. */
  maxToolOutputChars?: number;
  /** Cap of the completion tokens asked for per call. Default: the provider's `maxOutputTokens`, else 4,096. */
  maxCompletionTokens?: number;
  /** How much of the conversation is re-sent in full; default `DEFAULT_HISTORY_BOUND`. */
  historyBound?: HistoryBound;
  /**
   * A marker that changes whenever the phase changes something (e.g. a count of files written).
   * Identical tool calls count as a loop only while it stands still; without it, never reset.
   */
  progress?: () => unknown;
  /** Identical tool calls without progress that stop the phase (MODEL_LOOP). Default 3. */
  maxRepeatedCalls?: number;
}

/**
 * What happened to one tool call. `refused`: the phase does not allow the tool, or the tool
 * refused with a typed error (scope guard, path rules), `reason` says which; `invalid_arguments`:
 * the argument JSON did not parse or validate; `error`: the tool failed otherwise.
 */
export interface LlmToolCallRecord {
  step: number;
  modelCall: number;
  callId: string;
  tool: string;
  /** The argument JSON as the model sent it, redacted. */
  arguments: string;
  status: 'ok' | 'refused' | 'invalid_arguments' | 'error';
  reason?: string;
  message?: string;
  /** Characters of the (redacted, untruncated) output and its sha256, for the ledger. */
  outputChars?: number;
  outputDigest?: string;
}

export type LlmStopReason =
  | 'MODEL_FINISHED'
  | 'MAX_MODEL_CALLS'
  | 'MAX_TOKENS'
  | 'MAX_STEPS'
  | 'MAX_COST'
  | 'MAX_WALL_CLOCK'
  | 'MODEL_ERROR'
  | 'MODEL_RESPONSE_INVALID'
  | 'REPLAY_DIVERGED'
  /** The same tool call repeated without progress after the model was told once. FAILED: more budget would not help. */
  | 'MODEL_LOOP'
  /** The provider reported a refusal; the summary carries the model's text. */
  | 'MODEL_REFUSED'
  /** No text and no tool call, twice (the first time the model is asked again once). */
  | 'MODEL_EMPTY_ANSWER';

export interface LlmPhaseResult {
  status: 'DONE' | 'BUDGET_EXCEEDED' | 'FAILED';
  reason: LlmStopReason;
  /** The model's final answer (DONE) or what stopped the phase; redacted. */
  summary: string;
  calls: number;
  /** Prompt plus completion tokens (`usage` has them apart). */
  tokens: number;
  steps: number;
  /** This phase's calls, tool calls, tokens in and out, and cost. */
  usage: BudgetUsage;
  /** With BUDGET_EXCEEDED: which budget ran out, its limit and what was used. */
  exhausted?: Exhaustion;
  /** Model calls answered from `replay`. */
  replayed: number;
  toolResults: LlmToolCallRecord[];
  /** The subset of `toolResults` with status `refused`, for the ledger. */
  refusals: LlmToolCallRecord[];
}
