import { describe, expect, it } from 'vitest';
import { applyPrettierParity, declaredPrettier } from '../../../src/core/engines/recipe/formatters/prettier-parity.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

// Written as Prettier leaves it with printWidth 60 and single quotes.
const CLEAN = "import { load } from './load';\n\nexport function run(name: string): string {\n  return load(name, { cache: true });\n}\n";
// A rename that makes the call longer than 60 columns, as a recipe writes it.
const RENAMED = CLEAN.replace(/load/g, 'loadTheConfigurationFromDiskNow');

async function repoWith(files: Record<string, string>, after: string) {
  const repo = await createMemoryRepo(files);
  await repo.workspace.write('src/run.ts', new TextEncoder().encode(after));
  return repo;
}

describe('Prettier parity', () => {
  it('rewrites a changed file as Prettier leaves it, with the options the repository declares', async () => {
    const repo = await repoWith({ '.prettierrc': '{ "singleQuote": true, "printWidth": 60 }\n', 'src/run.ts': CLEAN }, RENAMED);
    const notes = await applyPrettierParity(repo.workspace, ['src/run.ts']);
    expect(notes).toEqual(['formatted as Prettier leaves them (options from .prettierrc): src/run.ts']);
    const text = await repo.workspace.readText('src/run.ts');
    expect(text).toContain("import { loadTheConfigurationFromDiskNow } from './loadTheConfigurationFromDiskNow';");
    expect(text).toContain('  return loadTheConfigurationFromDiskNow(name, {\n    cache: true,\n  });\n');
  });

  it('leaves a file that was not Prettier-clean before, so lines the change did not touch never move', async () => {
    const messy = CLEAN.replace('  return', '    return');
    const repo = await repoWith(
      { '.prettierrc': '{ "singleQuote": true, "printWidth": 60 }\n', 'src/run.ts': messy },
      messy.replace(/load/g, 'loadTheConfigurationFromDiskNow'),
    );
    expect(await applyPrettierParity(repo.workspace, ['src/run.ts'])).toEqual([]);
    expect(await repo.workspace.readText('src/run.ts')).toBe(messy.replace(/load/g, 'loadTheConfigurationFromDiskNow'));
  });

  it('does nothing where no Prettier is declared, and says so where the configuration is a script', async () => {
    const none = await repoWith({ 'package.json': '{ "name": "x" }\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await applyPrettierParity(none.workspace, ['src/run.ts'])).toEqual([]);
    const script = await repoWith({ 'prettier.config.js': 'module.exports = {};\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await applyPrettierParity(script.workspace, ['src/run.ts'])).toEqual([
      'Prettier is configured in prettier.config.js, which draftsman does not evaluate: the changed files were not reformatted',
    ]);
    expect(await script.workspace.readText('src/run.ts')).toBe(RENAMED);
  });

  it('reads the package.json key and a Prettier dependency with its defaults', async () => {
    const keyed = await createMemoryRepo({ 'package.json': '{ "prettier": { "semi": false, "plugins": ["x"] } }\n' });
    expect(await declaredPrettier(keyed.workspace)).toEqual({ source: 'package.json', options: { semi: false } });
    const dep = await createMemoryRepo({ 'package.json': '{ "devDependencies": { "prettier": "^3.0.0" } }\n' });
    expect(await declaredPrettier(dep.workspace)).toEqual({ source: 'package.json (Prettier defaults)', options: {} });
  });
});
