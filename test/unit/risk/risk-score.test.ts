import { describe, expect, it } from 'vitest';
import { gateFor, needsApproval, scoreRisk, type ChangeOrigin, type RiskFile } from '../../../src/core/risk/risk-score.js';
import { compilePathRules, defaultPathRules } from '../../../src/core/paths/path-rules.js';
import { AgentPolicy } from '../../../src/core/policy/agent-policy.js';
import { changeRisk } from '../../../src/core/risk/change-risk.js';

const modified = (path: string): RiskFile => ({ path, kind: 'MODIFIED' });
const javaFiles = (n: number) => Array.from({ length: n }, (_, i) => modified(`orders/src/main/java/com/acme/orders/Entity${String(i).padStart(2, '0')}.java`));
const imports: ChangeOrigin = { engine: 'recipe', recipes: ['migrate-import'] };
const model: ChangeOrigin = { engine: 'model' };

describe('change risk score', () => {
  it('a mechanical import change of 14 production files is LOW, explained by group, not file by file', () => {
    const report = scoreRisk({ files: javaFiles(14), origin: imports, rules: defaultPathRules() });
    expect(report).toEqual({ riskScore: 3, riskLevel: 'LOW', reasons: ['14 production files, mechanical import change (+3)'], requiredGate: 'NONE' });
  });

  it('the production-file count raises a change by one level at most: the model at MEDIUM, a recipe within LOW', () => {
    for (const n of [5, 14, 200])
      expect(scoreRisk({ files: javaFiles(n), origin: model, rules: defaultPathRules() })).toMatchObject({
        riskScore: 5,
        riskLevel: 'MEDIUM',
        requiredGate: 'HUMAN_REVIEW',
      });
    expect(scoreRisk({ files: javaFiles(4), origin: model, rules: defaultPathRules() })).toMatchObject({ riskScore: 4, riskLevel: 'LOW' });
    expect(scoreRisk({ files: javaFiles(200), origin: imports, rules: defaultPathRules() })).toMatchObject({ riskScore: 3, riskLevel: 'LOW' });
    expect(scoreRisk({ files: javaFiles(200), origin: model, rules: defaultPathRules() }).reasons).toEqual(['200 production files edited by the model (+5)']);
  });

  it('a model edit weighs more than the same recipe edit', () => {
    const files = [...javaFiles(6), modified('pom.xml')];
    expect(scoreRisk({ files, origin: model, rules: defaultPathRules() })).toMatchObject({ riskScore: 8, riskLevel: 'MEDIUM' });
    expect(scoreRisk({ files, origin: { engine: 'recipe', recipes: ['bump-dependency', 'migrate-import'] }, rules: defaultPathRules() })).toMatchObject({
      riskScore: 5,
      reasons: ['dependency manifest (1): pom.xml (+3)', '6 production files, dependency version bump and mechanical import change (+2)'],
    });
  });

  it('each signal counts once per change, its files named (the first three)', () => {
    const poms = ['pom.xml', 'api/pom.xml', 'web/pom.xml', 'batch/pom.xml'].map(modified);
    expect(scoreRisk({ files: poms, origin: { engine: 'recipe', recipes: ['bump-dependency'] }, rules: defaultPathRules() })).toEqual({
      riskScore: 3,
      riskLevel: 'LOW',
      reasons: ['dependency manifest (4): pom.xml, api/pom.xml, web/pom.xml and 1 more (+3)'],
      requiredGate: 'NONE',
    });
  });

  it.each([
    {
      name: 'deletion, lockfile and manifest',
      files: [{ path: 'src/a.ts', kind: 'DELETED' }, modified('package-lock.json'), modified('package.json')],
      extra: {},
      score: 12,
      level: 'HIGH',
    },
    { name: 'auth path', files: [modified('src/auth/Filter.java')], extra: {}, score: 3, level: 'LOW' },
    { name: 'auth path and manifest', files: [modified('pom.xml'), modified('src/auth/Filter.java')], extra: {}, score: 6, level: 'MEDIUM' },
    {
      // CI configuration is a file CI executes: HIGH on its own.
      name: 'a CI file and a migration',
      files: [modified('.gitlab-ci.yml'), { path: 'db/migrations/001.sql', kind: 'ADDED' }],
      extra: {},
      score: 15,
      level: 'HIGH',
    },
    { name: 'a workflow (CI, executed by CI, and denied)', files: [modified('.github/workflows/ci.yml')], extra: {}, score: 23, level: 'HIGH' },
    { name: 'a build wrapper CI executes', files: [modified('gradle/wrapper/gradle-wrapper.properties')], extra: {}, score: 10, level: 'HIGH' },
    {
      name: 'a test bootstrap CI executes, edited by a free-text recipe',
      files: [modified('tests/conftest.py')],
      extra: { origin: { engine: 'recipe' as const, recipes: ['replace'] } },
      score: 10,
      level: 'HIGH',
    },
    {
      // rename-symbol writes validated identifiers only: it cannot put a command there.
      name: 'a test bootstrap CI executes, edited by rename-symbol alone',
      files: [modified('tests/conftest.py'), modified('src/app.py')],
      extra: { origin: { engine: 'recipe' as const, recipes: ['rename-symbol'] } },
      score: 1,
      level: 'LOW',
    },
    { name: 'infrastructure', files: [modified('infra/main.tf')], extra: {}, score: 3, level: 'LOW' },
    { name: 'a secret finding', files: [modified('test/a.test.ts')], extra: { secretFindings: 1 }, score: 8, level: 'MEDIUM' },
    { name: 'a denied path given by the caller', files: [modified('docs/x.md')], extra: { deniedPaths: ['infra/x.tf'] }, score: 10, level: 'HIGH' },
    { name: 'a public API change', files: [modified('src/Api.java')], extra: { publicApiChanged: ['src/Api.java'] }, score: 6, level: 'MEDIUM' },
  ])('$name -> $score $level', ({ files, extra, score, level }) => {
    const report = scoreRisk({ files, origin: model, ...extra, rules: defaultPathRules() });
    expect(report).toMatchObject({ riskScore: score, riskLevel: level });
    expect(report.reasons.every((r) => /\(\+\d+\)$/.test(r))).toBe(true);
  });

  it('a change without risk signal says so', () => {
    expect(scoreRisk({ files: [modified('README.md'), modified('test/a.test.ts')], rules: defaultPathRules() }).reasons).toEqual([
      '2 files with no risk signal (tests, documentation, configuration)',
    ]);
  });
});

