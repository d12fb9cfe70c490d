import { statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../eval/corpus-case.js';
import { caseFailures, totalsOf } from '../../../eval/report.js';
import type { CaseResult } from '../../../eval/run-case.js';
import { DEFAULT_CORPUS, runCorpus } from '../../../eval/run.js';

/**
 * The real-commit corpus, reproduced with `draftsman run --publish` (the deterministic part of
 * `npm run eval`): every case published, every non-lockfile file the maintainer changed changed,
 * nothing else changed, and at least 90% of the shared files byte-identical.
 */
const cases = loadCorpus(DEFAULT_CORPUS);
let results: CaseResult[] = [];

beforeAll(async () => {
  results = (await runCorpus(DEFAULT_CORPUS, [], { jobs: 2 })).results;
}, 900_000);

const failing = (pick: (r: CaseResult) => boolean) =>
  results
    .filter(pick)
    .map((r) => `${r.id}: ${caseFailures(r).join('; ')}`)
    .join('\n');

describe('the corpus itself', () => {
  it('has at least 24 cases across Java, Kotlin, Go, TypeScript and Python and all four recipes, each stored small', () => {
    expect(cases.length).toBeGreaterThanOrEqual(24);
    expect(new Set(cases.map((c) => c.manifest.language))).toEqual(new Set(['java', 'kotlin', 'go', 'typescript', 'python']));
    expect(new Set(cases.flatMap((c) => c.manifest.recipes))).toEqual(new Set(['replace', 'migrate-import', 'bump-dependency', 'rename-symbol']));
    for (const c of cases) {
      const bytes = [...c.before.values(), ...c.after.values()].reduce((n, b) => n + b.length, 0) + statSync(join(c.dir, 'case.yaml')).size;
      expect(bytes, c.manifest.id).toBeLessThan(200 * 1024);
    }
  });
});

describe('draftsman reproduces the corpus', () => {
  it('publishes every case', () => {
    expect(
      failing((r) => !r.published),
      'cases not published',
    ).toBe('');
  });

  it('changes every non-lockfile file the maintainer changed', () => {
    expect(
      failing((r) => (r.comparison?.missed.length ?? 0) > 0),
      'cases with missed files',
    ).toBe('');
  });

  it('changes no file the maintainer left alone', () => {
    expect(
      failing((r) => (r.comparison?.wrongExtra.length ?? 0) > 0),
      'cases with wrong extra files',
    ).toBe('');
  });

  it('makes at least 90% of the shared files byte-identical to the maintainer’s', () => {
    const { identical } = totalsOf(results);
    const ratio = identical.of === 0 ? 0 : identical.hit / identical.of;
    expect(
      ratio,
      `byte-identical ${identical.hit}/${identical.of}; differing:\n${failing((r) => (r.comparison?.different.length ?? 0) > 0)}`,
    ).toBeGreaterThanOrEqual(0.9);
  });

  it('publishes no change that leaves a name unresolved or (Go) an import unused', () => {
    expect(
      failing((r) => (r.names?.problems.length ?? 0) > 0),
      'cases whose published files broke a name',
    ).toBe('');
    expect(results.filter((r) => r.published).every((r) => r.names !== undefined)).toBe(true);
  });

  it('names the right lockfile refresh command', () => {
    expect(
      failing((r) => r.refreshMissing.length > 0),
      'cases without the expected refresh command',
    ).toBe('');
  });
});
