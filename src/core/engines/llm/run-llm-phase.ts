import { z } from 'zod';
import { AgentError } from '../../errors.js';
import type { ChatMessage, ModelResponse, ToolSpec } from '../../ports.js';
import { BudgetMeter, describeExhaustion, type BudgetDimension, type Exhaustion } from '../../budget/budget.js';
import { SpendError, SpendRefusal } from '../../budget/spend.js';
import { LlmEngineError } from './llm-engine-error.js';
import type { LlmCallUsage, LlmPhaseResult, LlmStopReason, LlmToolCallRecord, RunLlmPhaseInput } from './llm-phase-types.js';
import type { LlmTool } from './llm-tool.js';
import { LoopDetector } from './loop-detector.js';
import { parseReplay } from './parse-replay.js';
import { estimateTokens, promptEstimate, redactMessage, type PreviousCall } from './model-request.js';
import { executeToolCall } from './execute-tool-call.js';
import { boundHistory } from './history-bound.js';
import { RecordedExchange, RecordedModelResponse, digestModelRequest } from './recorded-exchange.js';
import { UNTRUSTED_CONTENT_RULE, frameUntrusted } from '../../text/untrusted-content.js';

/** Completion tokens asked for per call when neither the caller nor the provider sets a cap. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

const Budgets = z.object({
  maxModelCalls: z.number().int().nonnegative(),
  maxTokens: z.number().int().nonnegative(),
  maxSteps: z.number().int().nonnegative(),
});

/**
 * Run one phase as a bounded tool-calling loop: ask the model, execute the
 * tool calls it makes (only the phase's tools, arguments validated), feed results back as
 * untrusted data, until it answers without tool calls (DONE), a budget runs out
 * (BUDGET_EXCEEDED) or the model fails (FAILED). Nothing the model says is trusted: refusals are
 * told to the model and reported in the result. With `replay`, the recorded responses stand in
 * for the model as long as each request is byte-identical to the recorded one; the model is
 * asked only past the end of the replay.
 */
export async function runLlmPhase(input: RunLlmPhaseInput): Promise<LlmPhaseResult> {
  const state = startLoop(input);
  for (;;) {
    const calls = state.meter.used.modelCalls;
    const request: ModelRequest = {
      model: input.model.model,
      messages: boundHistory(state.messages, input.historyBound).messages.map((message) => redactMessage(message, input.redact)),
      tools: state.offered.map((tool) => tool.spec),
      maxTokens: 0,
    };
    const answer = await answerOf(state, request, calls);
    if ('stop' in answer) return answer.stop;
    const toolCalls = await countAnswer(state, request, answer, calls);
    const turn = takeTurn(state, answer.response, toolCalls, calls);
    if (turn === 'again') continue;
    if (turn) return turn;
    const stopped = await runToolCalls(state, toolCalls, calls, answer.live);
    if (stopped) return stopped;
  }
}

type ModelRequest = { model: string; messages: ChatMessage[]; tools: ToolSpec[]; maxTokens: number };
type ToolCall = NonNullable<ChatMessage['tool_calls']>[number];
type Answer = { response: ModelResponse; live: boolean; requestDigest: string };

/** The loop's state: the conversation so far, what ran, and the meter that bounds it. */
interface LoopState {
  input: RunLlmPhaseInput;
  meter: BudgetMeter;
  replay: RecordedExchange[];
  completionCap: number;
  maxOutput: number;
  offered: LlmTool<any>[];
  offeredByName: Map<string, LlmTool<any>>;
  known: Set<string>;
  messages: ChatMessage[];
  toolResults: LlmToolCallRecord[];
  loops: LoopDetector;
  replayed: number;
  lastContent: string;
  nudged: boolean;
  previous?: PreviousCall;
}

/** The input checked (budgets, a price for a cost limit, the replay) and the loop's first state. */
function startLoop(input: RunLlmPhaseInput): LoopState {
  const budgets = Budgets.safeParse(input.budgets);
  if (!budgets.success)
    throw new LlmEngineError('INVALID_BUDGETS', 'budgets must be non-negative integers', { budgets: input.budgets }, { cause: budgets.error });
  if (input.run?.limits.costMicroUsd !== undefined && !input.price) {
    throw new LlmEngineError('PRICE_UNKNOWN', `a cost limit is set but the price table has no price for model "${input.model.model}"`, {
      model: input.model.model,
    });
  }
  const allowed = new Set(input.phase.allowedTools);
  const offered = input.tools.filter((tool) => allowed.has(tool.spec.name));
  return {
    input,
    meter: new BudgetMeter({ phase: budgets.data, run: input.run, deadlines: input.deadlines, now: input.now, price: input.price }),
    replay: parseReplay(input.replay ?? [], input.phase.name),
    completionCap: input.maxCompletionTokens ?? input.model.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    maxOutput: input.maxToolOutputChars ?? 24_000,
    offered,
    offeredByName: new Map(offered.map((tool) => [tool.spec.name, tool])),
    known: new Set(input.tools.map((tool) => tool.spec.name)),
    messages: [
      { role: 'system', content: systemPrompt(input, offered) },
      { role: 'user', content: userPrompt(input) },
    ],
    toolResults: [],
    loops: new LoopDetector({ maxRepeats: input.maxRepeatedCalls }),
    replayed: 0,
    lastContent: '',
    nudged: false,
  };
}