describe('approval threshold (agent.approval.minRisk)', () => {
  it.each([
    ['HIGH', 'LOW', false, 'NONE'],
    ['HIGH', 'MEDIUM', false, 'HUMAN_REVIEW'],
    ['HIGH', 'HIGH', true, 'HUMAN_APPROVAL_BEFORE_PR'],
    ['MEDIUM', 'LOW', false, 'NONE'],
    ['MEDIUM', 'MEDIUM', true, 'HUMAN_APPROVAL_BEFORE_PR'],
    ['MEDIUM', 'HIGH', true, 'HUMAN_APPROVAL_BEFORE_PR'],
    ['never', 'MEDIUM', false, 'HUMAN_REVIEW'],
    ['never', 'HIGH', false, 'HUMAN_REVIEW'],
  ] as const)('minRisk %s, level %s: approval %s, gate %s', (minRisk, level, approval, gate) => {
    expect(needsApproval(level, minRisk)).toBe(approval);
    expect(gateFor(level, minRisk)).toBe(gate);
  });

  it('the policy risk rules raise the level, grouped per rule, and the gate follows the threshold', () => {
    const policy = AgentPolicy.parse({
      version: 1,
      agent: { riskRules: [{ glob: 'orders/**', level: 'MEDIUM', reason: 'order core' }], approval: { minRisk: 'MEDIUM' } },
    });
    const report = changeRisk(javaFiles(4), compilePathRules(policy), { origin: imports, minRisk: policy.agent.approval.minRisk });
    expect(report).toMatchObject({ riskScore: 1, riskLevel: 'MEDIUM', requiredGate: 'HUMAN_APPROVAL_BEFORE_PR' });
    expect(report.reasons).toEqual([
      '4 production files, mechanical import change (+1)',
      'policy risk rule, MEDIUM: order core (4): orders/src/main/java/com/acme/orders/Entity00.java, orders/src/main/java/com/acme/orders/Entity01.java, orders/src/main/java/com/acme/orders/Entity02.java and 1 more',
    ]);
    expect(changeRisk(javaFiles(4), compilePathRules(policy), { origin: imports, minRisk: 'HIGH' }).requiredGate).toBe('HUMAN_REVIEW');
  });
});

describe('dependency updates in the change risk', () => {
  const bump: ChangeOrigin = { engine: 'recipe', recipes: ['bump-dependency'] };
  const options = (updateType: 'major' | 'minor') => ({
    origin: bump,
    minRisk: 'HIGH' as const,
    updates: [{ package: 'org.junit.jupiter:junit-jupiter', from: '5.10.2', to: updateType === 'major' ? '6.0.0' : '5.11.0', updateType }],
  });

  it('a major update raises a low-risk bump to MEDIUM and names the move', () => {
    const files = [modified('pom.xml')];
    const minor = changeRisk(files, defaultPathRules(), options('minor'));
    const major = changeRisk(files, defaultPathRules(), options('major'));
    expect(minor.riskLevel).toBe('LOW');
    expect(minor.reasons.some((r) => r.includes('version update'))).toBe(false);
    expect(major.riskLevel).toBe('MEDIUM');
    expect(major.reasons).toContain('major version update: org.junit.jupiter:junit-jupiter 5.10.2 → 6.0.0');
  });
});

describe('an incomplete change', () => {
  it('is at least MEDIUM and says why', () => {
    const files = [modified('docs/guide.md')];
    const why = 'rename-symbol renamed A to B, but 1 file(s) it did not change still use A: web/Page.java';
    const report = changeRisk(files, defaultPathRules(), { origin: { engine: 'recipe', recipes: ['rename-symbol'] }, minRisk: 'HIGH', incomplete: [why] });
    expect(report.riskLevel).toBe('MEDIUM');
    expect(report.reasons).toContain(`incomplete change: ${why}`);
    expect(changeRisk(files, defaultPathRules(), { origin: { engine: 'recipe', recipes: ['rename-symbol'] }, minRisk: 'HIGH' }).riskLevel).toBe('LOW');
  });
});

describe('build configuration', () => {
  it.each([
    'platform/build.gradle.kts',
    'buildSrc/src/main/kotlin/java-conventions.gradle.kts',
    'gradle/dependencies.gradle',
    'gradle/libs.versions.toml',
    'gradle/test-libs.versions.toml',
    'gradle.properties',
    'settings.gradle.kts',
  ])('%s carries the build-config signal', (path) => {
    const report = changeRisk([modified(path)], defaultPathRules(), { origin: { engine: 'recipe', recipes: ['bump-dependency'] }, minRisk: 'HIGH' });
    expect(report.reasons.join('\n')).not.toContain('no risk signal');
    expect(report.reasons.join('\n')).toMatch(/manifest|build/);
  });
});
