import { describe, expect, it } from 'vitest';
import type { ScoredFile } from '../../../src/core/targets/rank-targets.js';
import { capWeakEvidence, MAX_REFERENCES_WITH_STRONG, MAX_RELATED, MAX_RELATED_TESTS, MAX_TERM_TESTS } from '../../../src/core/targets/select-targets.js';
import type { TargetWarning } from '../../../src/core/targets/target-selection-schema.js';

const file = (path: string, rank: number, tier: ScoredFile['tier'], coverage: number, relation?: number): ScoredFile => ({
  file: { path, rank, classification: path.includes('test') ? 'test' : 'source', allowedToEdit: true, reasons: [`found ${path}`], evidence: [] },
  score: rank,
  tier,
  coverage,
  relation,
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
      reason: `left out by the cap on files that import a better-ranked file (${MAX_RELATED} kept, ranked above it); found because: found src/importer7.ts`,
      rank: 0.4,
    });
    expect(warnings.map((w) => w.code)).toEqual(['SELECTION_CAPPED']);
  });

  it('keeps the tests named after a file before tests that only mention it, apart from the importers', () => {
    const sorted = [
      file('src/strong.ts', 1, 'strong', 2),
      ...Array.from({ length: MAX_RELATED_TESTS }, (_, i) => file(`test/mentions${i}.test.ts`, 0.5, 'related', 1, 0.5)),
      ...Array.from({ length: MAX_RELATED }, (_, i) => file(`src/importer${i}.ts`, 0.45, 'related', 3, 0.2)),
      file('test/strong.test.ts', 0.3, 'related', 1, 0.9),
    ];
    const excluded = new Map<string, { reason: string; rank?: number }>();
    const kept = capWeakEvidence(sorted, [], excluded).map((s) => s.file.path);
    // The counterpart by name is kept although it ranks lower; importers have their own cap.
    expect(kept).toContain('test/strong.test.ts');
    expect(kept.filter((p) => p.startsWith('src/importer'))).toHaveLength(MAX_RELATED);
    expect([...excluded.keys()]).toEqual([`test/mentions${MAX_RELATED_TESTS - 1}.test.ts`]);
    expect(excluded.get(`test/mentions${MAX_RELATED_TESTS - 1}.test.ts`)?.reason).toMatch(/^left out by the cap on files that test a better-ranked file/);
  });

  it("caps tests and sources found by the same evidence apart: tests holding a snippet's boilerplate never take a source's place", () => {
    const sorted = [
      file('src/strong.ts', 1, 'strong', 2),
      ...Array.from({ length: MAX_REFERENCES_WITH_STRONG + 1 }, (_, i) => file(`test/uses${i}.test.ts`, 0.4, 'reference', 6)),
      file('src/values.ts', 0.2, 'reference', 2),
    ];
    const excluded = new Map<string, { reason: string; rank?: number }>();
    const kept = capWeakEvidence(sorted, [], excluded).map((s) => s.file.path);
    expect(kept).toContain('src/values.ts');
    // Tests get half the kind's places, and the places of tests holding several terms.
    expect(kept.filter((p) => p.startsWith('test/'))).toHaveLength(Math.ceil(MAX_REFERENCES_WITH_STRONG / 2) + MAX_TERM_TESTS);
  });

  it('a test holding several terms of the task, capped with its kind, is kept in places of its own, the most terms first', () => {
    const sorted = [
      file('src/strong.ts', 1, 'strong', 2),
      ...Array.from({ length: MAX_RELATED_TESTS }, (_, i) => file(`test/named${i}.test.ts`, 0.5, 'related', 0, 0.9)),
      file('test/two-terms.test.ts', 0.2, 'related', 2, 0.3),
      file('test/three-terms.test.ts', 0.1, 'related', 3, 0.3),
      file('test/one-term.test.ts', 0.3, 'related', 1, 0.3),
      file('test/two-more.test.ts', 0.15, 'related', 2, 0.3),
    ];
    const excluded = new Map<string, { reason: string; rank?: number }>();
    const kept = capWeakEvidence(sorted, [], excluded).map((s) => s.file.path);
    expect(MAX_TERM_TESTS).toBe(2);
    expect(kept).toEqual([
      'src/strong.ts',
      ...Array.from({ length: MAX_RELATED_TESTS }, (_, i) => `test/named${i}.test.ts`),
      'test/two-terms.test.ts',
      'test/three-terms.test.ts',
    ]);
    expect([...excluded.keys()].sort()).toEqual(['test/one-term.test.ts', 'test/two-more.test.ts']);
  });
});