function finish(state: LoopState, status: LlmPhaseResult['status'], reason: LlmStopReason, summary: string, exhausted?: Exhaustion): LlmPhaseResult {
  const usage = state.meter.used;
  return {
    status,
    reason,
    summary: state.input.redact(summary),
    calls: usage.modelCalls,
    tokens: usage.tokensIn + usage.tokensOut,
    steps: usage.toolCalls,
    usage,
    ...(exhausted ? { exhausted } : {}),
    replayed: state.replayed,
    toolResults: state.toolResults,
    refusals: state.toolResults.filter((r) => r.status === 'refused'),
  };
}

function exhausted(state: LoopState, e: Exhaustion): LlmPhaseResult {
  const u = state.meter.used;
  const counts = `${u.modelCalls} model calls, ${u.toolCalls} tool calls, ${u.tokensIn} tokens in, ${u.tokensOut} tokens out in this phase`;
  const note = state.lastContent ? ` Last model note: ${state.lastContent}` : '';
  return finish(state, 'BUDGET_EXCEEDED', STOP_REASON[e.dimension], `Stopped: ${describeExhaustion(e)} (${counts}).${note}`, e);
}

/** Room for the call in every budget: the completion cap is set on `request`, or the phase stops. */
function admit(state: LoopState, request: ModelRequest, live: boolean): { stop: LlmPhaseResult } | undefined {
  const check = state.meter.beforeModelCall(promptEstimate(request.messages, request.tools, state.previous), state.completionCap, live);
  if ('exhausted' in check) return { stop: exhausted(state, check.exhausted) };
  request.maxTokens = check.maxTokens;
  return undefined;
}

/** The model's answer to `request`: the recorded one while the replay matches, else a live call. */
async function answerOf(state: LoopState, request: ModelRequest, calls: number): Promise<Answer | { stop: LlmPhaseResult }> {
  const { replay } = state;
  let live = calls >= replay.length;
  const refused = admit(state, request, live);
  if (refused) return refused;
  const requestDigest = digestModelRequest(request);
  if (calls < replay.length && replay[calls].requestDigest !== requestDigest) {
    if (state.input.replayFrom !== 'earlier-attempt') {
      return {
        stop: finish(
          state,
          'FAILED',
          'REPLAY_DIVERGED',
          `Replay diverged at model call ${calls}: the request differs from the recorded one, so the recorded answer cannot be reused.`,
        ),
      };
    }
    replay.length = calls;
    live = true;
    // The call is live after all: the checks only live calls get (deadlines) apply.
    const again = admit(state, request, true);
    if (again) return again;
  }
  if (!live) {
    state.replayed += 1;
    return { response: replay[calls].response, live, requestDigest };
  }
  const response = await callModel(state, request);
  return 'stop' in response ? response : { response: response.ok, live, requestDigest };
}

/** A live model call, its response validated; a failure or a malformed response stops the phase. */
async function callModel(state: LoopState, request: ModelRequest): Promise<{ ok: ModelResponse } | { stop: LlmPhaseResult }> {
  let raw: ModelResponse;
  try {
    raw = await state.input.model.complete({ messages: request.messages, tools: request.tools, maxTokens: request.maxTokens });
  } catch (error) {
    const refusal = spendRefusalOf(error);
    if (refusal) return { stop: exhausted(state, refusal) };
    const reason = error instanceof AgentError ? `${error.reason}: ` : '';
    return { stop: finish(state, 'FAILED', 'MODEL_ERROR', `The model call failed: ${reason}${error instanceof Error ? error.message : String(error)}`) };
  }
  const parsed = RecordedModelResponse.safeParse(raw);
  if (!parsed.success)
    return { stop: finish(state, 'FAILED', 'MODEL_RESPONSE_INVALID', `The model returned a malformed response: ${z.prettifyError(parsed.error)}`) };
  return { ok: parsed.data as ModelResponse };
}

/** A spend cap the trusted model caller refused the call at, as the budget that ran out. */
function spendRefusalOf(error: unknown): Exhaustion | undefined {
  if (!(error instanceof SpendError) || error.reason !== 'SPEND_CAP_REACHED') return undefined;
  const refusal = SpendRefusal.safeParse(error.data);
  if (!refusal.success) return undefined;
  const r = refusal.data;
  return { dimension: 'cost_usd', scope: r.cap, limit: r.limitMicroUsd, used: r.spentMicroUsd, needed: r.neededMicroUsd };
}

