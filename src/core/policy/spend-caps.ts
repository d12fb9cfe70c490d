import type { AgentPolicy } from './agent-policy.js';
import type { SpendScope } from '../ports.js';
import { usdToMicro } from '../budget/cost.js';

/** A policy's spend caps in US$ millionths: the task's (`agent.budgets.maxCostUsd`) and the repository's month (`monthlyCostUsd`). */
export function spendCaps(policy: AgentPolicy): SpendScope['caps'] {
  const { maxCostUsd, monthlyCostUsd } = policy.agent.budgets;
  return {
    ...(maxCostUsd !== undefined ? { taskMicroUsd: usdToMicro(maxCostUsd) } : {}),
    ...(monthlyCostUsd !== undefined ? { repositoryMonthlyMicroUsd: usdToMicro(monthlyCostUsd) } : {}),
  };
}
