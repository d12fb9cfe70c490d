import { z } from 'zod';
import type { ArtifactStore, Clock } from '../ports.js';
import { PHASE_NAMES } from './phase-contracts.js';

export const LedgerEntry = z.object({
  schemaVersion: z.literal(1),
  seq: z.number().int().nonnegative(),
  at: z.string(),
  actor: z.string().min(1),
  phase: z.enum(PHASE_NAMES).optional(),
  type: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  evidenceRefs: z.array(z.string()).default([]),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;
export type LedgerInput = Omit<LedgerEntry, 'schemaVersion' | 'seq' | 'at' | 'evidenceRefs'> & { evidenceRefs?: string[] };

/** Zero-padded so that lexical key order is numeric order. */
export function seqLabel(seq: number): string {
  return String(seq).padStart(6, '0');
}

/**
 * The append-only ledger of one attempt: one object per entry (`ledger/<seq>.json`), written
 * with `putIfAbsent` so nothing is ever overwritten. A sequence number is taken only by a
 * successful write, so a failed one leaves no gap. A resumed attempt continues the sequence.
 */
export class Ledger {
  private nextSeq = 0;
  private readonly cache: LedgerEntry[] = [];

  private constructor(
    private readonly store: ArtifactStore,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  /** Open the ledger under `prefix` (ending in `ledger/`), loading what an earlier worker wrote. */
  static async open(store: ArtifactStore, prefix: string, clock: Clock): Promise<Ledger> {
    const ledger = new Ledger(store, prefix, clock);
    for (const key of await store.list(prefix)) {
      const object = await store.get(key);
      if (!object) continue;
      const entry = LedgerEntry.parse(JSON.parse(new TextDecoder().decode(object.body)));
      ledger.cache.push(entry);
      ledger.nextSeq = Math.max(ledger.nextSeq, entry.seq + 1);
    }
    ledger.cache.sort((a, b) => a.seq - b.seq);
    return ledger;
  }

  entries(): readonly LedgerEntry[] {
    return this.cache;
  }

  async append(input: LedgerInput): Promise<LedgerEntry> {
    for (;;) {
      // Validate before taking the number, so a refused entry leaves no gap in the sequence.
      const entry = LedgerEntry.parse({
        schemaVersion: 1,
        seq: this.nextSeq,
        at: new Date(this.clock.now()).toISOString(),
        evidenceRefs: [],
        ...input,
      });
      // The number is taken by the conditional write: a write that throws leaves it for the next
      // append (no gap); one another writer holds already is passed over.
      const written = await this.store.putIfAbsent(`${this.prefix}${seqLabel(entry.seq)}.json`, `${JSON.stringify(entry, null, 2)}\n`);
      this.nextSeq = entry.seq + 1;
      if (written) {
        this.cache.push(entry);
        return entry;
      }
    }
  }
}
