import type { LlmTool } from '../../engines/llm/index.js';
import type { Ledger } from '../../phases/ledger.js';
import type { PhaseName } from '../../phases/phase-contracts.js';
import { toolCallFirings } from '../../phases/tool-classes.js';
import { describeFiring } from '../../paths/policy-rules.js';
import type { AgentRule } from '../../policy/agent-rules.js';
import { ModelToolError } from './tool-context.js';

/**
 * The policy's `on: tool` rules around each tool: checked by the orchestrator before the tool
 * runs, never told to the model as a request. Every firing is ledgered (RULE_FIRED); a deny
 * refuses the call with RULE_DENIED, which the model sees as a tool error and may work around.
 */
export function guardTools(tools: LlmTool<any>[], rules: readonly AgentRule[], ledger: Ledger, phase: PhaseName): LlmTool<any>[] {
  if (!rules.some((r) => r.on === 'tool')) return tools;
  return tools.map((tool) => ({
    ...tool,
    run: async (args: unknown) => {
      const firings = toolCallFirings(rules, tool.spec.name, args);
      for (const f of firings) {
        await ledger.append({ actor: 'orchestrator', phase, type: 'RULE_FIRED', payload: { ...f, tool: tool.spec.name } });
      }
      const deny = firings.find((f) => f.action === 'deny');
      if (deny) throw new ModelToolError('RULE_DENIED', `refused by the repository policy, ${describeFiring(deny)}`, { rule: deny.rule, tool: tool.spec.name });
      return tool.run(args);
    },
  }));
}
