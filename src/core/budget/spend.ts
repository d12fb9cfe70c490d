import { z } from 'zod';
import { AgentError } from '../errors.js';
import type { ArtifactStore } from '../ports.js';
import { formatUsd } from './cost.js';

/**
 * Spend that holds (docs/architecture.md, "Spend"): what model calls cost accrues in three
 * records, the task's (every attempt of a run), the repository's and the installation's for a
 * calendar month (UTC), written only by the trusted model caller. A call first reserves its
 * worst case in each record by compare-and-swap and settles to what it used after, so parallel
 * calls cannot together pass a cap.
 */

/** The three caps, from the narrowest. */
export const SPEND_CAPS = ['task', 'repository', 'installation'] as const;
export type SpendCap = (typeof SPEND_CAPS)[number];

/** The setting that raises each cap. */
export const SPEND_CAP_SETTING: Readonly<Record<SpendCap, string>> = {
  task: 'agent.budgets.maxCostUsd',
  repository: 'agent.budgets.monthlyCostUsd',
  installation: 'INSTALLATION_MONTHLY_COST_USD',
};

/** A reservation older than this is taken as spent at its worst case (its caller died before settling). */
export const RESERVATION_TTL_MS = 15 * 60_000;

/** Compare-and-swap tries before a record is reported too contended to update. */
const MAX_SWAPS = 64;

const Micro = z.number().int().nonnegative();

/** One spend record: settled usage, and the reservations of calls under way (id -> worst case). */
export const SpendRecord = z.object({
  schemaVersion: z.literal(1),
  calls: Micro,
  tokensIn: Micro,
  tokensOut: Micro,
  costMicroUsd: Micro,
  /** Reservations that expired unsettled, counted in `costMicroUsd` at their worst case. */
  expired: Micro.default(0),
  reserved: z.record(z.string(), z.object({ microUsd: Micro, at: z.number().int() })).default({}),
});
export type SpendRecord = z.infer<typeof SpendRecord>;

export const EMPTY_SPEND: SpendRecord = Object.freeze({ schemaVersion: 1, calls: 0, tokensIn: 0, tokensOut: 0, costMicroUsd: 0, expired: 0, reserved: {} });

/** One record a call is charged to, and its cap in micro-dollars (absent: no cap, spend is still recorded). */
export interface SpendAccount {
  cap: SpendCap;
  key: string;
  limitMicroUsd?: number;
}

/** Why a call was refused: which cap, its limit, what is spent or reserved, and the call's worst case. */
export const SpendRefusal = z.object({ cap: z.enum(SPEND_CAPS), limitMicroUsd: Micro, spentMicroUsd: Micro, neededMicroUsd: Micro });
export type SpendRefusal = z.infer<typeof SpendRefusal>;

export const SPEND_REASONS = ['SPEND_CAP_REACHED', 'SPEND_PRICE_UNKNOWN', 'SPEND_CONTENDED'] as const;
export type SpendReason = (typeof SPEND_REASONS)[number];

/** A model call not sent because a spend cap would be crossed (`data` is the SpendRefusal). */
export class SpendError extends AgentError<SpendReason> {}

/** The refusal in one sentence: the cap, the spend, the setting that raises it. */
export function describeSpendRefusal(r: SpendRefusal): string {
  const whose = { task: "The task's spend cap", repository: "This repository's monthly spend cap", installation: "This installation's monthly spend cap" }[
    r.cap
  ];
  const spent = { task: 'over all its attempts', repository: 'this month (UTC)', installation: 'this month (UTC)' }[r.cap];
  const setting = SPEND_CAP_SETTING[r.cap];
  return (
    `${whose} ${setting} = ${formatUsd(r.limitMicroUsd)} stopped the run: ${formatUsd(r.spentMicroUsd)} spent ${spent} ` +
    `and the next model call could cost up to ${formatUsd(r.neededMicroUsd)}; raise ${setting} to go on.`
  );
}

/** What is committed in a record: settled cost plus every open reservation. */
export function committedMicroUsd(record: SpendRecord): number {
  return Object.values(record.reserved).reduce((sum, r) => sum + r.microUsd, record.costMicroUsd);
}

/** The record with reservations older than the TTL taken as spent at their worst case. */
function expireStale(record: SpendRecord, now: number): SpendRecord {
  const reserved: SpendRecord['reserved'] = {};
  let cost = record.costMicroUsd;
  let expired = record.expired;
  for (const [id, r] of Object.entries(record.reserved)) {
    if (now - r.at > RESERVATION_TTL_MS) {
      cost += r.microUsd;
      expired += 1;
    } else reserved[id] = r;
  }
  return { ...record, costMicroUsd: cost, expired, reserved };
}

const decoder = new TextDecoder();

/** Read a spend record (absent: nothing spent yet). */
export async function readSpend(store: ArtifactStore, key: string): Promise<SpendRecord> {
  const object = await store.get(key);
  return object ? SpendRecord.parse(JSON.parse(decoder.decode(object.body))) : { ...EMPTY_SPEND, reserved: {} };
}

