import { z } from 'zod';
import { AgentError } from '../errors.js';

/**
 * What one model costs, in US dollars per million tokens, as the provider's price list says.
 * Prices are a deployment fact (they change with the contract, not with the repository), so
 * they come from the deployment configuration, never from a repository's policy.
 */
export const ModelPrice = z.strictObject({
  inputPerMTokUsd: z.number().nonnegative().max(1_000_000).describe('US dollars per million prompt (input) tokens.'),
  outputPerMTokUsd: z.number().nonnegative().max(1_000_000).describe('US dollars per million completion (output) tokens.'),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Model id (as the provider is configured with it) -> its price. */
export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/** The price table as a deployment parameter: one JSON object, validated when the configuration is read. */
export const PriceTableJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object: {"<model id>": {"inputPerMTokUsd": n, "outputPerMTokUsd": n}}' });
      return z.NEVER;
    }
  })
  .pipe(PriceTable);

export const COST_REASONS = ['PRICE_TABLE_INVALID'] as const;
export type CostReason = (typeof COST_REASONS)[number];

export class CostError extends AgentError<CostReason> {}

/** Parse the price table parameter (`MODEL_PRICES`, `DRAFTSMAN_MODEL_PRICES`); absent or blank means no table. */
export function parsePriceTable(text: string | undefined, parameter = 'MODEL_PRICES'): PriceTable | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = PriceTableJson.safeParse(text);
  if (!parsed.success) {
    throw new CostError(
      'PRICE_TABLE_INVALID',
      `${parameter} is not a valid price table: ${z.prettifyError(parsed.error)}`,
      { parameter },
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/** The price of `model`, or undefined when the table has none. */
export function priceOf(table: PriceTable | undefined, model: string): ModelPrice | undefined {
  return table && Object.hasOwn(table, model) ? table[model] : undefined;
}

/** A dollar price per million tokens as integer pico-dollars per token (1 USD/MTok = 1,000,000 pUSD/token). */
function picoUsdPerToken(usdPerMTok: number): bigint {
  return BigInt(Math.round(usdPerMTok * 1_000_000));
}

/**
 * The cost of `tokensIn` prompt and `tokensOut` completion tokens in integer micro-dollars,
 * rounded up: exact integer arithmetic (no float sums drifting between runs), and a cap
 * compared against rounded-up costs is never exceeded by the rounding.
 */
export function costMicroUsd(price: ModelPrice, tokensIn: number, tokensOut: number): number {
  const pico =
    BigInt(Math.max(0, Math.ceil(tokensIn))) * picoUsdPerToken(price.inputPerMTokUsd) +
    BigInt(Math.max(0, Math.ceil(tokensOut))) * picoUsdPerToken(price.outputPerMTokUsd);
  return Number((pico + 999_999n) / 1_000_000n);
}

/** The most completion tokens a call of `prompt` tokens can use within `roomMicroUsd` (0 when the prompt alone does not fit). */
export function affordableCompletion(price: ModelPrice, prompt: number, roomMicroUsd: number): number {
  const left = roomMicroUsd - costMicroUsd(price, prompt, 0);
  if (left <= 0 || price.outputPerMTokUsd <= 0) return 0;
  // A dollar per million tokens is a micro-dollar per token; costMicroUsd rounds the sum up to a whole micro-dollar, which at most one more micro-dollar's tokens pays for.
  const fits = Math.floor(left / price.outputPerMTokUsd);
  if (costMicroUsd(price, prompt, fits) <= roomMicroUsd) return fits;
  return Math.max(0, fits - Math.ceil(1 / price.outputPerMTokUsd) - 1);
}

/** Dollars as integer micro-dollars (a policy's `maxCostUsd`), rounded down so the cap is never raised. */
export function usdToMicro(usd: number): number {
  return Math.floor(Math.round(usd * 1e8) / 100);
}

/** Micro-dollars as `$0.0123`: four decimals, rounded up so a spend is never shown smaller than it was. */
export function formatUsd(microUsd: number): string {
  const tenThousandths = Math.ceil(microUsd / 100);
  return `$${Math.floor(tenThousandths / 10_000)}.${String(tenThousandths % 10_000).padStart(4, '0')}`;
}
