import { describe, expect, it } from 'vitest';
import { MAX_READ_LINES } from '../../../../src/core/pipeline/model-tools/read-tools.js';
import { messageOf, reasonOf, toolBench } from './tool-fixture.js';

// GitHub-token shaped, assembled at run time so no token-like literal sits in the source.
const CANARY = ['gh', 'p_'].join('') + 'Q4z'.repeat(12);
const LONG = Array.from({ length: MAX_READ_LINES + 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

const files = {
  'src/invoice.py': 'def total(items):\n    return sum(i.price for i in items)\n\ndef Total_tax(x):\n    return x\n',
  'src/app/main.ts': 'import { total } from "./total.js";\nexport const value = total([]);\n',
  'lib/legacy.py': 'def total_legacy():\n    pass\n',
  'config/app.yml': `github:\n  token: ${CANARY}\n`,
  'src/long.txt': LONG,
  'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
  'src/link.py': { symlink: 'invoice.py' },
};

describe('file_read', () => {
  it('numbers the lines and reads a range', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    expect(await b.call('file_read', { path: 'src/invoice.py' })).toBe(
      'src/invoice.py lines 1-5 of 5\n1| def total(items):\n2|     return sum(i.price for i in items)\n3| \n4| def Total_tax(x):\n5|     return x',
    );
    expect(await b.call('file_read', { path: './src/invoice.py', startLine: 4, endLine: 9 })).toBe(
      'src/invoice.py lines 4-5 of 5\n4| def Total_tax(x):\n5|     return x',
    );
  });

  it('bounds a long file and says where to continue', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    const out = await b.call('file_read', { path: 'src/long.txt' });
    expect(out.split('\n')[0]).toBe(`src/long.txt lines 1-${MAX_READ_LINES} of ${MAX_READ_LINES + 50}; continue with startLine ${MAX_READ_LINES + 1}`);
    expect(out.split('\n')).toHaveLength(MAX_READ_LINES + 1);
    expect(await b.call('file_read', { path: 'src/long.txt', startLine: MAX_READ_LINES + 49 })).toBe(
      `src/long.txt lines 449-450 of 450\n449| line 449\n450| line 450`,
    );
  });

  it('refuses binaries, symlinks, missing files (naming same-named ones), bad ranges and escaping paths', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    expect(await reasonOf(b.call('file_read', { path: 'assets/logo.png' }))).toBe('NOT_A_TEXT_FILE');
    expect(await reasonOf(b.call('file_read', { path: 'src/link.py' }))).toBe('READ_OUTSIDE_SCOPE');
    expect(await messageOf(b.call('file_read', { path: 'invoice.py' }))).toBe('no such file: invoice.py; files with that name: src/invoice.py');
    expect(await reasonOf(b.call('file_read', { path: 'src/invoice.py', startLine: 9 }))).toBe('LINE_RANGE_INVALID');
    expect(await reasonOf(b.call('file_read', { path: 'src/invoice.py', startLine: 3, endLine: 2 }))).toBe('LINE_RANGE_INVALID');
    expect(await reasonOf(b.call('file_read', { path: '../etc/passwd' }))).toBe('PATH_DOT_DOT');
    expect(await reasonOf(b.call('file_read', { path: '.git/config' }))).toBe('PATH_DOT_GIT');
  });

  it('redacts secrets by the file path before the model sees them', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    const out = await b.call('file_read', { path: 'config/app.yml' });
    expect(out).toContain('token:');
    expect(out).not.toContain(CANARY);
  });
});

