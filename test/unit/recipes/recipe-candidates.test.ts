import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { recipeMatches } from '../../../src/core/engines/recipe/recipe-candidates.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const matches = (step: Record<string, unknown>, path: string, text: string) =>
  recipeMatches(RecipeStep.parse(step), { path, text }, { syntax }, defaultPathRules().isLockfile);

describe('recipeMatches: where the engine would edit, without writing', () => {
  it('migrate-import matches the import and the qualified use, not the package clause or a comment', () => {
    const text = 'package com.acme.order;\n// com.acme.old is gone\nimport com.acme.auth.Client;\nclass A { com.acme.auth.Token t; }\n';
    expect(matches({ recipe: 'migrate-import', from: 'com.acme', to: 'org.acme' }, 'src/A.java', text)).toEqual([
      { line: 3, snippet: 'import com.acme.auth.Client;', detail: 'becomes import org.acme.auth.Client;' },
      { line: 4, snippet: 'class A { com.acme.auth.Token t; }', detail: 'becomes class A { org.acme.auth.Token t; }' },
    ]);
    expect(matches({ recipe: 'migrate-import', from: 'com.acme', to: 'org.acme' }, 'src/B.java', 'package com.acme.order;\nclass B {}\n')).toEqual([]);
  });

  it('rename-symbol matches identifiers, not strings', () => {
    const text = 'const usersRouter = 1;\nconsole.log("usersRouter");\nexport { usersRouter };\n';
    expect(matches({ recipe: 'rename-symbol', from: 'usersRouter', to: 'userRoutes' }, 'a.ts', text).map((m) => m.line)).toEqual([1, 3]);
  });

  it('bump-dependency matches the declaration in a manifest of its kind, never a lockfile', () => {
    const pkg = '{\n  "dependencies": {\n    "express": "^4.18.0"\n  }\n}\n';
    expect(matches({ recipe: 'bump-dependency', package: 'express', to: '^5.0.0' }, 'package.json', pkg)).toEqual([
      { line: 3, snippet: '"express": "^4.18.0"', detail: 'becomes "express": "^5.0.0"' },
    ]);
    expect(matches({ recipe: 'bump-dependency', package: 'express', to: '^5.0.0' }, 'README.md', pkg)).toEqual([]);
    expect(matches({ recipe: 'replace', find: 'express', replace: 'x' }, 'package-lock.json', pkg)).toEqual([]);
  });

  it('a pom whose version is a parent property matches at the property use', () => {
    const pom =
      '<project>\n  <parent><artifactId>p</artifactId></parent>\n  <dependencies>\n    <dependency>\n      <groupId>g</groupId>\n      <artifactId>a</artifactId>\n      <version>${a.version}</version>\n    </dependency>\n  </dependencies>\n</project>\n';
    expect(matches({ recipe: 'bump-dependency', package: 'g:a', to: '2.0' }, 'child/pom.xml', pom)).toEqual([
      { line: 7, snippet: '<version>${a.version}</version>', detail: 'version property ${a.version} is defined in a parent pom' },
    ]);
  });
});
