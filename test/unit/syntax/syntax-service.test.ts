import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { createSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { SyntaxServiceError } from '../../../src/core/syntax/syntax-error.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const JAVA = `package com.acme.auth;

import com.acme.legacy.LegacyAuthClient;
import static org.junit.Assert.assertEquals;
import javax.persistence.*;

@RestController
@Path("/tokens")
public class TokenService implements TokenPort {
  private final LegacyAuthClient client;

  public String refresh(String code) {
    String a = client.exchangeToken(code);
    return LegacyAuthClient.exchangeToken(a);
  }
}
`;

const brief = (tags: ReturnType<TreeSyntaxService['extractTags']>) =>
  tags.map((t) => [t.kind, t.symbolKind ?? '', t.name, t.scope ?? t.receiver ?? '', `${t.line}:${t.column}`].join(' '));

describe('extractTags', () => {
  it('reads definitions, references, imports, calls and annotations of a Java class', () => {
    expect(brief(syntax.extractTags('src/TokenService.java', JAVA))).toEqual([
      'import  com.acme.legacy.LegacyAuthClient  3:8',
      'import  org.junit.Assert.assertEquals  4:15',
      'import  javax.persistence.*  5:8',
      'annotation  RestController  7:1',
      'annotation  Path  8:1',
      'definition class TokenService  9:14',
      'reference  TokenPort  9:38',
      'reference  LegacyAuthClient  10:17',
      'definition field client TokenService 10:34',
      'reference  String  12:10',
      'definition method refresh TokenService 12:17',
      'reference  String  12:25',
      'reference  String  13:5',
      'call  exchangeToken client 13:23',
      'reference  LegacyAuthClient  14:12',
      'call  exchangeToken LegacyAuthClient 14:29',
    ]);
    const call = syntax.extractTags('src/TokenService.java', JAVA).find((t) => t.kind === 'call' && t.receiver === 'LegacyAuthClient');
    expect(call?.snippet).toBe('return LegacyAuthClient.exchangeToken(a);');
  });

  it('reads TypeScript imports of every form, decorators, classes and members', () => {
    const src = [
      "import { a } from 'lib/a';",
      "export { b } from './b';",
      "const c = require('c');",
      "async function load() { return import('d/e'); }",
      '@Component({})',
      'class Widget extends Base {',
      '  size: Size = 1;',
      '  render(): void { this.view.draw(); }',
      '}',
      'interface Shape { area(): number }',
    ].join('\n');
    expect(brief(syntax.extractTags('src/w.ts', src))).toEqual([
      'import  lib/a  1:19',
      'import  ./b  2:19',
      'import  c  3:19',
      'definition function load  4:16',
      'import  d/e  4:39',
      'annotation  Component  5:1',
      'call  Component  5:2',
      'definition class Widget  6:7',
      'definition field size Widget 7:3',
      'reference  Size  7:9',
      'definition method render Widget 8:3',
      'call  draw this.view 8:30',
      'definition interface Shape  10:11',
      'definition method area Shape 10:19',
    ]);
  });

  it('reads Python and Go', () => {
    const py =
      'import os.path, json as j\nfrom app.models import User\n\n@dataclass\nclass Repo(Base):\n    limit: int = 3\n    def find(self, user: User) -> None:\n        self.db.query(user)\n';
    expect(brief(syntax.extractTags('app/repo.py', py))).toEqual([
      'import  os.path  1:8',
      'import  json  1:17',
      'import  app.models  2:6',
      'annotation  dataclass  4:1',
      'definition class Repo  5:7',
      'definition field limit Repo 6:5',
      'reference  int  6:12',
      'definition method find Repo 7:9',
      'reference  User  7:26',
      'call  query self.db 8:17',
    ]);
    const go =
      'package main\n\nimport (\n\tf "fmt"\n\t"example.com/foo/bar"\n)\n\ntype Server struct {\n\tAddr string\n}\n\nfunc (s *Server) Start() { f.Println(s.Addr) }\n';
    expect(brief(syntax.extractTags('main.go', go))).toEqual([
      'import  fmt  4:4',
      'import  example.com/foo/bar  5:2',
      'definition type Server  8:6',
      'definition field Addr Server 9:2',
      'reference  string  9:7',
      'reference  Server  12:10',
      'definition method Start Server 12:18',
      'call  Println f 12:30',
    ]);
  });

  it('returns nothing for files it has no grammar for', () => {
    expect(syntax.extractTags('README.md', '# hi')).toEqual([]);
    expect(syntax.languageFor('x.jsx')).toBe('javascript');
    expect(syntax.languageFor('x.mts')).toBe('typescript');
    expect(syntax.languageFor('x.tsx')).toBe('tsx');
  });
});

describe('parseProblems', () => {
  it.each([
    ['Broken.java', 'class A {\n  void m() {\n    int x = ;\n  }\n}\n', 3],
    ['broken.ts', 'const a = 1;\nfunction f( {\n  return a;\n}\n', 2],
    ['broken.py', 'def ok():\n    return 1\n\ndef bad(:\n    pass\n', 4],
    ['broken.go', 'package main\n\nfunc main() {\n\tx := \n}\n', 4],
    ['broken.json', '{\n  "a": 1,\n  "b": \n}\n', 4],
    ['broken.yaml', 'a: 1\nb: [1, 2\nc: 3\n', 3],
    ['bad-indent.yaml', 'a:\n  b: 1\n c: 2\n', 3],
    ['broken.toml', '[package]\nname = "x"\nversion = \n', 3],
    ['pom.xml', '<project>\n  <version>1</version>\n  <name>x</nam>\n</project>\n', 3],
  ])('%s has a problem on line %i', (path, source, line) => {
    const problems = syntax.parseProblems(path, source);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0].line).toBe(line);
  });

  it.each([
    ['Ok.java', 'class A { void m() { int x = 1; } }\n'],
    ['ok.tsx', 'export const A = () => <div className="a">{1}</div>;\n'],
    ['ok.py', 'def f():\n    return 1\n'],
    ['ok.go', 'package main\n\nfunc main() {}\n'],
    ['ok.json', '{"a": [1, 2]}'],
    ['tsconfig.json', '{\n  // comments are allowed here\n  "compilerOptions": { "strict": true, },\n}\n'],
    ['ok.yml', 'a: 1\n---\nb: 2\n'],
    ['Cargo.toml', '[package]\nname = "x"\n'],
    ['pom.xml', '<project><version>1</version></project>'],
    ['notes.txt', 'anything {'],
  ])('%s parses cleanly', (path, source) => {
    expect(syntax.parseProblems(path, source)).toEqual([]);
  });

  it('reports a MISSING node with its position', () => {
    const problems = syntax.parseProblems('a.ts', 'if (x {\n}\n');
    expect(problems.some((p) => p.type === 'MISSING_NODE' && p.line === 1)).toBe(true);
  });
});

describe('createSyntaxService', () => {
  it('loads only the grammars asked for, through the loader', async () => {
    const asked: string[] = [];
    const base = (await import('../../../src/app/local/node-grammar-loader.js')).createNodeGrammarLoader();
    const service = await createSyntaxService(
      async (name) => {
        asked.push(name);
        return base(name);
      },
      { languages: ['go'] },
    );
    // The runtime is process-wide and already loaded by the other tests: only the grammar is asked for.
    expect(asked).toEqual(['go']);
    expect(service.languageFor('a.go')).toBe('go');
    expect(service.languageFor('A.java')).toBeUndefined();
  });

  it('wraps a grammar that cannot load in a typed error', async () => {
    const base = (await import('../../../src/app/local/node-grammar-loader.js')).createNodeGrammarLoader();
    const failing = createSyntaxService(async (name) => (name === 'tree-sitter' ? base(name) : new Uint8Array([0, 1, 2])), { languages: ['java'] });
    await expect(failing).rejects.toBeInstanceOf(SyntaxServiceError);
    await expect(failing).rejects.toMatchObject({ reason: 'GRAMMAR_LOAD_FAILED' });
  });

  it('reads grammars from a wasm directory when one is given', async () => {
    const { createNodeGrammarLoader } = await import('../../../src/app/local/node-grammar-loader.js');
    const loader = createNodeGrammarLoader({ wasmDir: '/nonexistent-wasm-dir' });
    await expect(loader('java')).rejects.toMatchObject({ code: 'ENOENT', path: '/nonexistent-wasm-dir/tree-sitter-java.wasm' });
    await expect(loader('gofmt')).rejects.toMatchObject({ code: 'ENOENT', path: '/nonexistent-wasm-dir/gofmt.wasm' });
    await expect(loader('../etc')).rejects.toThrow(/no wasm file for \.\.\/etc/);
    await expect(loader('constructor')).rejects.toThrow(/no wasm file for constructor/);
  });
});
