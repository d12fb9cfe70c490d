import { describe, expect, it } from 'vitest';
import { resolveScope, submodulesInScope } from '../../../src/core/ingestion/scope.js';

describe('resolveScope', () => {
  const files = [
    '.github/workflows/ci.yml',
    '.agent-policy.yaml',
    'README.md',
    'src/a.ts',
    'src/b/c.ts',
    'srcx/d.ts',
    'packages/@scope/pkg/index.ts',
    'src/a+b/x.ts',
  ];

  it('a plain directory means everything under it, at a segment boundary', () => {
    expect(resolveScope(['src'], files, []).matched).toEqual(['src/a.ts', 'src/b/c.ts', 'src/a+b/x.ts']);
    expect(resolveScope(['src/**/*.ts', 'README.md'], files, []).matched).toEqual(['README.md', 'src/a.ts', 'src/b/c.ts', 'src/a+b/x.ts']);
  });

  it('reads scoped npm names and `+` literally, as the policy and the map do', () => {
    expect(resolveScope(['packages/@scope/pkg'], files, []).matched).toEqual(['packages/@scope/pkg/index.ts']);
    expect(resolveScope(['src/a+b'], files, []).matched).toEqual(['src/a+b/x.ts']);
    expect(resolveScope(['src/a+b/'], files, []).missing).toEqual([]);
  });

  it('reports missing and forbidden entries separately', () => {
    const result = resolveScope(['src', 'nope', '.github/workflows', '../etc'], files, ['.github/workflows/**']);
    expect(result.missing).toEqual(['nope']);
    expect(result.forbidden).toEqual(['.github/workflows', '../etc']);
  });

  it('keeps workflows and the policy file forbidden with a forbidden list that omits them', () => {
    const result = resolveScope(['.github', '.agent-policy.yaml', 'src'], files, []);
    expect(result.forbidden).toEqual(['.github', '.agent-policy.yaml']);
    expect(result.matched).toEqual(['src/a.ts', 'src/b/c.ts', 'src/a+b/x.ts']);
  });

  it('no scope selects every file', () => {
    expect(resolveScope(undefined, files, ['.github/workflows/**']).matched).toEqual(files);
  });
});

describe('scope entries reaching into a submodule', () => {
  it.each([
    [['vendor/lib'], [{ pattern: 'vendor/lib', submodule: 'vendor/lib' }]],
    [['vendor/lib/src/**/*.c'], [{ pattern: 'vendor/lib/src/**/*.c', submodule: 'vendor/lib' }]],
    [['./vendor/lib/'], [{ pattern: './vendor/lib/', submodule: 'vendor/lib' }]],
    [['vendor/**', '**/*.c', 'vendor/library', 'src'], []],
  ])('%j -> %j', (paths, reached) => {
    expect(submodulesInScope(paths, ['vendor/lib'])).toEqual(reached);
  });
});
