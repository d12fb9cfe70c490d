import { describe, expect, it } from 'vitest';
import { createNodeGrammarLoader } from '../../../src/app/local/node-grammar-loader.js';
import { applyFormatterParity } from '../../../src/core/engines/recipe/formatters/formatter-parity.js';
import { declaredPrettier } from '../../../src/core/engines/recipe/formatters/prettier-parity.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

// Written as Prettier leaves it with printWidth 60 and single quotes.
const CLEAN = "import { load } from './load';\n\nexport function run(name: string): string {\n  return load(name, { cache: true });\n}\n";
// A rename that makes the call longer than 60 columns, as a recipe writes it.
const RENAMED = CLEAN.replace(/load/g, 'loadTheConfigurationFromDiskNow');
const loadWasm = createNodeGrammarLoader();

async function repoWith(files: Record<string, string>, after: string) {
  const repo = await createMemoryRepo(files);
  await repo.workspace.write('src/run.ts', new TextEncoder().encode(after));
  return repo;
}

const parity = (repo: Awaited<ReturnType<typeof createMemoryRepo>>) => applyFormatterParity({ workspace: repo.workspace, loadWasm }, ['src/run.ts']);

describe('Prettier parity', () => {
  it('rewrites a changed file as Prettier leaves it, with the options the repository declares', async () => {
    const repo = await repoWith({ '.prettierrc': '{ "singleQuote": true, "printWidth": 60 }\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await parity(repo)).toEqual(['formatted as Prettier (options from .prettierrc) leaves them: src/run.ts']);
    const text = await repo.workspace.readText('src/run.ts');
    expect(text).toContain("import { loadTheConfigurationFromDiskNow } from './loadTheConfigurationFromDiskNow';");
    expect(text).toContain('  return loadTheConfigurationFromDiskNow(name, {\n    cache: true,\n  });\n');
  });

  it('keeps CRLF line endings of a file Prettier left clean', async () => {
    const crlf = (text: string) => text.replaceAll('\n', '\r\n');
    const repo = await repoWith({ '.prettierrc': '{ "singleQuote": true, "printWidth": 60 }\n', 'src/run.ts': crlf(CLEAN) }, crlf(RENAMED));
    expect(await parity(repo)).toHaveLength(1);
    expect(await repo.workspace.readText('src/run.ts')).toContain('  return loadTheConfigurationFromDiskNow(name, {\r\n    cache: true,\r\n  });\r\n');
  });

  it('leaves a file that was not Prettier-clean before, so lines the change did not touch never move', async () => {
    const messy = CLEAN.replace('  return', '    return');
    const repo = await repoWith(
      { '.prettierrc': '{ "singleQuote": true, "printWidth": 60 }\n', 'src/run.ts': messy },
      messy.replace(/load/g, 'loadTheConfigurationFromDiskNow'),
    );
    expect(await parity(repo)).toEqual([]);
    expect(await repo.workspace.readText('src/run.ts')).toBe(messy.replace(/load/g, 'loadTheConfigurationFromDiskNow'));
  });

  it('does nothing where no Prettier is declared, and says so where the configuration is a script', async () => {
    const none = await repoWith({ 'package.json': '{ "name": "x" }\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await parity(none)).toEqual([]);
    const script = await repoWith({ 'prettier.config.js': 'module.exports = {};\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await parity(script)).toEqual([
      'Prettier is configured in prettier.config.js, which draftsman does not evaluate: the changed files were not reformatted',
    ]);
    expect(await script.workspace.readText('src/run.ts')).toBe(RENAMED);
  });

  it('reads the package.json key and a Prettier dependency with its defaults', async () => {
    const keyed = await createMemoryRepo({ 'package.json': '{ "prettier": { "semi": false, "plugins": ["x"] } }\n' });
    const semi = await declaredPrettier({ workspace: keyed.workspace, loadWasm }, ['a.ts']);
    expect(semi).toMatchObject({ label: 'Prettier (options from package.json)' });
    expect(semi && 'format' in semi ? await semi.format('const a = 1;\n', 'a.ts') : undefined).toBe('const a = 1\n');
    const dep = await createMemoryRepo({ 'package.json': '{ "devDependencies": { "prettier": "^3.0.0" } }\n' });
    expect(await declaredPrettier({ workspace: dep.workspace, loadWasm }, ['a.ts'])).toMatchObject({
      label: 'Prettier (options from package.json (Prettier defaults))',
    });
    expect(await declaredPrettier({ workspace: dep.workspace, loadWasm }, ['a.go'])).toBeUndefined();
  });
});

describe('Biome', () => {
  it('a change to a file Biome formats says Biome was not run, rather than passing silently', async () => {
    const repo = await repoWith({ 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'src/run.ts': CLEAN }, RENAMED);
    expect(await parity(repo)).toEqual(['Biome is configured in biome.json, which draftsman does not run: the changed files were not reformatted']);
    expect(await repo.workspace.readText('src/run.ts')).toBe(RENAMED);
  });
});
