import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipe } from '../../../src/core/engines/recipe/apply-recipe.js';
import { recipeCandidates } from '../../../src/core/engines/recipe/recipe-candidates.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { createMemoryRepo, type MemoryRepoFile } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const decode = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

async function runOn(files: Record<string, MemoryRepoFile>, step: Record<string, unknown>, isEditable: (p: string) => boolean = () => true) {
  const repo = await createMemoryRepo(files);
  const paths = repo.workspace.paths();
  const result = await applyRecipe(RecipeStep.parse(step), repo.workspace, { paths, syntax, isEditable, rules: defaultPathRules() });
  return { repo, result };
}

describe('createMemoryRepo', () => {
  it('gives the same commit for the same files, and a workspace over it', async () => {
    const files = { 'a.txt': 'a\n', 'src/b.ts': 'b\n', link: { symlink: 'a.txt' }, 'run.sh': { content: '#!/bin/sh\n', mode: '100755' as const } };
    const one = await createMemoryRepo(files);
    const two = await createMemoryRepo(files);
    expect(one.commitSha).toBe(two.commitSha);
    expect(one.commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(one.workspace.paths()).toEqual(['a.txt', 'link', 'run.sh', 'src/b.ts']);
    expect(one.workspace.entry('link')?.mode).toBe('120000');
    expect(one.workspace.entry('run.sh')?.mode).toBe('100755');
    expect(await one.workspace.readText('src/b.ts')).toBe('b\n');
    expect((await createMemoryRepo({ 'a.txt': 'other\n' })).commitSha).not.toBe(one.commitSha);
  });
});

describe('applyRecipe', () => {
  it('writes through the workspace, keeping CRLF, BOM and a missing final newline byte for byte', async () => {
    const original = '\uFEFFclass A {\r\n\tvoid oldName() {}\r\n}';
    const { repo, result } = await runOn({ 'A.java': original, 'B.java': 'class B {}\n' }, { recipe: 'rename-symbol', from: 'oldName', to: 'newName' });
    expect(result.changedFiles).toEqual([{ path: 'A.java', edits: [{ line: 2, before: '\tvoid oldName() {}', after: '\tvoid newName() {}' }] }]);
    expect(decode(await repo.workspace.read('A.java'))).toBe('\uFEFFclass A {\r\n\tvoid newName() {}\r\n}');
    expect(repo.workspace.changes().map((c) => c.path)).toEqual(['A.java']);
    expect(result.notes.join('\n')).toMatch(/not type-aware/);
  });

  it('skips binary, non-editable, symlinked and lock files, and reports why', async () => {
    const { repo, result } = await runOn(
      {
        'bin.dat': new Uint8Array([0x66, 0x6f, 0x6f, 0x00, 0x66, 0x6f, 0x6f]),
        'gen/out.txt': 'foo\n',
        'link.txt': { symlink: 'real.txt' },
        'package-lock.json': '{"foo": 1}\n',
        'real.txt': 'foo\n',
        'latin1.txt': new Uint8Array([0x66, 0x6f, 0x6f, 0xe9]),
      },
      { recipe: 'replace', find: 'foo', replace: 'bar' },
      (p) => !p.startsWith('gen/'),
    );
    expect(result.changedFiles.map((f) => f.path)).toEqual(['real.txt']);
    expect(result.skipped).toEqual([
      { path: 'bin.dat', reason: 'BINARY' },
      { path: 'gen/out.txt', reason: 'NOT_EDITABLE' },
      { path: 'latin1.txt', reason: 'NOT_UTF8' },
      { path: 'link.txt', reason: 'NOT_A_REGULAR_FILE' },
    ]);
    expect(
      recipeCandidates(RecipeStep.parse({ recipe: 'replace', find: 'foo', replace: 'bar' }), ['package-lock.json', 'a.txt'], defaultPathRules().isLockfile),
    ).toEqual(['a.txt']);
    expect(await repo.workspace.readText('gen/out.txt')).toBe('foo\n');
  });

  it('edits a version property defined in the parent pom, and reports no lockfile for Maven', async () => {
    const parent =
      '<project>\n  <properties>\n    <guava.version>32.0.0-jre</guava.version>\n  </properties>\n  <modules><module>core</module></modules>\n</project>\n';
    const child =
      '<project>\n  <parent><groupId>g</groupId><artifactId>root</artifactId><version>1</version></parent>\n  <dependencies>\n    <dependency>\n      <groupId>com.google.guava</groupId>\n      <artifactId>guava</artifactId>\n      <version>${guava.version}</version>\n    </dependency>\n  </dependencies>\n</project>\n';
    const { repo, result } = await runOn(
      { 'pom.xml': parent, 'core/pom.xml': child },
      { recipe: 'bump-dependency', package: 'com.google.guava:guava', to: '33.2.1-jre' },
    );
    expect(result.changedFiles).toEqual([
      {
        path: 'pom.xml',
        edits: [{ line: 3, before: '    <guava.version>32.0.0-jre</guava.version>', after: '    <guava.version>33.2.1-jre</guava.version>' }],
      },
    ]);
    expect(await repo.workspace.readText('core/pom.xml')).toBe(child);
    expect(result.lockfilesToRefresh).toEqual([]);
  });

  it('says when a parent pom property lies outside the scope', async () => {
    const repo = await createMemoryRepo({
      'pom.xml': '<project><properties><a.version>1</a.version></properties></project>',
      'core/pom.xml':
        '<project><parent><groupId>g</groupId><artifactId>r</artifactId></parent><dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>${a.version}</version></dependency></dependencies></project>',
    });
    const result = await applyRecipe(RecipeStep.parse({ recipe: 'bump-dependency', package: 'g:a', to: '2' }), repo.workspace, {
      paths: ['core/pom.xml'],
      syntax,
      isEditable: () => true,
      rules: defaultPathRules(),
    });
    expect(result.changedFiles).toEqual([]);
    expect(result.notes.join('\n')).toMatch(/defined in pom.xml, outside the scope/);
  });

  it('never edits lockfiles and says which to refresh with which command', async () => {
    const { repo, result } = await runOn(
      {
        'package.json': '{\n  "dependencies": { "left-pad": "^1.1.0" }\n}\n',
        'package-lock.json': '{"packages": {"node_modules/left-pad": {"version": "1.1.0"}}}\n',
        'web/package.json': '{"devDependencies": {"left-pad": "1.1.0"}}',
        'Cargo.toml': '[dependencies]\nleft-pad = "1.1.0"\n',
        'Cargo.lock': '[[package]]\nname = "left-pad"\nversion = "1.1.0"\n',
      },
      { recipe: 'bump-dependency', package: 'left-pad', to: '1.3.0' },
    );
    expect(result.changedFiles.map((f) => f.path)).toEqual(['Cargo.toml', 'package.json', 'web/package.json']);
    expect(await repo.workspace.readText('web/package.json')).toBe('{"devDependencies": {"left-pad": "1.3.0"}}');
    expect(await repo.workspace.readText('package-lock.json')).toContain('"1.1.0"');
    expect(result.lockfilesToRefresh).toEqual([
      { lockfile: 'Cargo.lock', command: 'cargo update -p left-pad' },
      { lockfile: 'package-lock.json', command: 'npm install --package-lock-only' },
    ]);
  });

  it('reports go.sum, pnpm and poetry lockfiles by directory', async () => {
    const { result } = await runOn(
      {
        'svc/go.mod': 'module x\n\nrequire example.com/lib v1.0.0\n',
        'svc/go.sum': 'example.com/lib v1.0.0 h1:x\n',
      },
      { recipe: 'bump-dependency', package: 'example.com/lib', to: 'v1.1.0' },
    );
    expect(result.lockfilesToRefresh).toEqual([{ lockfile: 'svc/go.sum', command: 'go mod tidy (in svc)' }]);
  });

  it('renames with a kind only when a definition of that kind exists in scope', async () => {
    const files = { 'a.ts': 'export function load() {}\nload();\n', 'b.ts': 'import { load } from "./a";\nload();\n' };
    const none = await runOn(files, { recipe: 'rename-symbol', from: 'load', to: 'fetchAll', kind: 'class' });
    expect(none.result.changedFiles).toEqual([]);
    expect(none.result.notes.join('\n')).toMatch(/no class named load/);
    const some = await runOn(files, { recipe: 'rename-symbol', from: 'load', to: 'fetchAll', kind: 'function' });
    expect(some.result.changedFiles.map((f) => f.path)).toEqual(['a.ts', 'b.ts']);
    expect(await some.repo.workspace.readText('b.ts')).toBe('import { fetchAll } from "./a";\nfetchAll();\n');
  });

  it('gives the same output for the same input', async () => {
    const files = { 'A.java': 'import javax.persistence.Entity;\nclass A { javax.persistence.Id id; }\n', 'b.py': 'import javax.persistence\n' };
    const step = { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' };
    const one = await runOn(files, step);
    const two = await runOn(files, step);
    expect(one.result).toEqual(two.result);
    expect(await one.repo.workspace.readText('A.java')).toBe('import jakarta.persistence.Entity;\nclass A { jakarta.persistence.Id id; }\n');
  });

  it('selects candidates by language and manifest type', () => {
    const paths = [
      'pom.xml',
      'build.gradle.kts',
      'package.json',
      'go.mod',
      'requirements.txt',
      'Cargo.toml',
      'src/A.java',
      'src/b.ts',
      'README.md',
      'yarn.lock',
    ];
    expect(recipeCandidates(RecipeStep.parse({ recipe: 'bump-dependency', package: 'g:a', to: '1' }), paths, defaultPathRules().isLockfile)).toEqual([
      'build.gradle.kts',
      'pom.xml',
    ]);
    expect(recipeCandidates(RecipeStep.parse({ recipe: 'bump-dependency', package: 'lodash', to: '1' }), paths, defaultPathRules().isLockfile)).toEqual([
      'Cargo.toml',
      'build.gradle.kts',
      'go.mod',
      'package.json',
      'requirements.txt',
    ]);
    // A Kotlin build script is Kotlin source: its imports move too.
    expect(recipeCandidates(RecipeStep.parse({ recipe: 'migrate-import', from: 'a', to: 'b' }), paths, defaultPathRules().isLockfile)).toEqual([
      'build.gradle.kts',
      'src/A.java',
      'src/b.ts',
    ]);
  });
});
