import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Query } from 'web-tree-sitter';
import { GENERATORS } from '../../../bench/syntax.bench.js';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { extractTagsFromTree, TAG_QUERY_LIMITS } from '../../../src/core/syntax/extract-tags.js';
import type { SymbolTag, SyntaxLanguage } from '../../../src/core/syntax/types.js';
import { extractTagsByWalk } from './reference-walker.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

/** Tracked files of the repository (fixtures and its own sources), by extension. */
const tracked = (pattern: RegExp): string[] =>
  execFileSync('git', ['ls-files'], { encoding: 'utf8' })
    .split('\n')
    .filter((p) => pattern.test(p));

/** Hand-written sources for forms the repository has few files of. */
const JS_EXTRA = [
  "const { a } = require('./a');\nimport b, { c as d } from \"b\";\nexport * from './e';\nconst lazy = () => import('./lazy');\n",
  'class A extends B {\n  #hidden = 1;\n  static count = 0;\n  @logged method() { return this.run(); }\n  *gen() {}\n}\nconst o = { load() {}, get x() { return 1; } };\nfunction* g() {}\nconst f = function () {}, h = async () => {};\nnew Thing(); new ns.Other();\n',
  'export default class { m() {} }\nconst C = class Named { n() { const inner = () => 1; } };\n@decorate(1) class D {}\n@(x.y) class E {}\n',
];
const TSX_EXTRA = [
  'import React from "react";\nexport function View(props: { items: string[] }) {\n  const [s, setS] = useState<Item | null>(null);\n  return <ul>{props.items.map((x) => <li key={x}>{x.trim()}</li>)}</ul>;\n}\n',
];
const TS_EXTRA = [
  'import x = require("legacy");\nabstract class Q<T extends Base> implements I { abstract run(): void; protected p?: Map<string, T>; }\nenum E { A, B }\nnamespace N { export type Z = ns.Inner.Deep; }\ntype Fn = { (a: number): string; new (): Q<number>; field: Array<{ nested: boolean }> };\n',
];
const PY_EXTRA = [
  'import os.path as p, sys\nfrom . import sibling\n\n@app.route("/x")\n@cached\nclass K(Base):\n    x: Dict[str, List[Item]] = {}\n    def __init__(self, a: int):\n        self.a = a\n        def helper():\n            self.b = 2\n        for i in a:\n            self.c = i\n    @property\n    def __init__(self): self.d = 1\n    def reset(self):\n        self.e = 0\n        self.a = None\n\ndef top(x: "Q") -> Optional[K]:\n    class Local:\n        y = 1\n    return K(x).run()\n',
  // `__init__` under a condition in a class body, in a nested class, and at module level: only a method directly in a class body initialises it.
  'class A:\n    if FLAG:\n        def __init__(self): self.u = 1\n    class B:\n        def __init__(self):\n            self.v = 2\n    def __init__(self): self.w = 3\n\ndef __init__(self):\n    self.x = 4\n',
];
const GO_EXTRA = [
  'package p\n\nimport (\n\tf "fmt"\n\t. "strings"\n)\n\ntype (\n\tList[T any] struct{ head, tail *T; pkg.Embedded }\n\tShape interface{ Area() float64; fmt.Stringer }\n)\n\nfunc (l *List[T]) Push(v T) { f.Println(v); l.head = &v }\nfunc (List[T]) Len() int { return len(x) }\nfunc Free[T comparable](a, b T) bool { return a == b }\n',
  // A receiver type with no type name: still a method, without an owner.
  'package p\n\nfunc (s *struct{}) Odd() {}\n',
];
const JAVA_EXTRA = [
  'package p;\nimport static java.util.Map.*;\nimport java.util. List;\n@Deprecated(since = "1")\npublic record Range<T extends Comparable<T>>(T start, @NonNull T end) implements java.io.Serializable {\n  Range { Objects.requireNonNull(start); }\n  @interface Marker { String value(); }\n  enum Side { LEFT, RIGHT; void flip() {} }\n  int a, b = 2;\n  static <U> List<U> of(Map.Entry<String, U> e) { return Collections.singletonList(e.getValue()); }\n}\n',
];

