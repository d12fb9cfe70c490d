import { policyJsonSchema } from '../../core/policy/policy-json-schema.js';
import { UsageError, type CliIo } from './cli-io.js';

/** `draftsman policy schema`: the policy's JSON Schema, generated from its zod schema. */
export function policySchemaCommand(argv: string[], io: CliIo): number {
  if (argv.length > 0) throw new UsageError('policy schema takes no arguments');
  io.stdout(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
  return 0;
}
