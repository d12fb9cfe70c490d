import { describe, expect, it } from 'vitest';
import { recipeCandidates } from '../../../src/core/engines/recipe/recipe-candidates.js';
import { summarizeDiff } from '../../../src/core/git/git-diff.js';
import { detectCheats } from '../../../src/core/phases/anti-cheat.js';
import { evaluateScope } from '../../../src/core/phases/scope-guard.js';
import { defaultPathRules, type PathRules } from '../../../src/core/paths/path-rules.js';
import { scopePathRules, writeDenial } from '../../../src/core/paths/write-rules.js';
import { changeRisk } from '../../../src/core/risk/change-risk.js';
import { fileRisk } from '../../../src/core/risk/risk-score.js';
import { scanLines } from '../../../src/core/secrets/secret-scan.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

/**
 * One answer to "what kind of file is this": every consumer of a file kind (the secret scan,
 * the risk score, the change risk, the diff summary, the scope guard and write rules, anti-cheat,
 * the recipes) must answer as the run's PathRules do, under the default policy and under a
 * policy with its own lockfiles, forbidden paths and risk rule.
 */

type Kind = 'test' | 'doc' | 'lockfile' | 'generated' | 'forbidden' | 'source' | 'config' | 'ciExecuted';

/** A policy unlike the defaults: `deps.lock` is its only lockfile (so `yarn.lock` is not one). */
const custom = pathRulesFor({
  lockfiles: ['**/deps.lock'],
  forbidden: ['secrets/**', 'src/legacy/**'],
  risk: [{ glob: 'billing/**', level: 'HIGH', reason: 'money moves here' }],
});
const POLICIES: [string, PathRules][] = [
  ['the default policy', defaultPathRules()],
  ['a policy with its own lockfiles, forbidden paths and risk rule', custom],
];

/** Each path with its kinds under the default policy, and what the custom policy changes. */
const TABLE: { path: string; kinds: Kind[]; custom?: Kind[] }[] = [
  { path: 'src/testing/helpers.py', kinds: ['test', 'source'] },
  { path: 'pkg/testdata/x.go', kinds: ['test', 'source'] },
  { path: 'src/it/java/FooIT.java', kinds: ['test', 'source'] },
  { path: 'src/app.test.ts', kinds: ['test', 'source'] },
  { path: 'svc/FooTests.cs', kinds: ['test', 'source'] },
  { path: 'test/fixtures/data.json', kinds: ['test', 'config'] },
  { path: 'deps.lock', kinds: [], custom: ['lockfile'] },
  { path: 'yarn.lock', kinds: ['lockfile'], custom: [] },
  { path: 'web/package-lock.json', kinds: ['lockfile', 'config'], custom: ['config'] },
  { path: 'node_modules/x/yarn.lock', kinds: ['lockfile'], custom: [] },
  { path: 'docs/guide.md', kinds: ['doc'] },
  { path: 'README.md', kinds: ['doc'] },
  { path: 'docs/openapi.yaml', kinds: ['doc', 'config'] },
  { path: 'src/generated/Api.java', kinds: ['generated', 'source'] },
  { path: 'api/items.pb.go', kinds: ['generated', 'source'] },
  { path: 'src/main/java/App.java', kinds: ['source'] },
  { path: 'scripts/build.sh', kinds: ['source'] },
  { path: 'billing/Invoice.java', kinds: ['source'] },
  { path: 'config/app.yml', kinds: ['config'] },
  { path: '.env.local', kinds: ['config'] },
  { path: 'secrets/prod.yml', kinds: ['config'], custom: ['config', 'forbidden'] },
  { path: 'src/legacy/Old.java', kinds: ['source'], custom: ['source', 'forbidden'] },
  // A custom forbidden path matches whatever the case, as the built-in ones do.
  { path: 'Secrets/prod.yml', kinds: ['config'], custom: ['config', 'forbidden'] },
  { path: 'SRC/Legacy/Old.java', kinds: ['source'], custom: ['source', 'forbidden'] },
  { path: '.github/workflows/ci.yml', kinds: ['config', 'forbidden', 'ciExecuted'] },
  // Files CI runs when it builds a pushed branch.
  { path: '.github/actions/setup/action.yml', kinds: ['config', 'ciExecuted'] },
  { path: 'gradle/wrapper/gradle-wrapper.properties', kinds: ['config', 'ciExecuted'] },
  { path: 'svc/Makefile', kinds: ['config', 'ciExecuted'] },
  { path: 'tests/conftest.py', kinds: ['test', 'source', 'ciExecuted'] },
  { path: '.pre-commit-config.yaml', kinds: ['config', 'ciExecuted'] },
  { path: '.mvn/wrapper/maven-wrapper.properties', kinds: ['config', 'ciExecuted'] },
];

const ASKED: Record<Kind, (rules: PathRules, path: string) => boolean> = {
  test: (r, p) => r.isTest(p),
  doc: (r, p) => r.isDoc(p),
  lockfile: (r, p) => r.isLockfile(p),
  generated: (r, p) => r.isGenerated(p),
  forbidden: (r, p) => r.isForbidden(p),
  source: (r, p) => r.isSource(p),
  config: (r, p) => r.isConfig(p),
  ciExecuted: (r, p) => r.isCiExecuted(p),
};

const cases = POLICIES.flatMap(([policy, rules]) =>
  TABLE.map((row) => ({ policy, rules, path: row.path, kinds: new Set(rules === custom ? (row.custom ?? row.kinds) : row.kinds) })),
);

