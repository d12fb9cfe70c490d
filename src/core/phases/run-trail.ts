import { z } from 'zod';
import { formatUsd } from '../budget/cost.js';
import type { ArtifactStore } from '../ports.js';
import { LedgerEntry } from './ledger.js';

/** One settled model call as the model caller recorded it in the attempt's trail. */
export const TrailSpend = z.object({
  at: z.string(),
  model: z.string(),
  reservedMicroUsd: z.number().int().nonnegative(),
  tokensIn: z.number().int().nonnegative(),
  tokensOut: z.number().int().nonnegative(),
  costMicroUsd: z.number().int().nonnegative(),
});
export type TrailSpend = z.infer<typeof TrailSpend>;

/** One attempt's trail: its ledger in sequence order, and its settled model calls in time order. */
export interface AttemptTrail {
  attempt: number;
  prefix: string;
  ledger: LedgerEntry[];
  spend: TrailSpend[];
  /** Keys under the trail that do not parse as what their place says (shown, never hidden). */
  unreadable: string[];
}

/**
 * The trails of a run's attempts (`trail/<owner>/<repo>/<runId>/<n>/`, docs/architecture.md),
 * found by the run id alone or within one repository (`owner/repo`).
 */
export async function readRunTrail(store: ArtifactStore, runId: string, repository?: string): Promise<AttemptTrail[]> {
  const keys = await store.list(repository ? `trail/${repository}/${runId}/` : 'trail/');
  const byAttempt = new Map<string, AttemptTrail>();
  for (const key of keys) {
    const match = /^(trail\/[^/]+\/[^/]+\/([^/]+)\/(\d+)\/)(ledger|spend)\/[^/]+\.json$/.exec(key);
    if (!match || match[2] !== runId) continue;
    const [, prefix, , n, kind] = match;
    const trail = byAttempt.get(prefix) ?? { attempt: Number(n), prefix, ledger: [], spend: [], unreadable: [] };
    byAttempt.set(prefix, trail);
    const object = await store.get(key);
    const parsed = object ? (kind === 'ledger' ? LedgerEntry : TrailSpend).safeParse(parseJson(object.body)) : undefined;
    if (!parsed?.success) trail.unreadable.push(key);
    else if (kind === 'ledger') trail.ledger.push(parsed.data as LedgerEntry);
    else trail.spend.push(parsed.data as TrailSpend);
  }
  const trails = [...byAttempt.values()].sort((a, b) => (a.prefix === b.prefix ? 0 : a.attempt - b.attempt || (a.prefix < b.prefix ? -1 : 1)));
  for (const t of trails) {
    t.ledger.sort((a, b) => a.seq - b.seq);
    t.spend.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }
  return trails;
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

/** The trails as text: per attempt its prefix, every ledger event on one line, every model call, and the attempt's spend. */
export function renderRunTrail(runId: string, trails: readonly AttemptTrail[]): string {
  if (trails.length === 0) return `no trail for run ${runId}`;
  const lines: string[] = [];
  for (const t of trails) {
    const cost = t.spend.reduce((sum, s) => sum + s.costMicroUsd, 0);
    lines.push(`attempt ${t.attempt}  ${t.prefix}  ${t.ledger.length} events, ${t.spend.length} model calls, ${formatUsd(cost)}`);
    for (const e of t.ledger) lines.push(`  ${String(e.seq).padStart(4)}  ${e.at}  ${e.actor}${e.phase ? `/${e.phase}` : ''}  ${e.type}`);
    for (const s of t.spend) {
      lines.push(
        `  call  ${s.at}  ${s.model}  ${s.tokensIn} in / ${s.tokensOut} out  ${formatUsd(s.costMicroUsd)} (reserved ${formatUsd(s.reservedMicroUsd)})`,
      );
    }
    for (const key of t.unreadable) lines.push(`  unreadable: ${key}`);
  }
  return lines.join('\n');
}
