import { campaignJsonSchema } from '../src/core/campaign/campaign-spec.js';
import { taskJsonSchema } from '../src/core/task/task-json-schema.js';
import { policyJsonSchema } from '../src/core/policy/policy-json-schema.js';
import { renderPolicyReference } from '../src/core/policy/render-policy-reference.js';

/**
 * The committed files generated from the zod schemas, by repository path: the generator script
 * writes them and the drift test compares them, so both use exactly this text.
 */
export function generatedSchemaFiles(): Record<string, string> {
  return {
    'schema/agent-policy.schema.json': `${JSON.stringify(policyJsonSchema(), null, 2)}\n`,
    'schema/agent-task.schema.json': `${JSON.stringify(taskJsonSchema(), null, 2)}\n`,
    'schema/campaign.schema.json': `${JSON.stringify(campaignJsonSchema(), null, 2)}\n`,
    'docs/policy-reference.md': renderPolicyReference(),
  };
}