/**
 * The text last read or written per record key, with its parsed record. A call settles the
 * records it reserved in a moment before, so the text it reads back is most often the text it
 * wrote: the same text is the same record, and it is not parsed again. Records are frozen, since
 * one is shared between the reads that find the same text.
 */
const recent = new Map<string, { text: string; record: SpendRecord }>();
const RECENT_KEYS = 64;

function parseRecord(key: string, text: string): SpendRecord {
  const hit = recent.get(key);
  if (hit?.text === text) return hit.record;
  const record = SpendRecord.parse(JSON.parse(text));
  remember(key, text, record);
  return record;
}

function remember(key: string, text: string, record: SpendRecord): void {
  if (recent.size >= RECENT_KEYS && !recent.has(key)) recent.clear();
  for (const r of Object.values(record.reserved)) Object.freeze(r);
  Object.freeze(record.reserved);
  recent.set(key, { text, record: Object.freeze(record) });
}

/**
 * Change one record by compare-and-swap: read it with its etag, apply `change`, write only if
 * nobody wrote in between (or create it only if it is still absent), else read again. `change`
 * returning undefined writes nothing.
 */
async function swap<T>(store: ArtifactStore, key: string, change: (record: SpendRecord) => { next?: SpendRecord; value: T }): Promise<T> {
  for (let i = 0; i < MAX_SWAPS; i++) {
    const object = await store.get(key);
    const current = object ? parseRecord(key, decoder.decode(object.body)) : { ...EMPTY_SPEND, reserved: {} };
    const { next, value } = change(current);
    if (!next) return value;
    const body = `${JSON.stringify(next)}\n`;
    const written = object ? await store.putIfMatch(key, body, object.etag) : await store.putIfAbsent(key, body);
    if (written) {
      remember(key, body, next);
      return value;
    }
  }
  throw new SpendError('SPEND_CONTENDED', `the spend record ${key} changed under every one of ${MAX_SWAPS} tries`, { key });
}

/**
 * Reserve `microUsd` (a call's worst case) in every account, in order. When one would pass its
 * cap, the reservations already made are released and the refusal is returned; nothing is sent.
 */
export async function reserveSpend(
  store: ArtifactStore,
  accounts: readonly SpendAccount[],
  reservation: { id: string; microUsd: number; now: number },
): Promise<SpendRefusal | undefined> {
  const done: SpendAccount[] = [];
  for (const account of accounts) {
    const refusal = await swap(store, account.key, (record) => {
      const fresh = expireStale(record, reservation.now);
      const committed = committedMicroUsd(fresh);
      const limit = account.limitMicroUsd;
      if (limit !== undefined && committed + reservation.microUsd > limit) {
        const value: SpendRefusal = { cap: account.cap, limitMicroUsd: limit, spentMicroUsd: committed, neededMicroUsd: reservation.microUsd };
        return { value, next: fresh === record ? undefined : fresh };
      }
      const next = { ...fresh, reserved: { ...fresh.reserved, [reservation.id]: { microUsd: reservation.microUsd, at: reservation.now } } };
      return { value: undefined, next };
    });
    if (refusal) {
      await releaseSpend(store, done, reservation.id);
      return refusal;
    }
    done.push(account);
  }
  return undefined;
}

/** Drop a reservation without charging anything (the call was never sent). */
export async function releaseSpend(store: ArtifactStore, accounts: readonly SpendAccount[], id: string): Promise<void> {
  for (const account of accounts) {
    await swap(store, account.key, (record) => {
      if (!Object.hasOwn(record.reserved, id)) return { value: undefined };
      const { [id]: _dropped, ...reserved } = record.reserved;
      return { value: undefined, next: { ...record, reserved } };
    });
  }
}

/** What a settled call used. */
export interface CallSpend {
  tokensIn: number;
  tokensOut: number;
  costMicroUsd: number;
}

/** Replace a call's reservation by what it used. A reservation that already expired was charged at its worst case: nothing more is added. */
export async function settleSpend(store: ArtifactStore, accounts: readonly SpendAccount[], id: string, used: CallSpend): Promise<void> {
  for (const account of accounts) {
    await swap(store, account.key, (record) => {
      if (!Object.hasOwn(record.reserved, id)) return { value: undefined };
      const { [id]: _settled, ...reserved } = record.reserved;
      const next: SpendRecord = {
        ...record,
        calls: record.calls + 1,
        tokensIn: record.tokensIn + used.tokensIn,
        tokensOut: record.tokensOut + used.tokensOut,
        costMicroUsd: record.costMicroUsd + used.costMicroUsd,
        reserved,
      };
      return { value: undefined, next };
    });
  }
}

/** `yyyy-mm` of a time, UTC: the month a monthly record covers. */
export function spendMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}
