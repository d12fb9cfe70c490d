import { z } from 'zod';
import { TaskBlock } from './task-contract.js';

/** The JSON Schema of the ```agent block, generated from TaskBlock (input form). */
export function taskJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(TaskBlock, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
