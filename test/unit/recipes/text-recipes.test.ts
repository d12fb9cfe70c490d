import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { applyRecipeToFile } from '../../../src/core/engines/recipe/apply-recipe-to-file.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const run = (step: Record<string, unknown>, path: string, text: string) => applyRecipeToFile(RecipeStep.parse(step), { path, text }, { syntax });
const textOf = (step: Record<string, unknown>, path: string, text: string) => run(step, path, text)?.text;

describe('replace', () => {
  it('replaces a literal, strings and comments included, respecting identifier boundaries', () => {
    const src = 'const oldName = 1; // oldName\nconst oldNameX = "oldName";\n$oldName; oldName_2;\n';
    expect(textOf({ recipe: 'replace', find: 'oldName', replace: 'newName' }, 'a.ts', src)).toBe(
      'const newName = 1; // newName\nconst oldNameX = "newName";\n$oldName; oldName_2;\n',
    );
  });

  it('ignores boundaries when wordBoundary is false, and does not treat the literal as a pattern', () => {
    expect(textOf({ recipe: 'replace', find: 'a.b', replace: 'c', wordBoundary: false }, 'x.txt', 'a.b axb xa.b')).toBe('c axb xc');
  });

  it('matches a literal with the i flag whatever its case, and one step serves many files', () => {
    const step = { recipe: 'replace', find: 'OldName', replace: 'newName', flags: 'i' };
    expect(textOf(step, 'a.txt', 'oldname OLDNAME')).toBe('newName newName');
    const parsed = RecipeStep.parse({ recipe: 'replace', find: 'pkg5', replace: 'pkg5-renamed' });
    const texts = ['{"name": "pkg5"}', '{"name": "pkg4"}', 'pkg5 pkg55'];
    expect(texts.map((text) => applyRecipeToFile(parsed, { path: 'p.json', text }, { syntax })?.text)).toEqual([
      '{"name": "pkg5-renamed"}',
      undefined,
      'pkg5-renamed pkg55',
    ]);
  });

  it('applies a global regex with flags and $1 groups', () => {
    const step = { recipe: 'replace', find: '^version: (\\d+)\\.(\\d+)$', replace: 'version: $1.$2.0', regex: true, flags: 'mi' };
    expect(textOf(step, 'v.yaml', 'VERSION: 1.2\nversion: 3.4\nx: 1\n')).toBe('version: 1.2.0\nversion: 3.4.0\nx: 1\n');
  });

  it('reports whole changed lines and returns undefined when nothing changes', () => {
    const result = run({ recipe: 'replace', find: 'foo', replace: 'bar' }, 'a.txt', 'x\nfoo foo\ny\n');
    expect(result?.edits).toEqual([{ line: 2, before: 'foo foo', after: 'bar bar' }]);
    expect(run({ recipe: 'replace', find: 'zzz', replace: 'bar' }, 'a.txt', 'x\n')).toBeUndefined();
  });

  it.each([
    ['CRLF line endings', 'a foo\r\nb foo\r\n', 'a bar\r\nb bar\r\n'],
    ['no final newline', 'foo\n\tfoo', 'bar\n\tbar'],
    ['tabs and trailing spaces', '\tfoo  \n\t\tx\t\n', '\tbar  \n\t\tx\t\n'],
    ['a byte order mark', '\uFEFFfoo\n', '\uFEFFbar\n'],
  ])('keeps every byte outside the edit: %s', (_name, before, after) => {
    expect(textOf({ recipe: 'replace', find: 'foo', replace: 'bar' }, 'f.txt', before)).toBe(after);
  });

  it('reports CRLF lines without their line ending', () => {
    expect(run({ recipe: 'replace', find: 'foo', replace: 'bar' }, 'f.txt', 'x\r\nfoo\r\n')?.edits).toEqual([{ line: 2, before: 'foo', after: 'bar' }]);
  });
});

