import { z } from 'zod';
import { AgentPolicy } from './agent-policy.js';

/**
 * The JSON Schema of `.agent-policy.yaml`, generated from the zod schema so the two cannot
 * disagree. Input form: keys with defaults are optional, and their defaults are listed.
 */
export function policyJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(AgentPolicy, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
