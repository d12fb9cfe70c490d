import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const definitions = (path: string, source: string) =>
  syntax
    .extractTags(path, source)
    .filter((t) => t.kind === 'definition')
    .map((t) => `${t.symbolKind} ${t.scope ? `${t.scope}.` : ''}${t.name}`);

describe('member definitions', () => {
  it('TypeScript: properties of type literals and inline types are fields; object-literal methods are methods', () => {
    const src = [
      'type Options = { shouldDelegate: boolean; run(): void };',
      'function f(o: { inline: number }) {}',
      'const api = { load() {} };',
      'interface I { p: string }',
      '',
    ].join('\n');
    expect(definitions('a.ts', src)).toEqual([
      'type Options',
      'field Options.shouldDelegate',
      'method Options.run',
      'function f',
      'field inline',
      'method load',
      'interface I',
      'field I.p',
    ]);
  });

  it('Java: record components are fields of the record', () => {
    expect(definitions('Range.java', 'record Range(int start, int end) { int length() { return end - start; } }')).toEqual([
      'class Range',
      'field Range.start',
      'field Range.end',
      'method Range.length',
    ]);
  });

  it('Python: attributes assigned to self in __init__ (nested blocks too) are fields; other methods do not declare them', () => {
    const src = [
      'class Batch:',
      '    size = 1',
      '    def __init__(self, items):',
      '        self.items = items',
      '        if items:',
      '            self.first = items[0]',
      '    def reset(self):',
      '        self.other = 2',
      '',
    ].join('\n');
    expect(definitions('b.py', src)).toEqual([
      'class Batch',
      'field Batch.size',
      'method Batch.__init__',
      'field Batch.items',
      'field Batch.first',
      'method Batch.reset',
    ]);
  });
});
