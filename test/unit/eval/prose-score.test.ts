import { describe, expect, it } from 'vitest';
import { PROSE_CASES, type ProseCase } from '../../../eval/prose/cases.js';
import { bumpVersion, formatProseScore, meetsGoals, normalisePaths, packageName, scoreProse, stepsOf } from '../../../eval/prose/score.js';
import { parseTask } from '../../../src/core/task/parse-task.js';

const bump = (agentPackage: string, to: string, from?: string, extra = ''): string =>
  `steps:\n  - recipe: bump-dependency\n    package: ${agentPackage}\n${from ? `    from: '${from}'\n` : ''}    to: '${to}'\n${extra}`;

const mk = (over: Partial<ProseCase> & Pick<ProseCase, 'id' | 'expected'>): ProseCase => ({
  source: 'dependabot',
  ecosystem: 'npm',
  repo: 'o/r',
  commit: '0'.repeat(40),
  url: 'https://github.com/o/r/pull/1',
  title: 't',
  body: '',
  verifiedBy: 'v',
  textFrom: 'commit message',
  realCommit: '1'.repeat(40),
  ...over,
});

describe('eval: scoring a prose reader against the corpus', () => {
  it('a must-run case run with the expected steps is correct; with nothing it is missed', () => {
    const c = mk({ id: 'a', expected: { agent: bump('lodash', '4.17.21', '4.17.20') } });
    const right = scoreProse([c], { a: [{ recipe: 'bump-dependency', package: 'lodash', from: '4.17.20', to: '4.17.21' }] });
    expect(right.cases[0].outcome).toBe('correct');
    expect(scoreProse([c], {}).cases[0].outcome).toBe('missed');
    expect(scoreProse([c], { a: [] }).cases[0].outcome).toBe('missed');
    expect(scoreProse([c], new Map([['a', null]])).cases[0].outcome).toBe('missed');
  });

  it('any run on a must-not-run case is wrong; nothing run is held', () => {
    const c = mk({ id: 'n', expected: { mustNotRun: 'names only the major' } });
    const run = scoreProse([c], { n: [{ recipe: 'bump-dependency', package: 'lit', to: '3.0.0' }] });
    expect(run.cases[0].outcome).toBe('wrong-run');
    expect(run.cases[0].detail).toContain('names only the major');
    expect(scoreProse([c], { n: undefined }).cases[0].outcome).toBe('held');
  });

  it('a different package, version, from, recipe or scope is a wrong run', () => {
    const c = mk({ id: 'a', expected: { agent: bump('tsdown', '^0.21.10', '0.21.9', "    paths: ['packages']\n") } });
    const base = { recipe: 'bump-dependency', package: 'tsdown', from: '0.21.9', to: '0.21.10', paths: ['packages/**'] };
    expect(scoreProse([c], { a: [base] }).cases[0].outcome).toBe('correct');
    for (const change of [
      { package: 'tsup' },
      { to: '0.21.11' },
      { from: '0.21.8' },
      { recipe: 'remove-dependency' },
      { paths: ['playground'] },
      { paths: undefined },
    ]) {
      expect(scoreProse([c], { a: [{ ...base, ...change }] }).cases[0].outcome, JSON.stringify(change)).toBe('wrong-run');
    }
    // An extra step, even a correct one repeated with another package, changes the effect.
    expect(scoreProse([c], { a: [base, { ...base, package: 'vite' }] }).cases[0].outcome).toBe('wrong-run');
  });

  it('normalises versions, names per ecosystem, paths and step order', () => {
    expect(bumpVersion('v1.10.1')).toBe('1.10.1');
    expect(bumpVersion('^0.28.0')).toBe('0.28.0');
    expect(bumpVersion('33.4.7-jre')).toBe('33.4.7-jre');
    expect(packageName('Sphinx', 'python')).toBe('sphinx');
    expect(packageName('python_dotenv', 'python')).toBe(packageName('python-dotenv', 'python'));
    expect(packageName('github.com/BurntSushi/toml', 'go')).toBe('github.com/BurntSushi/toml');
    expect(normalisePaths(['./examples/', '/interop/xds/**'])).toEqual(['examples', 'interop/xds']);

    const go = mk({ id: 'g', ecosystem: 'go', expected: { agent: bump('github.com/spf13/viper', '1.10.1', '1.10.0') } });
    expect(scoreProse([go], { g: [{ recipe: 'bump-dependency', package: 'github.com/spf13/viper', from: 'v1.10.0', to: 'v1.10.1' }] }).cases[0].outcome).toBe(
      'correct',
    );
    const py = mk({ id: 'p', ecosystem: 'python', expected: { agent: bump('sphinx', '7.3.7', '5.1.1') } });
    expect(scoreProse([py], { p: [{ recipe: 'bump-dependency', package: 'Sphinx', from: '5.1.1', to: '7.3.7' }] }).cases[0].outcome).toBe('correct');
    // Go module paths are case-sensitive.
    const goCase = mk({ id: 'c', ecosystem: 'go', expected: { agent: bump('github.com/BurntSushi/toml', '1.3.0') } });
    expect(scoreProse([goCase], { c: [{ recipe: 'bump-dependency', package: 'github.com/burntsushi/toml', to: '1.3.0' }] }).cases[0].outcome).toBe('wrong-run');

    const two = mk({ id: 't', expected: { agent: `${bump('a', '2.0.0')}  - recipe: bump-dependency\n    package: b\n    to: '3.0.0'\n` } });
    const produced = [
      { recipe: 'bump-dependency', package: 'b', to: '3.0.0' },
      { recipe: 'bump-dependency', package: 'a', to: '2.0.0' },
    ];
    expect(scoreProse([two], { t: produced }).cases[0].outcome).toBe('correct');
  });

  it('from counts only where the expected block states it; a missing produced from stands for the expected one', () => {
    const withFrom = mk({ id: 'f', expected: { agent: bump('picomatch', '4.0.4', '4.0.3') } });
    expect(scoreProse([withFrom], { f: [{ recipe: 'bump-dependency', package: 'picomatch', to: '4.0.4' }] }).cases[0].outcome).toBe('correct');
    const noFrom = mk({ id: 'r', expected: { agent: bump('rollup', '4.59.0') } });
    expect(scoreProse([noFrom], { r: [{ recipe: 'bump-dependency', package: 'rollup', from: '4.57.1', to: '4.59.0' }] }).cases[0].outcome).toBe('correct');
  });

  it('catalog entries sharing one version key are equivalents; others are not', () => {
    const c = mk({
      id: 'k',
      ecosystem: 'gradle',
      expected: {
        agent: bump('org.jetbrains.kotlinx:kotlinx-coroutines-core', '1.9.0', '1.8.0'),
        equivalents: { 'org.jetbrains.kotlinx:kotlinx-coroutines-core': ['org.jetbrains.kotlinx:kotlinx-coroutines-android'] },
      },
    });
    const step = (p: string) => ({ recipe: 'bump-dependency', package: p, from: '1.8.0', to: '1.9.0' });
    expect(scoreProse([c], { k: [step('org.jetbrains.kotlinx:kotlinx-coroutines-android')] }).cases[0].outcome).toBe('correct');
    expect(
      scoreProse([c], { k: [step('org.jetbrains.kotlinx:kotlinx-coroutines-android'), step('org.jetbrains.kotlinx:kotlinx-coroutines-core')] }).cases[0]
        .outcome,
    ).toBe('correct');
    expect(scoreProse([c], { k: [step('org.jetbrains.kotlinx:kotlinx-datetime')] }).cases[0].outcome).toBe('wrong-run');
  });

  it('tallies precision and recall per ecosystem and per source, and prints the table', () => {
    const cases = [
      mk({ id: 'a', ecosystem: 'npm', source: 'renovate', expected: { agent: bump('a', '1.0.0') } }),
      mk({ id: 'b', ecosystem: 'npm', source: 'dependabot', expected: { agent: bump('b', '1.0.0') } }),
      mk({ id: 'c', ecosystem: 'go', source: 'person', expected: { mustNotRun: 'no version' } }),
      mk({ id: 'd', ecosystem: 'go', source: 'dependabot', expected: { agent: bump('d', '1.0.0') } }),
    ];
    const score = scoreProse(cases, {
      a: [{ recipe: 'bump-dependency', package: 'a', to: '1.0.0' }],
      b: [{ recipe: 'bump-dependency', package: 'b', to: '2.0.0' }],
      c: [{ recipe: 'bump-dependency', package: 'c', to: '1.0.0' }],
    });
    expect(score.totals).toEqual({ cases: 4, mustRun: 3, correct: 1, missed: 1, wrongRuns: 2, held: 0, precision: 0.333, recall: 0.333 });
    expect(score.byEcosystem.npm).toMatchObject({ cases: 2, correct: 1, wrongRuns: 1, precision: 0.5, recall: 0.5 });
    expect(score.byEcosystem.go).toMatchObject({ cases: 2, mustRun: 1, missed: 1, wrongRuns: 1, precision: 0, recall: 0 });
    expect(score.bySource.dependabot).toMatchObject({ cases: 2, mustRun: 2, correct: 0, missed: 1, wrongRuns: 1 });
    expect(meetsGoals(score.totals)).toBe(false);
    const table = formatProseScore(score);
    expect(table).toMatch(/^ecosystem go\s+2\s+1\s+0\s+1\s+1\s+0\s+0\.000\s+0\.000$/m);
    expect(table).toContain('wrong run c: must not run: no version');
    expect(table).toContain('goals (0 wrong runs, recall >= 0.9): not met');
    // A reader that runs exactly the expected blocks and nothing else meets the goals.
    const perfect = scoreProse(PROSE_CASES, Object.fromEntries(PROSE_CASES.map((c) => [c.id, 'agent' in c.expected ? stepsOf(c.expected.agent) : undefined])));
    expect(perfect.totals.wrongRuns).toBe(0);
    expect(perfect.totals.recall).toBe(1);
    expect(meetsGoals(perfect.totals)).toBe(true);
  });
});

