import { z } from 'zod';
import type { ToolSpec } from '../../ports.js';

/**
 * A tool the model may call: a projection of a core service given by the caller (map query,
 * search, read file, apply patch within allowed paths, status, diff). `args` validates the
 * model's argument JSON before `run` sees it; `run` returns the text fed back to the model and
 * throws (preferably an AgentError with a reason) to refuse.
 */
export interface LlmTool<A = unknown> {
  spec: ToolSpec;
  args: z.ZodType<A>;
  run(args: A): Promise<string>;
}

/**
 * A tool's one name: what the model calls, what descriptions, results, the ledger and the phase
 * contracts say. Function names on the chat-completions wire allow only these characters.
 */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Build an LlmTool whose JSON Schema is generated from its zod argument schema, so they cannot drift. */
export function defineLlmTool<S extends z.ZodType>(definition: {
  name: string;
  description: string;
  args: S;
  run(args: z.infer<S>): Promise<string>;
}): LlmTool<z.infer<S>> {
  if (!TOOL_NAME_PATTERN.test(definition.name)) throw new Error(`tool name ${JSON.stringify(definition.name)} is not a function name the model can call`);
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(definition.args, { io: 'input' }) as Record<string, unknown>;
  return {
    spec: { name: definition.name, description: definition.description, parameters },
    args: definition.args as z.ZodType<z.infer<S>>,
    run: definition.run,
  };
}
