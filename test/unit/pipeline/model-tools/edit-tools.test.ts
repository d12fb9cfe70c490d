import { describe, expect, it } from 'vitest';
import { MAX_WHOLE_WRITE_BYTES } from '../../../../src/core/pipeline/model-tools/edit-tools.js';
import { sha256Hex } from '../../../../src/core/util/digest.js';
import { messageOf, reasonOf, toolBench } from './tool-fixture.js';

const INVOICE = [
  'def total(items):',
  '    result = 0',
  '    for item in items:',
  '        result += item.price',
  '    return result',
  '',
  'def count(items):',
  '    result = 0',
  '    for item in items:',
  '        result += 1',
  '    return result',
  '',
].join('\n');

const files = {
  'src/invoice.py': INVOICE,
  'src/util.py': 'def helper():\n    return 1\n',
  'src/link.py': { symlink: 'util.py' },
  'src/big.ts': `export const big = [\n${'  1,\n'.repeat(MAX_WHOLE_WRITE_BYTES / 4)}];\n`,
  'src/crlf.ts': 'export function a() {\r\n  return 1;\r\n}\r\n',
  'src/package-lock.json': '{}\n',
  'docs/notes.md': '# notes\n',
  '.github/workflows/ci.yml': 'name: ci\n',
  ci: { symlink: '.github/workflows' },
};

const segmentPaths = ['src/invoice.py', 'src/util.py', 'src/link.py', 'src/big.ts', 'src/crlf.ts', 'src/package-lock.json', 'docs/notes.md', 'ci/deploy.yml'];

async function bench() {
  return toolBench(files, { segmentPaths, taskPaths: ['src/**', 'ci/**'] });
}

describe('file_edit', () => {
  it('replaces the one occurrence, reports the line and a clean parse, and ledgers the edit with the digest of the result', async () => {
    const b = await bench();
    const out = await b.call('file_edit', {
      path: 'src/invoice.py',
      oldText: '        result += item.price',
      newText: '        result += item.price * item.quantity',
    });
    const after = INVOICE.replace('item.price', 'item.price * item.quantity');
    expect(out).toBe('edited src/invoice.py: replaced 1 occurrence(s) at line(s) 4\nparse: ok');
    expect(await b.repo.workspace.readText('src/invoice.py')).toBe(after);
    expect(b.written.get('src/invoice.py')).toBe(1);
    const edits = b.ledger.entries().filter((e) => e.type === 'EDIT_APPLIED');
    expect(edits.map((e) => e.payload)).toEqual([
      {
        segment: 'seg-1',
        edit: 1,
        tool: 'file_edit',
        path: 'src/invoice.py',
        bytesBefore: INVOICE.length,
        bytesAfter: after.length,
        sha256After: sha256Hex(after),
      },
    ]);
  });

  it('returns the parse problems an edit introduces, with their lines', async () => {
    const b = await bench();
    const out = await b.call('file_edit', { path: 'src/invoice.py', oldText: 'def total(items):', newText: 'def total(items:' });
    expect(out).toMatch(
      /^edited src\/invoice.py: replaced 1 occurrence\(s\) at line\(s\) 1\nparse problems: \d+; fix them before finishing\n {2}line \d+, column \d+: (SYNTAX_ERROR|MISSING_NODE): /,
    );
  });

  it('no occurrence: EDIT_NO_MATCH with the closest lines, and a hint when only whitespace differs', async () => {
    const b = await bench();
    const missing = b.call('file_edit', { path: 'src/invoice.py', oldText: 'result += item.cost', newText: 'x' });
    expect(await reasonOf(missing)).toBe('EDIT_NO_MATCH');
    const message = await messageOf(b.call('file_edit', { path: 'src/invoice.py', oldText: 'result += item.cost', newText: 'x' }));
    expect(message).toContain('closest lines:\n4|         result += item.price');
    const indented = await messageOf(b.call('file_edit', { path: 'src/invoice.py', oldText: 'result = 0\n  for item in items:', newText: 'x' }));
    expect(indented).toContain('it does when whitespace is ignored');
    const numbered = await messageOf(b.call('file_edit', { path: 'src/invoice.py', oldText: '2|     result = 0\n3|     for item in items:', newText: 'x' }));
    expect(numbered).toContain('it starts with a line number from file_read: leave the numbers out');
    expect(b.ledger.entries()).toEqual([]);
    expect(await b.repo.workspace.readText('src/invoice.py')).toBe(INVOICE);
  });

  it('several occurrences: EDIT_AMBIGUOUS naming their lines, unless replaceAll', async () => {
    const b = await bench();
    const ambiguous = b.call('file_edit', { path: 'src/invoice.py', oldText: 'result = 0', newText: 'result = 0.0' });
    expect(await reasonOf(ambiguous)).toBe('EDIT_AMBIGUOUS');
    expect(await messageOf(b.call('file_edit', { path: 'src/invoice.py', oldText: 'result = 0', newText: 'result = 0.0' }))).toContain(
      'occurs 2 times in src/invoice.py, at lines 2, 8',
    );
    const out = await b.call('file_edit', { path: 'src/invoice.py', oldText: 'result = 0', newText: 'result = 0.0', replaceAll: true });
    expect(out).toContain('replaced 2 occurrence(s) at line(s) 2, 8');
    expect(await b.repo.workspace.readText('src/invoice.py')).toBe(INVOICE.replaceAll('result = 0', 'result = 0.0'));
  });

  it('keeps CRLF line ends when the model sends LF', async () => {
    const b = await bench();
    await b.call('file_edit', { path: 'src/crlf.ts', oldText: 'function a() {\n  return 1;', newText: 'function a() {\n  return 2;' });
    expect(await b.repo.workspace.readText('src/crlf.ts')).toBe('export function a() {\r\n  return 2;\r\n}\r\n');
  });

  it('refuses an edit that changes nothing', async () => {
    const b = await bench();
    expect(await reasonOf(b.call('file_edit', { path: 'src/util.py', oldText: 'return 1', newText: 'return 1' }))).toBe('EDIT_NO_CHANGE');
  });
});