describe('eval: the prose corpus', () => {
  it('has at least 60 cases over 5 repositories, 15 of them must-not-run, with unique ids and pinned commits', () => {
    expect(PROSE_CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(PROSE_CASES.map((c) => c.repo)).size).toBeGreaterThanOrEqual(5);
    expect(PROSE_CASES.filter((c) => 'mustNotRun' in c.expected).length).toBeGreaterThanOrEqual(15);
    expect(new Set(PROSE_CASES.map((c) => c.id)).size).toBe(PROSE_CASES.length);
    for (const c of PROSE_CASES) {
      expect(c.commit, c.id).toMatch(/^[0-9a-f]{40}$/);
      expect(c.realCommit, c.id).toMatch(/^[0-9a-f]{40}$/);
      expect(c.url, c.id).toMatch(new RegExp(`^https://github\\.com/${c.repo}/(pull/\\d+|commit/${c.realCommit})$`));
      expect(c.title.trim(), c.id).not.toBe('');
    }
    for (const source of ['dependabot', 'renovate', 'person']) expect(PROSE_CASES.some((c) => c.source === source)).toBe(true);
    for (const eco of ['maven', 'gradle', 'go', 'npm', 'python']) expect(PROSE_CASES.some((c) => c.ecosystem === eco)).toBe(true);
  });

  it('every expected block is a valid ```agent block whose steps the task parser accepts', () => {
    for (const c of PROSE_CASES) {
      if (!('agent' in c.expected)) continue;
      const task = parseTask({ title: c.title, body: `\`\`\`agent\n${c.expected.agent}\`\`\`\n`, source: 'github' });
      expect(task.steps.length, c.id).toBe(stepsOf(c.expected.agent).length);
      for (const step of task.steps) {
        if (step.recipe === 'bump-dependency') expect(typeof step.to, c.id).toBe('string');
      }
    }
  });
});
