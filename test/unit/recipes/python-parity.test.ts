import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService({ languages: ['python'] });
});

// Black-clean at line length 60, with single quotes kept where a project skips string normalisation.
const CLEAN = ['from app.store import load', '', '', 'def run(name):', '    return load(name, cache=True, retries=3)', ''].join('\n');
const rename = { recipe: 'rename-symbol', from: 'load', to: 'load_the_configuration_from_disk' };
const WRAPPED = [
  'from app.store import load_the_configuration_from_disk',
  '',
  '',
  'def run(name):',
  '    return load_the_configuration_from_disk(',
  '        name, cache=True, retries=3',
  '    )',
  '',
].join('\n');

async function renamed(files: Record<string, string>) {
  const run = await runRecipeStep(syntax, { 'app/store.py': 'def load(name, **options):\n    return name\n', 'app/run.py': CLEAN, ...files }, rename);
  return { text: await run.text('app/run.py'), notes: run.result.notes };
}

describe('Python formatter parity (black, ruff format)', () => {
  it('a [tool.black] table: the changed file comes out as black prints it at the declared line length', async () => {
    const result = await renamed({ 'pyproject.toml': '[tool.black]\nline-length = 60\n' });
    expect(result.text).toBe(WRAPPED);
    expect(result.notes).toContain('formatted as black (options from pyproject.toml [tool.black]) leaves them: app/run.py');
  });

  it('ruff format options: quote style and line length from ruff.toml', async () => {
    const single = CLEAN.replace('cache=True', "cache='x'");
    const result = await renamed({ 'ruff.toml': 'line-length = 60\n[format]\nquote-style = "single"\n', 'app/run.py': single });
    expect(result.text).toBe(WRAPPED.replace('cache=True', "cache='x'"));
    expect(result.notes).toContain('formatted as ruff format (options from ruff.toml) leaves them: app/run.py');
  });

  it('a pre-commit black hook with black defaults (line length 88): a short change stays on one line', async () => {
    const hooks = 'repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n';
    const result = await renamed({ '.pre-commit-config.yaml': hooks });
    expect(result.text).toBe(CLEAN.replaceAll('load', 'load_the_configuration_from_disk'));
  });

  it('leaves the file as the recipe wrote it where no formatter is declared, or where the file was not clean before', async () => {
    const long = CLEAN.replaceAll('load', 'load_the_configuration_from_disk');
    expect((await renamed({})).text).toBe(long);
    const messy = CLEAN.replace('cache=True', 'cache = True');
    const unclean = await renamed({ 'pyproject.toml': '[tool.black]\nline-length = 60\n', 'app/run.py': messy });
    expect(unclean.text).toBe(messy.replaceAll('load', 'load_the_configuration_from_disk'));
    expect(unclean.notes.join('\n')).not.toContain('formatted as');
  });
});