function sources(language: SyntaxLanguage): { path: string; source: string }[] {
  const files = (pattern: RegExp) => tracked(pattern).map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  const extra = (list: string[]) => list.map((source, i) => ({ path: `extra-${i}`, source }));
  const generated = [0, 1].map((i) => ({ path: `generated-${i}`, source: GENERATORS[language](i) }));
  switch (language) {
    case 'java':
      return [...files(/\.java$/), ...extra(JAVA_EXTRA), ...generated];
    case 'typescript':
      return [...files(/\.ts$/), ...extra(TS_EXTRA), ...generated];
    // TSX and JavaScript have few files here: the TypeScript sources exercise their grammars too (with error recovery where the syntax differs).
    case 'tsx':
      return [...files(/^test\/fixtures\/.*\.ts$/), ...extra([...TSX_EXTRA, ...TS_EXTRA]), ...generated];
    case 'javascript':
      return [...files(/\.(js|mjs|cjs)$/), ...files(/^test\/fixtures\/.*\.ts$/), ...extra(JS_EXTRA), ...generated];
    case 'python':
      return [...files(/\.py$/), ...extra(PY_EXTRA), ...generated];
    case 'go':
      return [...files(/\.go$/), ...extra(GO_EXTRA), ...generated];
    case 'kotlin':
      throw new Error('Kotlin tags are checked against written expectations (kotlin-tags.test.ts)');
  }
}

const LANGUAGES: SyntaxLanguage[] = ['java', 'typescript', 'tsx', 'javascript', 'python', 'go'];

describe('tag queries', () => {
  it.each(LANGUAGES)('%s: the query extractor finds exactly the tags the node walker found', (language) => {
    let compared = 0;
    const kinds = new Set<string>();
    for (const { path, source } of sources(language)) {
      const [byQuery, byWalk] = syntax.withTree(
        language,
        source,
        (tree) => [extractTagsFromTree(language, tree, source), extractTagsByWalk(language, tree, source)] as SymbolTag[][],
      );
      expect(byQuery, path).toEqual(byWalk);
      compared += byWalk.length;
      for (const t of byWalk) kinds.add(t.symbolKind ? `${t.kind}:${t.symbolKind}` : t.kind);
    }
    // The comparison is only worth something if the corpus exercises every kind of tag.
    expect(compared).toBeGreaterThan(200);
    for (const kind of ['definition', 'reference', 'import', 'call'])
      expect(
        [...kinds].some((k) => k.startsWith(kind)),
        kind,
      ).toBe(true);
  });
});

describe('bounded query runs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('every run carries a match limit and a time budget', () => {
    const matches = vi.spyOn(Query.prototype, 'matches');
    syntax.extractTags('a.go', 'package p\nfunc F() {}\n');
    expect(matches).toHaveBeenCalledTimes(1);
    const options = matches.mock.calls[0][1];
    expect(options?.matchLimit).toBe(TAG_QUERY_LIMITS.matchLimit);
    expect(options?.timeoutMicros).toBe(TAG_QUERY_LIMITS.timeoutMicros);
    expect(TAG_QUERY_LIMITS.matchLimit).toBeLessThan(1e5);
    expect(TAG_QUERY_LIMITS.timeoutMicros).toBeGreaterThan(0);
  });

  it('deeply nested declarations keep every tag the walk finds', () => {
    const depth = 1500;
    const cases: [SyntaxLanguage, string][] = [
      ['typescript', Array.from({ length: depth }, (_, i) => `class C${i} { m${i}(a: T${i}) { `).join('\n') + '}}'.repeat(depth)],
      ['java', Array.from({ length: depth }, (_, i) => `class C${i} { @A void m${i}(T${i} a) { x.go(); `).join('\n') + '}}'.repeat(depth)],
    ];
    for (const [language, source] of cases) {
      const [byQuery, byWalk] = syntax.withTree(language, source, (tree) => [
        extractTagsFromTree(language, tree, source),
        extractTagsByWalk(language, tree, source),
      ]);
      expect(byQuery.filter((t) => t.kind === 'definition')).toHaveLength(2 * depth);
      expect(byQuery, language).toEqual(byWalk);
    }
  });
});

describe('tag query compilation', () => {
  it('a grammar that does not fit its language tag query fails the service load with a typed error', async () => {
    const { createSyntaxService } = await import('../../../src/core/syntax/create-syntax-service.js');
    const { createNodeGrammarLoader } = await import('../../../src/app/local/node-grammar-loader.js');
    const base = createNodeGrammarLoader();
    // The Python grammar where the Java one is expected: the Java patterns name node types Python lacks.
    const mismatched = createSyntaxService((name) => base(name === 'java' ? 'python' : name), { languages: ['java'] });
    await expect(mismatched).rejects.toMatchObject({ name: 'SyntaxServiceError', reason: 'TAG_QUERY_INVALID', data: { language: 'java', grammar: 'java' } });
  });
});
