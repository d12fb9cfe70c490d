import { describe, expect, it } from 'vitest';
import type { ProseReading } from '../../../src/core/prose/prose-reading.js';
import { readProse } from '../../../src/core/prose/read-prose.js';
import { WHY } from '../../../src/core/prose/prose-why.js';

// Wordings in the shapes Dependabot, Renovate and people write them (titles and bodies of public
// pull requests and issues), with our own package names and versions where it did not matter.

type Reading = Omit<ProseReading, 'text'>;

const read = (title: string, body = '') => {
  const { readings, unread } = readProse({ title, body });
  return { readings: readings.map(({ text: _text, ...rest }) => rest), unread };
};

const bump = (pkg: string, to: string, extra: Partial<Reading> & { paths?: string[] } = {}): Reading => {
  const { paths, ...rest } = extra;
  return {
    step: { recipe: 'bump-dependency', package: pkg, to, ...(paths ? { paths } : {}) },
    source: 'title',
    confidence: 'plain',
    wordingSource: 'person',
    ...rest,
  };
};
const constrain = (pkg: string, range: string, extra: Partial<Reading> = {}): Reading => ({
  step: { recipe: 'constrain-dependency', package: pkg, range },
  source: 'title',
  confidence: 'plain',
  wordingSource: 'person',
  ...extra,
});
const person = (step: Reading['step'], extra: Partial<Reading> = {}): Reading => ({
  step,
  source: 'title',
  confidence: 'plain',
  wordingSource: 'person',
  ...extra,
});

const DEPENDABOT = { wordingSource: 'dependabot' } as const;
const RENOVATE = { wordingSource: 'renovate' } as const;

const renovateTable = (header: string, rows: string[]) =>
  [
    'This PR contains the following updates:',
    '',
    header,
    `|${header
      .split('|')
      .slice(1, -1)
      .map(() => '---')
      .join('|')}|`,
    ...rows,
    '',
    '---',
    '',
    '### Release Notes',
    '',
    '<details>',
    '<summary>eslint/eslint (eslint)</summary>',
    '',
    '- **deps:** update dependency type-fest to v3.12.0',
    '- Bump ajv from 6.12.6 to 8.12.0',
    '',
    '</details>',
  ].join('\n');

const MERGE_CONFIDENCE = '| Package | Change | Age | Adoption | Passing | Confidence |';
const badge = (kind: string) =>
  `[![${kind}](https://developer.mend.io/api/mc/badges/${kind}/npm/x/1.0.0?slim=true)](https://docs.renovatebot.com/merge-confidence/)`;
const badges = ['age', 'adoption', 'passing', 'confidence'].map(badge).join(' | ');

