import { describe, expect, it } from 'vitest';
import type { ScoredFile } from '../../../src/core/targets/rank-targets.js';
import { capWeakEvidence, MAX_RELATED } from '../../../src/core/targets/select-targets.js';
import type { TargetWarning } from '../../../src/core/targets/target-selection-schema.js';

const file = (path: string, rank: number, tier: ScoredFile['tier'], coverage: number): ScoredFile => ({
  file: { path, rank, classification: 'source', allowedToEdit: true, reasons: [`found ${path}`], evidence: [] },
  score: rank,
  tier,
  coverage,
});

describe('the cap on weak evidence', () => {
  it('keeps the files holding the most distinct terms of the task, and the kept files stay in rank order', () => {
    const sorted = [
      file('src/strong.ts', 1, 'strong', 2),
      ...Array.from({ length: MAX_RELATED + 2 }, (_, i) => file(`src/importer${i}.ts`, 0.4, 'related', 1)),
      file('src/transport.ts', 0.35, 'related', 3),
    ];
    const warnings: TargetWarning[] = [];
    const excluded = new Map<string, { reason: string; rank?: number }>();
    const kept = capWeakEvidence(sorted, warnings, excluded).map((s) => s.file.path);
    expect(kept).toHaveLength(1 + MAX_RELATED);
    expect(kept[0]).toBe('src/strong.ts');
    // Below the better-ranked importers it was found after, but kept for the terms it holds.
    expect(kept[kept.length - 1]).toBe('src/transport.ts');
    expect(kept.slice(1, -1)).toEqual(Array.from({ length: MAX_RELATED - 1 }, (_, i) => `src/importer${i}.ts`));
    expect([...excluded.keys()]).toEqual(['src/importer5.ts', 'src/importer6.ts', 'src/importer7.ts']);
    expect(excluded.get('src/importer7.ts')).toEqual({
      reason: `left out by the cap on files that a test or importer of a better-ranked file (${MAX_RELATED} kept, ranked above it); found because: found src/importer7.ts`,
      rank: 0.4,
    });
    expect(warnings.map((w) => w.code)).toEqual(['SELECTION_CAPPED']);
  });
});