/** Lines whose findings depend on the file kind alone (see `findInLine`). */
const PROBES = {
  /** Found anywhere but in lockfiles and documentation, where only credential formats count. */
  random: 'password = "aB3xQ9zLm2Kp7RtY8wVn"',
  /** A fixed value: not a secret in tests. */
  fixed: 'password = "s3cretValue9"',
  /** A bare word: a secret in configuration only. */
  bare: 'password: DatabasePasswordValue',
};
const found = (path: string, line: string, rules: PathRules) => scanLines(path, [{ line: 1, text: line }], rules).length > 0;

const patch = (path: string, body: string) => `diff --git a/${path} b/${path}\n${body}`;
const deletion = (path: string) => patch(path, `deleted file mode 100644\n--- a/${path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`);
const skipAdded = (path: string) => patch(path, `--- a/${path}\n+++ b/${path}\n@@ -1 +1,2 @@\n a\n+it.skip('x', () => {});\n`);

describe('every consumer of a file kind answers as the path rules do', () => {
  it.each(cases)('$policy: $path is what the table says', ({ rules, path, kinds }) => {
    for (const kind of Object.keys(ASKED) as Kind[]) expect([kind, ASKED[kind](rules, path)]).toEqual([kind, kinds.has(kind)]);
  });

  it.each(cases)('$policy: the secret scan weighs $path by its kind', ({ rules, path }) => {
    const quiet = rules.isLockfile(path) || rules.isDoc(path);
    const test = rules.isTest(path);
    expect({
      random: found(path, PROBES.random, rules),
      fixed: found(path, PROBES.fixed, rules),
      bare: found(path, PROBES.bare, rules),
    }).toEqual({ random: !quiet, fixed: !quiet && !test, bare: !quiet && !test && rules.isConfig(path) });
  });

  it.each(cases)('$policy: the risk score, the change risk and the diff summary agree on $path', ({ rules, path }) => {
    const production = rules.isSource(path) && !rules.isTest(path);
    const file = { path, kind: 'MODIFIED' };
    const scored = fileRisk(file, rules).reasons;
    expect({ lockfile: scored.includes('lockfile'), denied: scored.includes('denied path'), production: scored.includes('production source file') }).toEqual({
      lockfile: rules.isLockfile(path),
      denied: rules.isForbidden(path),
      production,
    });

    const change = changeRisk([file], rules, { origin: { engine: 'model' }, minRisk: 'HIGH' });
    const has = (start: string) => change.reasons.some((r) => r.startsWith(start));
    expect({ lockfile: has('lockfile (1)'), denied: has('denied path (1)'), production: has('1 production file') }).toEqual({
      lockfile: rules.isLockfile(path),
      denied: rules.isForbidden(path),
      production,
    });

    const summary = summarizeDiff(
      [{ path, kind: 'MODIFIED', binary: false, insertions: 1, deletions: 0, text: skipAdded(path) }],
      'a'.repeat(40),
      'b'.repeat(40),
      { rules },
    );
    const row = summary.summary.files[0];
    const reasons = row.reason.split(', ');
    expect({
      lockfile: reasons.includes('lockfile'),
      denied: reasons.includes('denied path'),
      production: reasons.includes('production source file'),
      generated: row.generated,
    }).toEqual({
      lockfile: rules.isLockfile(path),
      denied: rules.isForbidden(path),
      production,
      generated: rules.isGenerated(path),
    });
    // A forbidden path, a file CI executes or a HIGH policy risk rule is HIGH in both, never LOW in the summary and HIGH in the change.
    const high = rules.isForbidden(path) || rules.isCiExecuted(path) || rules.riskFor(path)?.level === 'HIGH';
    expect([row.risk === 'HIGH', change.riskLevel === 'HIGH']).toEqual([high, high]);
  });

  it.each(cases)('$policy: the scope guard, the write rules and the recipes refuse $path alike', ({ rules, path }) => {
    const scoped = scopePathRules(rules);
    const expected = rules.isWorkflow(path)
      ? 'WORKFLOW_CHANGE_NOT_PERMITTED'
      : rules.isForbidden(path)
        ? 'FORBIDDEN_PATH'
        : rules.isLockfile(path)
          ? 'LOCKFILE_NOT_ALLOWED'
          : rules.isGenerated(path)
            ? 'GENERATED_NOT_ALLOWED'
            : undefined;
    const guard = evaluateScope({
      changes: [{ path, kind: 'MODIFIED', insertions: 1, deletions: 0, contentId: 'blob' }],
      rules: scoped,
      limits: { maxFiles: 10, maxLines: 100 },
    });
    expect(guard.status === 'BLOCKED' ? guard.violations[0].rule : undefined).toBe(expected);
    expect(writeDenial(path, scoped)?.reason).toBe(expected);
    const step = RecipeStep.parse({ recipe: 'replace', find: 'a', replace: 'b' });
    expect(recipeCandidates(step, [path], rules.isLockfile)).toEqual(rules.isLockfile(path) ? [] : [path]);
  });

  it.each(cases)('$policy: anti-cheat tells a test or a document $path by the path rules', ({ rules, path }) => {
    const deleted = detectCheats(deletion(path), rules).findings.map((f) => f.rule);
    expect(deleted.includes('test-file-deleted')).toBe(rules.isTest(path));
    const skipped = detectCheats(skipAdded(path), rules).findings.map((f) => f.rule);
    expect(skipped.includes('test-disabled')).toBe(!rules.isDoc(path));
  });
});
