import { randomUUID } from 'node:crypto';
import { usdToMicro, type PriceTable } from '../../core/budget/cost.js';
import { SpendAccountingProvider } from '../../core/engines/llm/spend-accounting.js';
import type { ArtifactStore, Clock, ModelProvider } from '../../core/ports.js';

/**
 * The model for a process that is its own trusted caller (the CLI, serve): the same spend
 * accounting model-call runs in the deployed App (docs/architecture.md, "Spend"), over the
 * process's own store. Undefined without a model.
 */
export function withSpendAccounting(
  model: ModelProvider | undefined,
  deps: { store: ArtifactStore; clock: Clock; prices?: PriceTable; installationMonthlyCostUsd?: number },
): ModelProvider | undefined {
  if (!model) return undefined;
  return new SpendAccountingProvider(model, {
    store: deps.store,
    clock: deps.clock,
    prices: deps.prices,
    ...(deps.installationMonthlyCostUsd !== undefined ? { installationMonthlyMicroUsd: usdToMicro(deps.installationMonthlyCostUsd) } : {}),
    reservationId: () => randomUUID(),
  });
}