describe('readProse: Dependabot wordings', () => {
  const cases: { name: string; title: string; body?: string; readings: Reading[] }[] = [
    {
      name: 'a plain bump',
      title: 'Bump lodash from 4.17.20 to 4.17.21',
      readings: [bump('lodash', '4.17.21', { from: '4.17.20', ...DEPENDABOT })],
    },
    {
      name: 'a bump in a directory, restated by the body',
      title: 'Bump lodash from 4.17.20 to 4.17.21 in /client',
      body: 'Bumps [lodash](https://github.com/lodash/lodash) from 4.17.20 to 4.17.21.\n- [Release notes](https://github.com/lodash/lodash/releases)\n- [Commits](https://github.com/lodash/lodash/compare/4.17.20...4.17.21)\n\n---\nupdated-dependencies:\n- dependency-name: lodash\n',
      readings: [bump('lodash', '4.17.21', { from: '4.17.20', paths: ['client'], ...DEPENDABOT })],
    },
    {
      name: 'a conventional-commit prefix',
      title: 'build(deps): bump org.apache.commons:commons-text from 1.9 to 1.10.0',
      readings: [bump('org.apache.commons:commons-text', '1.10.0', { from: '1.9', ...DEPENDABOT })],
    },
    {
      name: 'a dev dependency with an npm scope',
      title: 'build(deps-dev): bump @types/node from 20.11.5 to 20.12.7',
      readings: [bump('@types/node', '20.12.7', { from: '20.11.5', ...DEPENDABOT })],
    },
    {
      name: 'a Maven coordinate with four-part versions',
      title: 'Bump com.fasterxml.jackson.core:jackson-databind from 2.13.4 to 2.13.4.2',
      readings: [bump('com.fasterxml.jackson.core:jackson-databind', '2.13.4.2', { from: '2.13.4', ...DEPENDABOT })],
    },
    {
      name: 'a Go module (a host in its path: not an action)',
      title: 'Bump golang.org/x/net from 0.17.0 to 0.23.0',
      readings: [bump('golang.org/x/net', '0.23.0', { from: '0.17.0', ...DEPENDABOT })],
    },
    {
      name: 'an old security prefix',
      title: '[Security] Bump django from 4.2.13 to 4.2.14',
      readings: [bump('django', '4.2.14', { from: '4.2.13', ...DEPENDABOT })],
    },
    {
      name: 'a single bump inside a group',
      title: 'Bump micromatch from 4.0.5 to 4.0.8 in the npm_and_yarn group across 1 directory',
      readings: [bump('micromatch', '4.0.8', { from: '4.0.5', ...DEPENDABOT })],
    },
    {
      name: 'a GitHub Actions reference, marked as one',
      title: 'Bump actions/checkout from 3 to 4',
      body: 'Bumps [actions/checkout](https://github.com/actions/checkout) from 3 to 4.\n- [Release notes](https://github.com/actions/checkout/releases)',
      readings: [bump('actions/checkout', '4', { from: '3', action: 'likely', ...DEPENDABOT })],
    },
    {
      name: 'a requirement change: a constraint',
      title: 'Update pytest requirement from ~=7.0 to ~=8.0',
      body: 'Updates the requirements on [pytest](https://github.com/pytest-dev/pytest) to permit the latest version.\n<details>\n<summary>Release notes</summary>\n</details>',
      readings: [constrain('pytest', '~=8.0', { from: '~=7.0', ...DEPENDABOT })],
    },
    {
      name: 'a group across directories, read from its "Updates" lines',
      title: 'Bump the npm_and_yarn group across 1 directory with 2 updates',
      body: [
        'Bumps the npm_and_yarn group with 2 updates in the / directory: [braces](https://github.com/micromatch/braces) and [ws](https://github.com/websockets/ws).',
        '',
        'Updates `braces` from 3.0.2 to 3.0.3',
        '- [Changelog](https://github.com/micromatch/braces/blob/master/CHANGELOG.md)',
        '',
        'Updates `ws` from 8.14.2 to 8.17.1',
        '- [Release notes](https://github.com/websockets/ws/releases)',
        '',
        '---',
        'updated-dependencies:',
        '- dependency-name: braces dependency-type: indirect',
      ].join('\n'),
      readings: [
        bump('braces', '3.0.3', { from: '3.0.2', source: 'body', ...DEPENDABOT }),
        bump('ws', '8.17.1', { from: '8.14.2', source: 'body', ...DEPENDABOT }),
      ],
    },
    {
      name: 'a group with a From/To table (a removed package is no step)',
      title: 'Bump the npm_and_yarn group across 1 directory with 3 updates',
      body: [
        'Bumps the npm_and_yarn group with 3 updates in the / directory:',
        '',
        '| Package | From | To |',
        '| --- | --- | --- |',
        '| [semver](https://github.com/npm/node-semver) | `5.7.1` | `5.7.2` |',
        '| [@babel/traverse](https://github.com/babel/babel/tree/HEAD/packages/babel-traverse) | `7.21.2` | `7.26.4` |',
        '| [ip](https://github.com/indutny/node-ip) | `1.1.8` | `removed` |',
      ].join('\n'),
      readings: [
        bump('semver', '5.7.2', { from: '5.7.1', source: 'table', ...DEPENDABOT }),
        bump('@babel/traverse', '7.26.4', { from: '7.21.2', source: 'table', ...DEPENDABOT }),
      ],
    },
    {
      name: 'two packages named in the title, their versions in the body',
      title: 'Bump braces and ws in /client',
      body: 'Bumps [braces](https://github.com/micromatch/braces) and [ws](https://github.com/websockets/ws). These dependencies needed to be updated together.\nUpdates `braces` from 3.0.2 to 3.0.3\n\nUpdates `ws` from 7.5.9 to 7.5.10',
      readings: [
        bump('braces', '3.0.3', { from: '3.0.2', source: 'body', ...DEPENDABOT }),
        bump('ws', '7.5.10', { from: '7.5.9', source: 'body', ...DEPENDABOT }),
      ],
    },
  ];
  it.each(cases)('$name: $title', ({ title, body, readings }) => {
    expect(read(title, body)).toEqual({ readings, unread: [] });
  });
});