describe('the edit ledger', () => {
  it('a resumed segment replaying its edits does not ledger them twice; a different edit is ledgered', async () => {
    const first = await bench();
    await first.call('file_edit', { path: 'src/util.py', oldText: 'return 1', newText: 'return 2' });
    const resumed = await toolBench(files, { segmentPaths, taskPaths: ['src/**', 'ci/**'], ledger: first.ledger });
    await resumed.call('file_edit', { path: 'src/util.py', oldText: 'return 1', newText: 'return 2' });
    await resumed.call('file_edit', { path: 'src/util.py', oldText: 'return 2', newText: 'return 3' });
    expect(first.ledger.entries().map((e) => [e.payload.edit, e.payload.sha256After])).toEqual([
      [1, sha256Hex('def helper():\n    return 2\n')],
      [2, sha256Hex('def helper():\n    return 3\n')],
    ]);
  });
});

describe('file_create, file_delete, file_write', () => {
  it('creates a file beside a segment file, refuses an existing one and one elsewhere', async () => {
    const b = await bench();
    expect(await b.call('file_create', { path: 'src/test_invoice.py', content: 'def test_total():\n    pass\n' })).toBe(
      'created src/test_invoice.py (27 bytes)\nparse: ok',
    );
    expect(b.repo.workspace.entry('src/test_invoice.py')).toBeDefined();
    expect(await reasonOf(b.call('file_create', { path: 'src/util.py', content: 'x' }))).toBe('FILE_EXISTS');
    expect(await reasonOf(b.call('file_create', { path: 'lib/new.py', content: 'x = 1\n' }))).toBe('FILE_NOT_ALLOWED');
    expect(b.ledger.entries().map((e) => [e.payload.tool, e.payload.path])).toEqual([['file_create', 'src/test_invoice.py']]);
  });

  it('deletes a segment file and ledgers it with no digest after', async () => {
    const b = await bench();
    expect(await b.call('file_delete', { path: 'src/util.py' })).toBe('deleted src/util.py');
    expect(b.repo.workspace.entry('src/util.py')).toBeUndefined();
    expect(b.ledger.entries()[0].payload).toMatchObject({ tool: 'file_delete', path: 'src/util.py', bytesAfter: 0, sha256After: null });
  });

  it('writes whole small files and refuses a large one, pointing at file_edit', async () => {
    const b = await bench();
    expect(await b.call('file_write', { path: 'src/util.py', content: 'def helper():\n    return 2\n' })).toBe('wrote src/util.py\nparse: ok');
    const big = b.call('file_write', { path: 'src/big.ts', content: 'export const big = [];\n' });
    expect(await reasonOf(big)).toBe('WHOLE_WRITE_TOO_LARGE');
    expect(await messageOf(b.call('file_write', { path: 'src/big.ts', content: '' }))).toContain('change it with file_edit');
  });
});

describe('every edit passes the same gate', () => {
  it.each([
    ['file_write', { path: 'ci/deploy.yml', content: 'name: pwned\n' }, 'WORKFLOW_CHANGE_NOT_PERMITTED'],
    ['file_create', { path: 'ci/deploy.yml', content: 'name: pwned\n' }, 'WORKFLOW_CHANGE_NOT_PERMITTED'],
    ['file_write', { path: 'src/link.py', content: 'x' }, 'SYMLINK_NOT_EDITABLE'],
    ['file_edit', { path: 'src/package-lock.json', oldText: '{}', newText: '{"a":1}' }, 'LOCKFILE_NOT_ALLOWED'],
    ['file_write', { path: 'docs/notes.md', content: '# x\n' }, 'OUT_OF_SCOPE'],
    ['file_write', { path: '.github/workflows/ci.yml', content: 'x' }, 'FILE_NOT_ALLOWED'],
    ['file_delete', { path: 'src/../ci/deploy.yml' }, 'PATH_DOT_DOT'],
    ['file_edit', { path: 'src/other.py', oldText: 'a', newText: 'b' }, 'FILE_NOT_ALLOWED'],
  ])('%s %j is refused: %s, nothing written or ledgered', async (tool, args, reason) => {
    const b = await bench();
    expect(await reasonOf(b.call(tool, args))).toBe(reason);
    expect(b.repo.workspace.changes()).toEqual([]);
    expect(b.written.size).toBe(0);
    expect(b.ledger.entries()).toEqual([]);
  });

  it('refuses edits over the policy size limit', async () => {
    const text = `export const a = 1;\n// ${'x'.repeat(1024 * 1024)}\n`;
    const b = await toolBench({ 'src/a.ts': text }, { segmentPaths: ['src/a.ts'], policy: { ingestion: { maxFileSizeMb: 1 } } });
    expect(await reasonOf(b.call('file_edit', { path: 'src/a.ts', oldText: 'a = 1', newText: 'a = 2' }))).toBe('FILE_NOT_ALLOWED');
    expect(b.repo.workspace.changes()).toEqual([]);
  });
});
