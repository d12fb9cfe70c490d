import { describe, expect, it } from 'vitest';
import { changedPaths, compareCase } from '../../../eval/compare.js';
import { totalsOf, caseFailures } from '../../../eval/report.js';
import type { CaseResult } from '../../../eval/run-case.js';

const tree = (files: Record<string, string>) => new Map(Object.entries(files).map(([p, t]) => [p, Buffer.from(t)]));

const before = tree({ 'go.mod': 'require x v1\n', 'go.sum': 'x v1 h1:a\n', 'a.go': 'package a\n', 'b.go': 'package b\n', 'old.go': 'package old\n' });
const after = tree({ 'go.mod': 'require x v2\n', 'go.sum': 'x v2 h1:b\n', 'a.go': 'package a // v2\n', 'b.go': 'package b\n' });

describe('eval: comparing a published change with the human commit', () => {
  it('changed paths: edited and deleted files, not identical ones', () => {
    expect(changedPaths(before, after)).toEqual(['a.go', 'go.mod', 'go.sum', 'old.go']);
  });

  it('lockfiles count for precision but never for recall', () => {
    const ours = new Map([
      ['go.mod', Buffer.from('require x v2\n')],
      ['a.go', Buffer.from('package a // v2\n')],
      ['old.go', undefined],
    ]);
    const c = compareCase(before, after, ['a.go', 'go.mod', 'old.go'], ours);
    expect(c.recall).toEqual({ hit: 3, of: 3 });
    expect(c.precision).toEqual({ hit: 3, of: 3 });
    expect(c.missed).toEqual([]);
    expect(c.identical).toEqual(['a.go', 'go.mod', 'old.go']);
  });

  it('a missed file, a wrong extra file and a file that differs are each named', () => {
    const ours = new Map([
      ['go.mod', Buffer.from('require x  v2\n')],
      ['b.go', Buffer.from('package b2\n')],
    ]);
    const c = compareCase(before, after, ['b.go', 'go.mod'], ours);
    expect(c.recall).toEqual({ hit: 1, of: 3 });
    expect(c.precision).toEqual({ hit: 1, of: 2 });
    expect(c.missed).toEqual(['a.go', 'old.go']);
    expect(c.wrongExtra).toEqual(['b.go']);
    expect(c.identical).toEqual([]);
    expect(c.different.map((d) => d.path)).toEqual(['go.mod']);
    expect(c.different[0].diff).toContain('-require x  v2');
    expect(c.different[0].diff).toContain('+require x v2');
  });

  it('totals add up over cases, and an unpublished case is a failure with its reason', () => {
    const ours = new Map([['go.mod', Buffer.from('require x v2\n')]]);
    const published: CaseResult = {
      id: 'a',
      published: true,
      status: 'COMPLETED',
      comparison: compareCase(before, after, ['go.mod'], ours),
      refreshMissing: [],
      elapsedMs: 0,
    };
    const refused: CaseResult = { id: 'b', published: false, status: 'FAILED', reason: 'NO_CHANGES', refreshMissing: [], elapsedMs: 0 };
    expect(totalsOf([published, refused])).toEqual({
      cases: 2,
      published: 1,
      recall: { hit: 1, of: 3 },
      precision: { hit: 1, of: 1 },
      identical: { hit: 1, of: 1 },
      wrongExtra: 0,
      names: { unresolved: 0, unusedImports: 0 },
    });
    expect(caseFailures(refused)).toEqual(['not published: FAILED NO_CHANGES']);
    expect(caseFailures(published)).toEqual(['missed a.go, old.go']);
  });
});
