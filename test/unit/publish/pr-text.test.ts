import { describe, expect, it } from 'vitest';
import { formatCommitMessage, MAX_SUBJECT } from '../../../src/core/git/commit-message.js';
import { MAX_TITLE, prText, shortModuleName, type PrTextInput } from '../../../src/core/publish/pr-text.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { MAX_TASK_TITLE, taskTitleOf } from '../../../src/core/task/task-title.js';

const rules = defaultPathRules();
const step = (raw: unknown) => RecipeStep.parse(raw);

const modules = [
  { path: '.', name: 'acme-parent', buildSystem: 'maven' },
  { path: 'services/order', name: 'com.acme:order-service', buildSystem: 'maven' },
  { path: 'services/billing', name: 'com.acme:billing', buildSystem: 'maven' },
  { path: 'packages/changelog-github', name: '@changesets/changelog-github', buildSystem: 'pnpm' },
  { path: 'tools/gen', name: 'github.com/acme/tools/gen/v3', buildSystem: 'go' },
  { path: 'plugins/unnamed', name: 'plugins/unnamed' },
];

function input(overrides: Partial<PrTextInput>): PrTextInput {
  return { title: '', steps: [], changedPaths: [], modules, classify: (p) => rules.classify(p), ...overrides };
}

/** The subject line the commit would get. */
function subject(overrides: Partial<PrTextInput>): string {
  const text = prText(input(overrides));
  return formatCommitMessage({
    type: text.type,
    scope: text.scope,
    breaking: text.breaking,
    summary: text.summary,
    task: text.title,
    intent: 'test',
    verification: { status: 'NOT_RUN', checks: [], notRun: [] },
    risk: [],
    runId: 'r1',
    taskId: 't1',
  }).split('\n')[0];
}

const javaFiles = ['services/order/src/main/java/acme/Order.java', 'services/order/src/main/java/acme/Line.java'];