describe('code_search', () => {
  it('literal by default, case-sensitive, with path:line evidence', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    expect(await b.call('code_search', { query: 'def total' })).toBe('lib/legacy.py:1: def total_legacy():\nsrc/invoice.py:1: def total(items):');
    expect(await b.call('code_search', { query: 'i.price (' })).toBe('no match');
    expect(await b.call('code_search', { query: 'def total', caseSensitive: false, paths: ['src/**'] })).toBe(
      'src/invoice.py:1: def total(items):\nsrc/invoice.py:4: def Total_tax(x):',
    );
  });

  it('regular expressions (RE2) and path globs', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    expect(await b.call('code_search', { query: '^def \\w+\\(', regex: true, paths: ['**/*.py'] })).toBe(
      'lib/legacy.py:1: def total_legacy():\nsrc/invoice.py:1: def total(items):\nsrc/invoice.py:4: def Total_tax(x):',
    );
    expect(await b.call('code_search', { query: 'total\\(', regex: true, paths: ['src/app/**'] })).toBe('src/app/main.ts:2: export const value = total([]);');
    expect(await b.call('code_search', { query: 'def', paths: ['*.py'] })).toBe('no match');
  });

  it('refuses patterns RE2 cannot run in linear time, and bounds the results', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    expect(await reasonOf(b.call('code_search', { query: 'total(?=\\()', regex: true }))).toBe('REGEX_LOOKAHEAD');
    expect(await reasonOf(b.call('code_search', { query: '(a)\\1', regex: true }))).toBe('REGEX_BACKREFERENCE');
    const out = await b.call('code_search', { query: 'line', paths: ['src/long.txt'], maxResults: 3 });
    expect(out).toBe('src/long.txt:1: line 1\nsrc/long.txt:2: line 2\nsrc/long.txt:3: line 3\n[first 3 matches shown; narrow the query or raise maxResults]');
  });

  it('matches the redacted text: no query tells a redacted secret apart, a character at a time', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    // The token's first characters after its visible prefix, as a probe would guess them.
    for (const probe of [CANARY.slice(0, 8), CANARY.slice(4, 12), 'Q4zQ4z']) expect(await b.call('code_search', { query: probe })).toBe('no match');
    expect(await b.call('code_search', { query: 'ghp_\\w{10}', regex: true })).toBe('no match');
  });

  it('redacts a secret far along a long line, and finds nothing by its characters', async () => {
    const long = `const data = "${'x'.repeat(30_000)}"; const token = "${CANARY}";\n`;
    const b = await toolBench({ ...files, 'src/bundle.js': long }, { segmentPaths: [] });
    expect(await b.call('file_read', { path: 'src/bundle.js' })).not.toContain(CANARY);
    expect(await b.call('code_search', { query: CANARY.slice(0, 10) })).toBe('no match');
    const found = await b.call('code_search', { query: 'const token', paths: ['src/bundle.js'] });
    expect(found).not.toContain(CANARY);
  });

  it('never shows a secret in a matching line', async () => {
    const b = await toolBench(files, { segmentPaths: [] });
    const out = await b.call('code_search', { query: 'token' });
    expect(out).toMatch(/^config\/app.yml:2:   token: /);
    expect(out).not.toContain(CANARY);
  });
});

describe('code_search under the policy rules', () => {
  const rules = (r: Record<string, unknown>[]) => ({ agent: { rules: r } });

  it('leaves out files a deny rule keeps from reading, and says how many', async () => {
    const b = await toolBench(files, {
      segmentPaths: [],
      policy: rules([{ on: 'tool', tools: ['read'], paths: ['config/**'], action: 'deny', reason: 'credentials live there' }]),
    });
    const out = await b.call('code_search', { query: 'token' });
    expect(out).not.toContain('config/app.yml');
    expect(out).toContain("[1 file(s) the repository policy's rules keep from reading were not searched]");
    // What the rules do not cover is searched as before.
    expect(await b.call('code_search', { query: 'def total(', paths: ['src/**'] })).toBe('src/invoice.py:1: def total(items):');
  });

  it('a rule on changes, or on writes, hides nothing', async () => {
    const b = await toolBench(files, {
      segmentPaths: [],
      policy: rules([
        { on: 'change', paths: ['src/**'], action: 'deny', reason: 'reviewed elsewhere' },
        { on: 'tool', tools: ['write'], paths: ['src/**'], action: 'deny', reason: 'no edits' },
      ]),
    });
    expect(await b.call('code_search', { query: 'def total(' })).toBe('src/invoice.py:1: def total(items):');
  });
});