describe('readProse: Renovate wordings', () => {
  const cases: { name: string; title: string; body?: string; readings: Reading[] }[] = [
    {
      name: 'a Maven dependency',
      title: 'Update dependency com.squareup.okio:okio to v3.9.0',
      readings: [bump('com.squareup.okio:okio', '3.9.0', RENOVATE)],
    },
    {
      name: 'a major alone: inferred',
      title: 'Update dependency eslint to v9',
      readings: [bump('eslint', '9', { confidence: 'inferred', ...RENOVATE })],
    },
    {
      name: 'a major in the title, the exact version in the table',
      title: 'chore(deps): update dependency eslint to v9',
      body: renovateTable(MERGE_CONFIDENCE, [
        `| [eslint](https://eslint.org) ([source](https://github.com/eslint/eslint)) | [\`8.57.0\` -> \`9.0.0\`](https://renovatebot.com/diffs/npm/eslint/8.57.0/9.0.0) | ${badges} |`,
      ]),
      readings: [bump('eslint', '9.0.0', { from: '8.57.0', source: 'table', ...RENOVATE })],
    },
    {
      name: 'all non-major dependencies from the table; release notes not read',
      title: 'chore(deps): update all non-major dependencies',
      body: renovateTable(MERGE_CONFIDENCE, [
        `| [urllib3](https://github.com/urllib3/urllib3) ([changelog](https://github.com/urllib3/urllib3/blob/main/CHANGES.rst)) | [\`2.2.1\` -> \`2.2.2\`](https://renovatebot.com/diffs/pypi/urllib3/2.2.1/2.2.2) | ${badges} |`,
        `| [@commitlint/cli](https://togithub.com/conventional-changelog/commitlint) | [\`^13.1.0\` -> \`^13.2.0\`](https://renovatebot.com/diffs/npm/@commitlint%2fcli/13.1.0/13.2.0) | ${badges} |`,
      ]),
      readings: [
        bump('urllib3', '2.2.2', { from: '2.2.1', source: 'table', ...RENOVATE }),
        constrain('@commitlint/cli', '^13.2.0', { from: '^13.1.0', source: 'table', ...RENOVATE }),
      ],
    },
    {
      name: 'an Update column; the table adds where it comes from',
      title: 'renovatebot(deps): update dependency com.squareup.okio:okio to v2.4.3',
      body: renovateTable('| Package | Update | Change |', ['| [com.squareup.okio:okio](https://togithub.com/square/okio) | patch | `2.4.2` -> `2.4.3` |']),
      readings: [bump('com.squareup.okio:okio', '2.4.3', { from: '2.4.2', ...RENOVATE })],
    },
    {
      name: 'a Type column that names an action',
      title: 'chore(deps): update actions/checkout action to v4',
      body: renovateTable('| Package | Type | Update | Change |', [
        '| [actions/checkout](https://togithub.com/actions/checkout) | action | major | `v3` -> `v4` |',
      ]),
      readings: [bump('actions/checkout', '4', { from: '3', action: 'named', ...RENOVATE })],
    },
    {
      name: 'an arrow and a Datasource column',
      title: 'Update all dependencies',
      body: renovateTable('| Datasource | Package | From | To |', [
        '| maven | org.slf4j:slf4j-api | 2.0.12 | 2.0.13 |',
        '| pypi | requests | `2.31.0` | `2.32.3` |',
      ]),
      readings: [
        bump('org.slf4j:slf4j-api', '2.0.13', { from: '2.0.12', source: 'table', ...RENOVATE }),
        bump('requests', '2.32.3', { from: '2.31.0', source: 'table', ...RENOVATE }),
      ],
    },
    {
      name: 'a change written with →',
      title: 'fix(deps): update all non-major dependencies',
      body: renovateTable('| Package | Change |', ['| [pydantic](https://docs.pydantic.dev) | `2.7.1` → `2.7.4` |']),
      readings: [bump('pydantic', '2.7.4', { from: '2.7.1', source: 'table', ...RENOVATE })],
    },
    {
      name: 'a Go module',
      title: 'fix(deps): update module github.com/spf13/cobra to v1.8.1',
      readings: [bump('github.com/spf13/cobra', '1.8.1', RENOVATE)],
    },
    {
      name: 'a Rust crate',
      title: 'Update rust crate serde to 1.0.200',
      readings: [bump('serde', '1.0.200', RENOVATE)],
    },
    {
      name: 'a Gradle plugin',
      title: 'Update plugin org.jetbrains.kotlin.jvm to v2.0.0',
      readings: [bump('org.jetbrains.kotlin.jvm', '2.0.0', RENOVATE)],
    },
    {
      name: 'an action (its major is its tag)',
      title: 'Update gradle/actions action to v4',
      readings: [bump('gradle/actions', '4', { action: 'named', ...RENOVATE })],
    },
    {
      name: 'a range: a constraint',
      title: 'Update dependency react to ^18.3.0',
      readings: [constrain('react', '^18.3.0', RENOVATE)],
    },
    {
      name: 'a security update with a gitmoji',
      title: 'fix(deps): :arrow_up: update dependency urllib3 to v2 [SECURITY]',
      readings: [bump('urllib3', '2', { confidence: 'inferred', ...RENOVATE })],
    },
  ];
  it.each(cases)('$name: $title', ({ title, body, readings }) => {
    expect(read(title, body)).toEqual({ readings, unread: [] });
  });

  it('refuses digests and image tags, with why', () => {
    expect(read('chore(deps): update actions/checkout digest to b4ffde6')).toEqual({
      readings: [],
      unread: [{ text: 'update actions/checkout digest to b4ffde6', why: WHY.digest }],
    });
    expect(read('Update node Docker tag to v20')).toEqual({ readings: [], unread: [{ text: 'Update node Docker tag to v20', why: WHY.image }] });
    expect(
      read(
        'chore(deps): pin dependencies',
        renovateTable('| Package | Type | Update | Change |', ['| actions/setup-node | action | pinDigest | -> `60edb5d` |']),
      ),
    ).toEqual({
      readings: [],
      unread: [
        { text: 'pin dependencies', why: WHY.noPackage },
        { text: 'actions/setup-node | action | pinDigest | -> `60edb5d`', why: WHY.digest },
      ],
    });
  });
});

