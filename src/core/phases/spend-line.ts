import { formatUsd } from '../budget/cost.js';
import type { RunReport } from './run-report-schema.js';

/**
 * The summary's Spend row: what the task spent so far over all its attempts (the spend record
 * the trusted model caller keeps), and the price table entry it was charged at.
 */
export function spendLine(spend: RunReport['budget']['spend']): string[] {
  if (!spend) return [];
  const price = spend.price
    ? ` · prices (${spend.price.model}): $${spend.price.inputPerMTokUsd} in / $${spend.price.outputPerMTokUsd} out per million tokens`
    : '';
  return [`| **Spend** | ${spendSummary(spend)} over all attempts so far${price} |`];
}

/** `3 model calls · tokens 15000 in / 6000 out · $0.1350`. */
export function spendSummary(spend: { calls: number; tokensIn: number; tokensOut: number; costMicroUsd: number }): string {
  return `${spend.calls} model calls · tokens ${spend.tokensIn} in / ${spend.tokensOut} out · ${formatUsd(spend.costMicroUsd)}`;
}