describe('migrate-import', () => {
  const step = { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' };

  it('migrates Java imports (plain, static, wildcard) and qualified uses, at segment boundaries only', () => {
    const src = [
      'package com.acme.javax.persistence;',
      'import javax.persistence.Entity;',
      'import javax.persistence.*;',
      'import static javax.persistence.GenerationType.IDENTITY;',
      'import javax.persistencex.Other;',
      'import javax.persistence;',
      '',
      '@javax.persistence.Table(name = "javax.persistence.Table")',
      'class A {',
      '  // uses javax.persistence.EntityManager',
      '  javax.persistence.EntityManager em;',
      '  Object f = javax.persistence.Persistence.createEntityManagerFactory("x");',
      '  javax.persistencex.Thing t;',
      '}',
      '',
    ].join('\n');
    expect(textOf(step, 'src/A.java', src)).toBe(
      [
        'package com.acme.javax.persistence;',
        'import jakarta.persistence.Entity;',
        'import jakarta.persistence.*;',
        'import static jakarta.persistence.GenerationType.IDENTITY;',
        'import javax.persistencex.Other;',
        'import jakarta.persistence;',
        '',
        '@jakarta.persistence.Table(name = "javax.persistence.Table")',
        'class A {',
        '  // uses javax.persistence.EntityManager',
        '  jakarta.persistence.EntityManager em;',
        '  Object f = jakarta.persistence.Persistence.createEntityManagerFactory("x");',
        '  javax.persistencex.Thing t;',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('migrates TS/JS import, export-from, require and dynamic import, with / as the boundary', () => {
    const s = { recipe: 'migrate-import', from: '@acme/old', to: '@acme/new' };
    const src = [
      "import a from '@acme/old';",
      'import { b } from "@acme/old/sub";',
      "export * from '@acme/old';",
      "import c from '@acme/oldish';",
      "const d = require('@acme/old/x');",
      "const e = await import('@acme/old');",
      "const note = '@acme/old is replaced'; // @acme/old",
      '',
    ].join('\n');
    expect(textOf(s, 'src/a.ts', src)).toBe(
      [
        "import a from '@acme/new';",
        'import { b } from "@acme/new/sub";',
        "export * from '@acme/new';",
        "import c from '@acme/oldish';",
        "const d = require('@acme/new/x');",
        "const e = await import('@acme/new');",
        "const note = '@acme/old is replaced'; // @acme/old",
        '',
      ].join('\n'),
    );
    expect(textOf(s, 'src/a.jsx', "import x from '@acme/old';\nexport const A = () => <div>{x}</div>;\n")).toBe(
      "import x from '@acme/new';\nexport const A = () => <div>{x}</div>;\n",
    );
  });

  it('migrates Python import and from-import, and dotted uses after a plain import', () => {
    const s = { recipe: 'migrate-import', from: 'old.pkg', to: 'new.pkg' };
    const src =
      'import old.pkg.mod\nimport old.pkgx\nfrom old.pkg import thing\nfrom old.pkg.sub import other as o\nprint(old.pkg.mod.run(), "old.pkg")  # old.pkg\n';
    expect(textOf(s, 'app/m.py', src)).toBe(
      'import new.pkg.mod\nimport old.pkgx\nfrom new.pkg import thing\nfrom new.pkg.sub import other as o\nprint(new.pkg.mod.run(), "old.pkg")  # old.pkg\n',
    );
  });

  it('a top-level Python module swapped keeps the name the code uses: import b as a', () => {
    const s = { recipe: 'migrate-import', from: 'simplejson', to: 'json' };
    const src = 'import simplejson\nimport simplejson as sj\nfrom simplejson import loads\n\nprint(simplejson.dumps({}), sj, loads)\n';
    expect(textOf(s, 'app/j.py', src)).toBe('import json as simplejson\nimport json as sj\nfrom json import loads\n\nprint(simplejson.dumps({}), sj, loads)\n');
  });

  it('migrates Go import paths: example.com/foo but never example.com/foobar', () => {
    const s = { recipe: 'migrate-import', from: 'example.com/foo', to: 'example.com/bar' };
    const src = 'package main\n\nimport (\n\t"example.com/foo"\n\tf2 "example.com/foo/v2"\n\t"example.com/foobar"\n)\n\nvar s = "example.com/foo"\n';
    const result = run(s, 'main.go', src);
    expect(result?.text).toBe(
      'package main\n\nimport (\n\t"example.com/bar"\n\tf2 "example.com/bar/v2"\n\t"example.com/foobar"\n)\n\nvar s = "example.com/foo"\n',
    );
    expect(result?.notes).toEqual([]);
  });

  it('keeps CRLF and a missing final newline', () => {
    expect(textOf(step, 'A.java', 'import javax.persistence.Entity;\r\nclass A {}')).toBe('import jakarta.persistence.Entity;\r\nclass A {}');
  });
});

describe('rename-symbol', () => {
  it('renames identifiers but never strings or comments, and says it is not type-aware', () => {
    const src = [
      'import { LegacyClient } from "./legacy";',
      '// LegacyClient is old',
      'const c: LegacyClient = new LegacyClient("LegacyClient");',
      'const o = { LegacyClient, x: c.LegacyClient };',
      'const t = `LegacyClient ${LegacyClient}`;',
      'const LegacyClientX = 1;',
      '',
    ].join('\n');
    const result = run({ recipe: 'rename-symbol', from: 'LegacyClient', to: 'AuthClient' }, 'src/a.ts', src);
    expect(result?.text).toBe(
      [
        'import { AuthClient } from "./legacy";',
        '// LegacyClient is old',
        'const c: AuthClient = new AuthClient("LegacyClient");',
        'const o = { AuthClient, x: c.AuthClient };',
        'const t = `LegacyClient ${AuthClient}`;',
        'const LegacyClientX = 1;',
        '',
      ].join('\n'),
    );
    expect(result?.notes.join('\n')).toMatch(/not type-aware/);
  });

  it.each([
    [
      'Java',
      'A.java',
      'class A { int count; /* count */ String s = "count"; int m() { return count + this.count; } }',
      'class A { int total; /* count */ String s = "count"; int m() { return total + this.total; } }',
    ],
    ['Python', 'a.py', 'count = 1  # count\nprint(count, "count", obj.count)\n', 'total = 1  # count\nprint(total, "count", obj.total)\n'],
    [
      'Go',
      'a.go',
      'package a\n\n// count\ntype T struct{ count int }\n\nfunc f(t T) int { return t.count + len("count") }\n',
      'package a\n\n// count\ntype T struct{ total int }\n\nfunc f(t T) int { return t.total + len("count") }\n',
    ],
  ])('%s: identifiers only', (_lang, path, before, after) => {
    expect(textOf({ recipe: 'rename-symbol', from: 'count', to: 'total' }, path, before)).toBe(after);
  });

  it('leaves files of other languages alone', () => {
    expect(run({ recipe: 'rename-symbol', from: 'count', to: 'total' }, 'README.md', 'count')).toBeUndefined();
  });
});
