import { z } from 'zod';
import { AgentError, isSuspension, isTransientFault } from '../../errors.js';
import { sha256Hex } from '../../util/digest.js';
import type { LlmTool } from './llm-tool.js';
import type { LlmPhase, LlmToolCallRecord } from './llm-phase-types.js';
import { frameUntrusted } from '../../text/untrusted-content.js';

export interface ExecuteContext {
  step: number;
  modelCall: number;
  phase: LlmPhase;
  offeredByName: Map<string, LlmTool<any>>;
  /** Every tool name the caller has, offered in this phase or not. */
  known: Set<string>;
  redact: (text: string) => string;
  maxOutput: number;
}

export async function executeToolCall(
  call: { id: string; function: { name: string; arguments: string } },
  ctx: ExecuteContext,
): Promise<{ record: LlmToolCallRecord; content: string }> {
  const tool = ctx.offeredByName.get(call.function.name);
  const name = call.function.name;
  const base = { step: ctx.step, modelCall: ctx.modelCall, callId: call.id, tool: name, arguments: ctx.redact(call.function.arguments) };
  const fail = (status: LlmToolCallRecord['status'], reason: string, message: string) => {
    const safe = ctx.redact(message);
    return { record: { ...base, status, reason, message: safe }, content: `error: ${reason}: ${safe}` };
  };

  if (!tool) {
    const allowedList = [...new Set([...ctx.offeredByName.keys()])].join(', ') || 'none';
    const reason = ctx.known.has(name) ? 'TOOL_NOT_ALLOWED' : 'UNKNOWN_TOOL';
    return fail('refused', reason, `tool "${name}" is not allowed in phase "${ctx.phase.name}"; allowed tools: ${allowedList}`);
  }

  let json: unknown;
  try {
    json = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch {
    return fail('invalid_arguments', 'ARGUMENTS_NOT_JSON', `the arguments of "${name}" are not valid JSON`);
  }
  const args = tool.args.safeParse(json);
  if (!args.success) return fail('invalid_arguments', 'ARGUMENTS_INVALID', `invalid arguments for "${name}": ${z.prettifyError(args.error)}`);

  let output: string;
  try {
    output = await tool.run(args.data);
  } catch (error) {
    // A transient fault is not the model's to hear about: the phase stops and the invocation is retried (docs/architecture.md, "Transient faults").
    if (isTransientFault(error) || isSuspension(error)) throw error;
    if (error instanceof AgentError) return fail('refused', error.reason, error.message);
    return fail('error', 'TOOL_FAILED', error instanceof Error ? error.message : String(error));
  }
  const redacted = ctx.redact(output);
  const shown =
    redacted.length > ctx.maxOutput ? `${redacted.slice(0, ctx.maxOutput)}\n[... ${redacted.length - ctx.maxOutput} more characters cut]` : redacted;
  return {
    record: { ...base, status: 'ok', outputChars: redacted.length, outputDigest: sha256Hex(redacted) },
    content: frameUntrusted(`tool ${name}`, shown),
  };
}
