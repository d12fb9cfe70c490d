import { runKeys, spendKeys } from '../../artifacts/keys.js';
import { affordableCompletion, costMicroUsd, priceOf, type PriceTable } from '../../budget/cost.js';
import {
  describeSpendRefusal,
  releaseSpend,
  reserveSpend,
  settleSpend,
  spendMonth,
  SpendError,
  type CallSpend,
  type SpendAccount,
} from '../../budget/spend.js';
import type { ArtifactStore, ChatMessage, Clock, ModelProvider, ModelResponse, SpendScope, ToolSpec } from '../../ports.js';
import { estimateTokens, promptEstimate } from './model-request.js';

/** Completion tokens a call may use when neither it nor the provider names a cap (the engine's default). */
const DEFAULT_COMPLETION_CAP = 4_096;

/** Fewer completion tokens than this left under a cap: the call is refused rather than sent to be cut short at once. */
export const MIN_AFFORDABLE_COMPLETION = 1_024;

/** What the trusted model caller accounts spend with. */
export interface SpendAccountingDeps {
  store: ArtifactStore;
  clock: Clock;
  prices?: PriceTable;
  /** INSTALLATION_MONTHLY_COST_USD, in micro-dollars. */
  installationMonthlyMicroUsd?: number;
  /** A unique id per call (random in production, sequential in tests). */
  reservationId: () => string;
}

type Request = { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number };

/** The accounts one call of `scope` is charged to, at `now`'s month. */
export function spendAccounts(scope: SpendScope, now: number, installationMonthlyMicroUsd?: number): SpendAccount[] {
  const keys = spendKeys(scope, spendMonth(now));
  return [
    { cap: 'task', key: keys.task, limitMicroUsd: scope.caps.taskMicroUsd },
    { cap: 'repository', key: keys.repository, limitMicroUsd: scope.caps.repositoryMonthlyMicroUsd },
    { cap: 'installation', key: keys.installation, limitMicroUsd: installationMonthlyMicroUsd },
  ];
}

/**
 * `inner` with every call charged to `scope`'s task, repository and installation records: the
 * call's worst case (prompt estimate plus completion cap, priced) is reserved in all three
 * before it is sent, and settled to what it used after (released if it failed). A cap the
 * reservation would pass refuses the call with `SPEND_CAP_REACHED`, naming the cap.
 */
export function accountSpend(inner: ModelProvider, scope: SpendScope, deps: SpendAccountingDeps): ModelProvider {
  const price = priceOf(deps.prices, inner.model);
  // Keys are built once per month and once per attempt, not per call: a call's own cost is what the accounting adds.
  let month: { name: string; accounts: SpendAccount[] } | undefined;
  const accountsAt = (now: number) => {
    const name = spendMonth(now);
    if (month?.name !== name) month = { name, accounts: spendAccounts(scope, now, deps.installationMonthlyMicroUsd) };
    return month.accounts;
  };
  const attemptKeys = runKeys(scope.owner, scope.repo, scope.runId).attempt(scope.attempt);
  const complete = async (request: Request): Promise<ModelResponse> => {
    const now = deps.clock.now();
    const accounts = accountsAt(now);
    if (!price && accounts.some((a) => a.limitMicroUsd !== undefined)) {
      throw new SpendError('SPEND_PRICE_UNKNOWN', `a spend cap is set but the price table has no price for model "${inner.model}"`, { model: inner.model });
    }
    const cap = request.maxTokens ?? inner.maxOutputTokens ?? DEFAULT_COMPLETION_CAP;
    const prompt = price ? promptEstimate(request.messages, request.tools) : 0;
    let worst = price ? costMicroUsd(price, prompt, cap) : 0;
    const id = deps.reservationId();
    let refusal = await reserveSpend(deps.store, accounts, { id, microUsd: worst, now });
    let sent = request;
    // A completion cap whose worst case alone passes what is left: the call is sent with the completion it can afford, when that is enough to be useful.
    const fits = refusal && price ? affordableCompletion(price, prompt, refusal.limitMicroUsd - refusal.spentMicroUsd) : 0;
    if (refusal && price && fits >= MIN_AFFORDABLE_COMPLETION && fits < cap) {
      worst = costMicroUsd(price, prompt, fits);
      refusal = await reserveSpend(deps.store, accounts, { id, microUsd: worst, now });
      sent = { ...request, maxTokens: fits };
    }
    if (refusal) throw new SpendError('SPEND_CAP_REACHED', describeSpendRefusal(refusal), refusal);
    let response: ModelResponse;
    try {
      response = await inner.complete(sent);
    } catch (error) {
      await releaseSpend(deps.store, accounts, id);
      throw error;
    }
    const used = response.usage ?? estimateTokens(request.messages, response);
    const spend: CallSpend = {
      tokensIn: used.promptTokens,
      tokensOut: used.completionTokens,
      costMicroUsd: price ? costMicroUsd(price, used.promptTokens, used.completionTokens) : 0,
    };
    await settleSpend(deps.store, accounts, id, spend);
    // The call in the attempt's trail: created once, never rewritten (the bucket policy).
    const at = new Date(now).toISOString();
    await deps.store.putIfAbsent(
      attemptKeys.spendCall(id),
      `${JSON.stringify({ schemaVersion: 1, at, model: inner.model, reservedMicroUsd: worst, ...spend })}\n`,
    );
    return response;
  };
  return { model: inner.model, ...(inner.maxOutputTokens !== undefined ? { maxOutputTokens: inner.maxOutputTokens } : {}), complete };
}

/**
 * A provider that accounts spend in process (the CLI, serve): unscoped calls go straight to
 * `inner`; `forSpend` gives the accounting one. The deployed worker uses model-call instead,
 * which runs `accountSpend` where the worker cannot reach the records.
 */
export class SpendAccountingProvider implements ModelProvider {
  constructor(
    private readonly inner: ModelProvider,
    private readonly deps: SpendAccountingDeps,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  get maxOutputTokens(): number | undefined {
    return this.inner.maxOutputTokens;
  }

  complete(request: Request): Promise<ModelResponse> {
    return this.inner.complete(request);
  }

  forSpend(scope: SpendScope): ModelProvider {
    return accountSpend(this.inner, scope, this.deps);
  }
}