/** Count the answer against the budgets and record the exchange; returns the tool calls it asks for. */
async function countAnswer(state: LoopState, request: ModelRequest, answer: Answer, calls: number): Promise<ToolCall[]> {
  const { input, meter } = state;
  const { response } = answer;
  const toolCalls = response.message.tool_calls ?? [];
  const used = response.usage ?? estimateTokens(request.messages, response);
  const costMicroUsd = meter.afterModelCall(used.promptTokens, used.completionTokens);
  // Replayed exchanges of an earlier attempt are recorded again, so this attempt's record is whole.
  if (answer.live || input.replayFrom === 'earlier-attempt') {
    const usage: LlmCallUsage = { tokensIn: used.promptTokens, tokensOut: used.completionTokens, costMicroUsd, toolCalls: toolCalls.length };
    const exchange = {
      schemaVersion: 1 as const,
      seq: calls,
      phase: input.phase.name,
      model: input.model.model,
      requestDigest: answer.requestDigest,
      response: response as RecordedExchange['response'],
    };
    await input.record(exchange, usage);
  }
  state.previous = response.usage ? { ...response.usage, messages: state.messages.length } : undefined;
  return toolCalls;
}

/**
 * The answer taken into the conversation. Returns how the phase ends (a refusal, a second empty
 * answer, a budget overrun, or the final answer), 'again' after nudging an empty answer, or
 * undefined when the tool calls are to run.
 */
function takeTurn(state: LoopState, response: ModelResponse, toolCalls: ToolCall[], calls: number): LlmPhaseResult | 'again' | undefined {
  state.lastContent = (response.message.content ?? '').trim();
  const { lastContent } = state;
  if (response.stopReason === 'refusal') return finish(state, 'FAILED', 'MODEL_REFUSED', `The model refused: ${lastContent || '(no text given)'}`);
  if (toolCalls.length === 0 && lastContent === '') {
    // An empty turn is not sent back (providers reject empty assistant messages); one nudge, then FAILED.
    if (state.nudged)
      return finish(state, 'FAILED', 'MODEL_EMPTY_ANSWER', `The model answered with neither text nor a tool call, twice (${calls} model calls).`);
    state.nudged = true;
    state.messages.push({ role: 'user', content: EMPTY_ANSWER_NUDGE });
    return 'again';
  }
  state.messages.push({ role: 'assistant', content: response.message.content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
  const overrun = state.meter.afterCallOverrun();
  if (overrun) return exhausted(state, overrun);
  if (toolCalls.length === 0) return finish(state, 'DONE', 'MODEL_FINISHED', lastContent);
  return undefined;
}

/** Run the answer's tool calls in order, feeding each result back; a spent budget or a loop stops the phase. */
async function runToolCalls(state: LoopState, toolCalls: ToolCall[], calls: number, live: boolean): Promise<LlmPhaseResult | undefined> {
  const { input, meter, loops } = state;
  for (const call of toolCalls) {
    // A spent budget is named before a loop: it is what stopped the phase either way.
    const stop = meter.toolCallExhaustion(live);
    if (stop) return exhausted(state, stop);
    loops.progress(input.progress?.());
    const loop = loops.call(call.function.name, call.function.arguments);
    if (loop.action === 'stop') return finish(state, 'FAILED', 'MODEL_LOOP', `Stopped: ${loop.message}.`);
    meter.countToolCall();
    const context = {
      step: meter.used.toolCalls,
      modelCall: calls + 1,
      phase: input.phase,
      offeredByName: state.offeredByName,
      known: state.known,
      redact: input.redact,
      maxOutput: state.maxOutput,
    };
    const { record, content } = await executeToolCall(call, context);
    state.toolResults.push(record);
    state.messages.push({ role: 'tool', tool_call_id: call.id, content: loop.action === 'warn' ? `${content}\n${input.redact(loop.note)}` : content });
  }
  return undefined;
}

const EMPTY_ANSWER_NUDGE = 'Your last reply was empty: no text and no tool call. Call one of the tools, or reply with your final summary.';

const STOP_REASON: Record<BudgetDimension, LlmStopReason> = {
  model_calls: 'MAX_MODEL_CALLS',
  tool_calls: 'MAX_STEPS',
  tokens_in: 'MAX_TOKENS',
  tokens_out: 'MAX_TOKENS',
  cost_usd: 'MAX_COST',
  wall_clock: 'MAX_WALL_CLOCK',
};

function systemPrompt(input: RunLlmPhaseInput, offered: LlmTool<any>[]): string {
  const names = offered.map((tool) => tool.spec.name).join(', ') || 'none';
  const { maxModelCalls, maxSteps, maxTokens } = input.budgets;
  return [
    input.system.trim(),
    '',
    UNTRUSTED_CONTENT_RULE,
    '',
    `Phase: ${input.phase.name}`,
    `Goal: ${input.phase.goal}`,
    `Tools available in this phase: ${names}. Calls to any other tool are refused.`,
    `Budgets: at most ${maxModelCalls} model calls, ${maxSteps} tool calls and ${maxTokens} tokens for this phase.`,
    'When the goal is met, reply without tool calls, with a short summary of what you did and what you did not do.',
  ].join('\n');
}

function userPrompt(input: RunLlmPhaseInput): string {
  return [
    `Task: ${input.task.title}`,
    '',
    'Objective:',
    input.task.objective,
    '',
    'Repository context:',
    frameUntrusted('repository context', input.context),
  ].join('\n');
}