describe('PR title', () => {
  it('is the maintainer title for a one-step recipe task, not the recipe parameters', () => {
    const text = prText(
      input({
        title: 'Use any instead of interface{}',
        steps: [step({ recipe: 'replace', find: 'interface{}', replace: 'any' })],
        changedPaths: ['tools/gen/main.go'],
      }),
    );
    expect(text.title).toBe('Use any instead of interface{}');
    expect(text.summary).toBe('Use any instead of interface{}');
  });

  it('the commit subject drops a final full stop; the PR title keeps it', () => {
    const text = prText(input({ title: 'Move to Jakarta Persistence.', changedPaths: javaFiles }));
    expect(text.title).toBe('Move to Jakarta Persistence.');
    expect(text.summary).toBe('Move to Jakarta Persistence');
  });

  it('collapses whitespace and falls back to the steps in words only when no title was written', () => {
    expect(prText(input({ title: '  Move   to\tJakarta \n', changedPaths: javaFiles })).title).toBe('Move to Jakarta');
    const text = prText(input({ title: ' ', steps: [step({ recipe: 'rename-symbol', from: 'total', to: 'sum', kind: 'field' })], changedPaths: javaFiles }));
    expect(text.title).toBe('rename field total to sum');
  });

  it('a 300-character title is cut at a word boundary within GitHub’s limit, and the subject within 72', () => {
    const title = `Migrate ${'org.example.persistence.legacy '.repeat(10)}imports to the Jakarta namespace everywhere`;
    expect(title.length).toBeGreaterThan(300);
    const text = prText(
      input({ title, steps: [step({ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' })], changedPaths: javaFiles }),
    );
    expect(text.title.length).toBeLessThanOrEqual(MAX_TITLE);
    expect(text.title.endsWith('legacy…')).toBe(true);
    const line = subject({ title, steps: [step({ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' })], changedPaths: javaFiles });
    expect(line.length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(line).toBe('refactor(order-service): Migrate org.example.persistence.legacy…');
  });
});

describe('CLI task title', () => {
  it.each([
    ['the first line', 'Use any instead of interface{}\n\nIn the generator.', 'Use any instead of interface{}'],
    ['a Markdown heading without #', '\n## Migrate to Jakarta ##\n\nbody', 'Migrate to Jakarta'],
    ['prose after an opening agent block', '```agent\nsteps:\n  - recipe: replace\n```\nReplace interface{} with any', 'Replace interface{} with any'],
    ['nothing when there is only a block', '```agent\nsteps: []\n```\n', ''],
  ])('is %s', (_name, text, title) => {
    expect(taskTitleOf(text)).toBe(title);
  });

  it('a 300-character first line is shortened at a word boundary', () => {
    const title = taskTitleOf(`Migrate ${'persistence '.repeat(30)}imports`);
    expect(title.length).toBeLessThanOrEqual(MAX_TASK_TITLE);
    expect(title.endsWith('persistence…')).toBe(true);
  });
});

describe('commit type by change kind', () => {
  it.each([
    ['migrate-import', { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }, javaFiles, 'refactor'],
    ['rename-symbol', { recipe: 'rename-symbol', from: 'total', to: 'sum' }, javaFiles, 'refactor'],
    ['bump-dependency', { recipe: 'bump-dependency', package: 'lodash', to: '4.17.21' }, ['package.json'], 'build'],
    ['replace in docs only', { recipe: 'replace', find: 'Travis', replace: 'Actions' }, ['README.md', 'docs/setup.md', 'CHANGELOG.md'], 'docs'],
    ['replace in CI only', { recipe: 'replace', find: 'node 18', replace: 'node 20' }, ['.github/workflows/ci.yml'], 'ci'],
    ['replace in tests only', { recipe: 'replace', find: 'assertEquals', replace: 'assertThat' }, ['services/order/src/test/java/acme/OrderTest.java'], 'test'],
    ['replace in source', { recipe: 'replace', find: 'interface{}', replace: 'any' }, ['tools/gen/main.go', 'README.md'], 'refactor'],
    ['replace in config', { recipe: 'replace', find: 'v1', replace: 'v2' }, ['config/app.yaml'], 'chore'],
  ])('%s', (_name, raw, changedPaths, type) => {
    expect(prText(input({ title: 'Do the thing', steps: [step(raw)], changedPaths })).type).toBe(type);
  });

  it.each([
    ['Fix the crash when the cart is empty', ['services/order/src/main/java/acme/Cart.java'], 'fix'],
    ['Add retry support to the HTTP client', ['services/order/src/main/java/acme/Http.java'], 'feat'],
    ['Tidy the order module', ['services/order/src/main/java/acme/Order.java'], 'chore'],
    // The files say more than the title's verb: a fix touching only documentation is docs.
    ['Fix typos in the setup guide', ['docs/setup.md'], 'docs'],
  ])('a model change titled %j', (title, changedPaths, type) => {
    expect(prText(input({ title, changedPaths })).type).toBe(type);
  });

  it('mixed steps take the kind that changed the most files, the first step on a tie', () => {
    const steps = [
      step({ recipe: 'bump-dependency', package: 'jakarta.persistence-api', to: '3.1.0' }),
      step({ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }),
    ];
    expect(
      prText(input({ title: 'Jakarta', steps, stepPaths: [['services/order/pom.xml'], javaFiles], changedPaths: [...javaFiles, 'services/order/pom.xml'] }))
        .type,
    ).toBe('refactor');
    expect(
      prText(
        input({ title: 'Jakarta', steps, stepPaths: [['services/order/pom.xml'], [javaFiles[0]]], changedPaths: [javaFiles[0], 'services/order/pom.xml'] }),
      ).type,
    ).toBe('build');
  });
});

describe('dependency bumps', () => {
  const bump = step({ recipe: 'bump-dependency', package: 'lodash', from: '4.17.20', to: '4.17.21' });

  it('a generic title gets the Dependabot subject build(deps): bump <pkg> from <a> to <b>', () => {
    expect(subject({ title: 'Update dependencies', steps: [bump], changedPaths: ['package.json'] })).toBe('build(deps): bump lodash from 4.17.20 to 4.17.21');
  });

  it('a title the maintainer wrote wins over the generated subject', () => {
    expect(subject({ title: 'Upgrade lodash for CVE-2021-23337', steps: [bump], changedPaths: ['package.json'] })).toBe(
      'build(deps): Upgrade lodash for CVE-2021-23337',
    );
  });
});

describe('no double prefix', () => {
  it.each([
    ['refactor(changelog-github): use the new API', 'refactor(changelog-github): use the new API'],
    ['chore: drop the old script', 'chore: drop the old script'],
    ['fix!: reject empty carts', 'fix!: reject empty carts'],
    ['Feat(api): add paging', 'feat(api): add paging'],
  ])('%j is used as written, its type and scope adopted', (title, expected) => {
    const line = subject({ title, steps: [step({ recipe: 'replace', find: 'a', replace: 'b' })], changedPaths: ['packages/changelog-github/src/index.ts'] });
    expect(line).toBe(expected);
    expect(prText(input({ title })).title).toBe(title);
  });
});

describe('scope is the module', () => {
  it.each([
    ['a Maven module by its artifactId', javaFiles, 'order-service'],
    ['an npm package without its @scope', ['packages/changelog-github/src/index.ts', 'packages/changelog-github/package.json'], 'changelog-github'],
    ['a Go module by its last element before /vN', ['tools/gen/main.go'], 'gen'],
    ['a module without a name by its directory', ['plugins/unnamed/x.py'], 'unnamed'],
    ['none when the change spans modules', [javaFiles[0], 'services/billing/src/main/java/acme/Bill.java'], undefined],
    ['none at the repository root (never the top folder)', ['src/main/java/acme/App.java'], undefined],
  ])('%s', (_name, changedPaths, scope) => {
    expect(prText(input({ title: 'Rename total', steps: [step({ recipe: 'rename-symbol', from: 'total', to: 'sum' })], changedPaths })).scope).toBe(scope);
  });

  it('a Gradle project name keeps its last part', () => {
    expect(shortModuleName({ path: 'app', name: ':platform:app', buildSystem: 'gradle' })).toBe('app');
  });

  it('a scope too long to leave room for the summary is left out, never an error', () => {
    const line = formatCommitMessage({
      type: 'refactor',
      scope: 'a-very-long-module-name-that-someone-chose-for-their-artifact-id',
      summary: 'move imports to jakarta',
      task: 't',
      intent: 'i',
      verification: { status: 'NOT_RUN', checks: [], notRun: [] },
      risk: [],
      runId: 'r',
      taskId: 't',
    }).split('\n')[0];
    expect(line).toBe('refactor: move imports to jakarta');
  });
});