describe('readProse: people', () => {
  const cases: { name: string; title: string; body?: string; readings: Reading[] }[] = [
    {
      name: 'an upgrade for a CVE',
      title: 'Upgrade jackson-databind to 2.17.1 (CVE-2023-35116)',
      readings: [bump('jackson-databind', '2.17.1')],
    },
    {
      name: 'a rename in code spans',
      title: 'Rename `FooClient` to `FooConnector`',
      readings: [person({ recipe: 'rename-symbol', from: 'FooClient', to: 'FooConnector' })],
    },
    {
      name: 'a rename of a class, without code marks: inferred',
      title: 'Rename the class OrderDao to OrderRepository',
      readings: [person({ recipe: 'rename-symbol', from: 'OrderDao', to: 'OrderRepository', kind: 'class' }, { confidence: 'inferred' })],
    },
    {
      name: 'a literal replacement',
      title: 'Replace `new Integer(x)` with `Integer.valueOf(x)`',
      readings: [person({ recipe: 'replace', find: 'new Integer(x)', replace: 'Integer.valueOf(x)' })],
    },
    {
      name: 'an upper bound',
      title: 'keep urllib3 below 3 until our adapter is ported',
      readings: [constrain('urllib3', '<3')],
    },
    {
      name: 'an inclusive upper bound',
      title: 'Keep numpy at or below 1.26.4',
      readings: [constrain('numpy', '<=1.26.4')],
    },
    {
      name: 'a pin',
      title: 'pin requests to 2.31.0',
      readings: [constrain('requests', '==2.31.0')],
    },
    {
      name: 'new links for a moved chat',
      title: 'Chat links are stale',
      body: 'Our chat moved from Gitter to Discord, update the invite links from https://gitter.im/foo to https://discord.gg/bar.',
      readings: [person({ recipe: 'replace', find: 'https://gitter.im/foo', replace: 'https://discord.gg/bar' }, { source: 'body' })],
    },
    {
      name: 'a migration of imports',
      title: 'migrate from javax.persistence to jakarta.persistence',
      readings: [person({ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' })],
    },
    {
      name: 'a removal',
      title: 'remove the dependency on left-pad',
      readings: [person({ recipe: 'remove-dependency', package: 'left-pad' })],
    },
    {
      name: 'a list of chores',
      title: 'Dependency housekeeping',
      body: 'Two things before the release:\n\n- [ ] bump `express` to `4.19.2`\n- [ ] drop `request` from package.json\n',
      readings: [bump('express', '4.19.2', { source: 'list' }), person({ recipe: 'remove-dependency', package: 'request' }, { source: 'list' })],
    },
    {
      name: 'a polite request with a version it comes from',
      title: 'Please upgrade spring-boot-starter-parent from 3.1.5 to 3.2.5.',
      readings: [bump('spring-boot-starter-parent', '3.2.5', { from: '3.1.5' })],
    },
    {
      name: 'two packages, each with its version, and a v prefix',
      title: 'Upgrade lodash to v4.17.21, express to 4.19.2',
      readings: [bump('lodash', '4.17.21'), bump('express', '4.19.2')],
    },
    {
      name: 'a downgrade',
      title: 'Downgrade protobuf to 3.20.3',
      readings: [{ ...bump('protobuf', '3.20.3'), step: { recipe: 'bump-dependency', package: 'protobuf', to: '3.20.3', allowDowngrade: true } }],
    },
    {
      name: 'a request in the body, linked and in code spans',
      title: 'Security: axios',
      body: 'We need to bump [`axios`](https://github.com/axios/axios) to `1.7.4` to fix CVE-2024-39338.',
      readings: [bump('axios', '1.7.4', { source: 'body' })],
    },
  ];
  it.each(cases)('$name: $title', ({ title, body, readings }) => {
    expect(read(title, body)).toEqual({ readings, unread: [] });
  });
});

describe('readProse: quotes, coordinates and monorepos', () => {
  it('reads a replacement written in quotes as written in backticks', () => {
    expect(readProse({ title: "Replace 'blacklist' with 'blocklist'", body: '' }).readings[0].step).toEqual({
      recipe: 'replace',
      find: 'blacklist',
      replace: 'blocklist',
    });
    expect(readProse({ title: 'Replace blacklist with blocklist', body: '' }).readings).toEqual([]);
  });

  it('reads a Maven coordinate that carries its version', () => {
    expect(readProse({ title: 'Update to `org.graalvm.buildtools:native-maven-plugin:0.11.0`.', body: '' }).readings[0].step).toEqual({
      recipe: 'bump-dependency',
      package: 'org.graalvm.buildtools:native-maven-plugin',
      to: '0.11.0',
    });
  });

  it("reads Renovate's monorepo title as the group's name, and a monorepo with no version as a group", () => {
    const read = readProse({ title: 'Update ksp monorepo to v2.3.10', body: '' });
    expect(read.readings[0]).toMatchObject({ step: { recipe: 'bump-dependency', package: 'ksp', to: '2.3.10' }, wordingSource: 'renovate' });
    expect(readProse({ title: 'Update ksp monorepo', body: '' }).readings).toEqual([]);
  });

  it("lists a person's list items that ask for a change no reading covers, and not a bot's", () => {
    const read = readProse({ title: 'Bump robolectric to 4.16', body: '* Bump robolectric\n\n* test with 36\n\n* see the release notes' });
    expect(read.beyond).toEqual([{ text: 'test with 36', why: 'asks for a change no step reads' }]);
  });
});

describe('readProse: what it must not read', () => {
  const cases: { title: string; body?: string; why: string }[] = [
    { title: 'update the dependencies', why: WHY.noPackage },
    { title: 'upgrade everything', why: WHY.noPackage },
    { title: 'bump versions', why: WHY.noPackage },
    { title: 'Pin the dependencies', why: WHY.noPackage },
    { title: 'Update lodash, express and react', why: WHY.several },
    { title: 'Upgrade to 2.0', why: WHY.versionOnly },
    { title: 'Upgrade lodash', why: WHY.noVersion },
    { title: 'Update the docs to 2024 standards', why: WHY.noVersion },
    { title: 'Replace Gitter with Discord', why: WHY.replace },
    { title: 'Rename README.md to README.rst', why: WHY.rename },
    { title: 'migrate to the new API', why: WHY.migrate },
    { title: 'pin requests', why: WHY.bound },
    { title: 'chore(deps): update all non-major dependencies', body: 'This PR contains the following updates:\n\n(nothing listed)', why: WHY.noPackage },
  ];
  it.each(cases)('$title: $why', ({ title, body, why }) => {
    const { readings, unread } = read(title, body);
    expect(readings).toEqual([]);
    expect(unread).toEqual([{ text: expect.any(String), why }]);
  });

  it('reads nothing, and lists nothing, from prose that asks for no recipe', () => {
    for (const title of [
      'After the update to 2.0 the app crashes',
      'Where is LegacyAuthClient.exchangeToken still called?',
      'Remove the deprecated endpoint',
    ]) {
      expect(read(title)).toEqual({ readings: [], unread: [] });
    }
  });

  it('skips code blocks, quotes and HTML in a body', () => {
    const body = '```sh\nnpm install lodash@4.17.21\n```\n\n> bump lodash to 4.17.21\n\n<!-- bump express to 4.19.2 -->\n\n    bump react to 18.3.1\n';
    expect(read('Crash on start', body)).toEqual({ readings: [], unread: [] });
  });
});

describe('readProse: bounds', () => {
  it('reads only the first 20 000 characters of a body, and says so', () => {
    const body = `${'Some context. '.repeat(2_000)}\n\nbump lodash to 4.17.21`;
    const { readings, unread } = read('Chores', body);
    expect(readings).toEqual([]);
    expect(unread).toEqual([{ text: '(the body past its first 20000 characters)', why: 'not read: only the start of a body is read' }]);
  });

  it('reads at most 100 table rows', () => {
    const rows = Array.from({ length: 150 }, (_, i) => `| pkg-${i} | \`1.0.0\` -> \`1.0.1\` |`);
    const { readings, unread } = read('chore(deps): update all non-major dependencies', renovateTable('| Package | Change |', rows));
    expect(readings).toHaveLength(100);
    expect(unread).toEqual([]);
    expect(readings[99].step).toEqual({ recipe: 'bump-dependency', package: 'pkg-99', to: '1.0.1' });
  });

  it('stays fast on hostile input', () => {
    const hostile = [
      `bump ${'a'.repeat(50_000)}`,
      `${'`'.repeat(30_000)}`,
      `update ${'x, '.repeat(10_000)}to 1`,
      `keep ${'<'.repeat(20_000)}1`,
      `| Package | Change |\n|---|---|\n${'| a | `1` -> `2` |\n'.repeat(2_000)}`,
      `replace ${'`a` with '.repeat(5_000)}`,
      `${'[x]('.repeat(5_000)}`,
    ];
    const started = performance.now();
    for (const text of hostile) readProse({ title: text.slice(0, 1_000), body: text });
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('reports a body nested too deeply for the parser instead of crashing', () => {
    expect(read('Chores', `${'> '.repeat(9_000)}bump lodash to 4.17.21`)).toEqual({
      readings: [],
      unread: [{ text: '(the body)', why: 'not read: it nests quotes or lists too deeply to parse' }],
    });
  });
});
