import { describe, expect, it } from 'vitest';
import { changelogConvention } from '../../../src/core/targets/changelog-convention.js';
import { resolveFramePaths } from '../../../src/core/targets/report-evidence.js';

describe('changelogConvention', () => {
  it.each([
    [
      'towncrier fragments next to a generated changelog',
      ['CHANGELOG.md', 'changelog.d/1.bugfix.md', 'changelog.d/2.feature.md', 'src/a.py'],
      { kind: 'fragments', directory: 'changelog.d' },
    ],
    ['changesets', ['CHANGELOG.md', '.changeset/config.json', '.changeset/brave-cats.md', 'src/a.ts'], { kind: 'fragments', directory: '.changeset' }],
    ['one changelog file edited by hand', ['CHANGES.md', 'src/a.py', 'docs/index.md'], { kind: 'file', path: 'CHANGES.md' }],
    [
      'a code directory named changes is no fragments directory',
      ['src/changes/a.py', 'src/changes/b.py', 'HISTORY.rst'],
      { kind: 'file', path: 'HISTORY.rst' },
    ],
    ['none', ['src/a.go', 'README.md'], { kind: 'none' }],
  ])('%s', (_name, paths, expected) => {
    expect(changelogConvention(paths)).toEqual(expected);
  });

  it('a towncrier configuration names its directory, whatever its name', () => {
    const paths = ['CHANGES.rst', 'docs/notes/123.misc.rst', 'docs/notes/124.misc.rst', 'src/a.py'];
    expect(changelogConvention(paths, '[tool.towncrier]\ndirectory = "docs/notes"\n')).toEqual({ kind: 'fragments', directory: 'docs/notes' });
    expect(changelogConvention(paths)).toEqual({ kind: 'file', path: 'CHANGES.rst' });
  });
});

describe('resolveFramePaths', () => {
  const candidates = ['src/flask/app.py', 'src/flask/cli.py', 'tests/test_app.py', 'a/util.go', 'b/util.go'];
  const isTest = (p: string) => p.startsWith('tests/');

  it('matches the longest suffix of a frame that ends a repository path', () => {
    const found = resolveFramePaths(['/venv/lib/python3.12/site-packages/flask/app.py', 'tests/test_app.py'], candidates, isTest);
    expect(found.map((f) => [f.path, f.strong])).toEqual([
      ['src/flask/app.py', true],
      ['tests/test_app.py', false],
    ]);
  });

  it('a bare file name shared by several files names none of them; a directory picks one', () => {
    expect(resolveFramePaths(['util.go'], candidates, isTest)).toEqual([]);
    expect(resolveFramePaths(['/home/x/src/b/util.go'], candidates, isTest).map((f) => f.path)).toEqual(['b/util.go']);
  });
});
