import { describe, expect, it } from 'vitest';
import { hostileNameKind } from '../../../src/core/ingestion/hostile-entry.js';
import { applyDelta } from '../../../src/core/ingestion/pack-catalog.js';
import { parseGitmodules, scanAttributes } from '../../../src/core/ingestion/policy-scan.js';
import { parseTreeEntries } from '../../../src/core/ingestion/tree-entries.js';
import { identityFromUrl } from '../../../src/app/git/repo-identity.js';

describe('hostile entry names', () => {
  it.each([
    ['.git', 'DOT_GIT'],
    ['.GIT', 'DOT_GIT'],
    ['.git.', 'DOT_GIT'],
    ['GIT~1', 'DOT_GIT'],
    ['..', 'DOT_DOT'],
    ['.', 'DOT_DOT'],
    ['a\\b', 'BAD_CHARACTER'],
    ['a/b', 'BAD_CHARACTER'],
    ['', 'BAD_CHARACTER'],
  ])('%j is %s', (name, kind) => expect(hostileNameKind(name)).toBe(kind));
  it.each(['.gitignore', '.github', 'git', 'README'])('%j is fine', (name) => expect(hostileNameKind(name)).toBeUndefined());
});

describe('raw tree parsing', () => {
  it('keeps names a library would refuse, and pads directory modes', () => {
    const oid = Buffer.alloc(20, 0xab);
    const content = Buffer.concat([Buffer.from('40000 ..\0'), oid, Buffer.from('100644 a\\b\0'), oid]);
    expect(parseTreeEntries(content)).toEqual([
      { mode: '040000', name: '..', oid: 'ab'.repeat(20) },
      { mode: '100644', name: 'a\\b', oid: 'ab'.repeat(20) },
    ]);
    expect(() => parseTreeEntries(Buffer.from('100644 x\0ab'))).toThrow(/malformed/);
  });
});

describe('attributes, submodules, deltas, identities', () => {
  it('flags attributes that would rewrite content, and LFS', () => {
    expect(scanAttributes('# c\n*.bin filter=lfs -text\n*.sh eol=lf\n* text=auto\n')).toEqual({ lfs: true, rewriting: ['eol=lf', 'text=auto'] });
    expect(scanAttributes('*.png binary -text\n')).toEqual({ lfs: false, rewriting: [] });
  });
  it('drops credentials from submodule URLs', () => {
    expect([...parseGitmodules('[submodule "x"]\n\tpath = lib\n\turl = https://u:p@host/x.git\n')]).toEqual([['lib', 'https://host/x.git']]);
  });
  it('applies copy and insert delta instructions', () => {
    const base = Buffer.from('hello world');
    // source 11, target 11; copy offset 0 size 6 ("hello "), insert "there"
    const delta = Buffer.from([11, 11, 0x90, 6, 5, ...Buffer.from('there')]);
    expect(Buffer.from(applyDelta(base, delta)).toString()).toBe('hello there');
  });
  it.each([
    ['https://github.com/acme/billing.git', { owner: 'acme', repo: 'billing' }],
    ['http://127.0.0.1:8080/git/acme/api', { owner: 'acme', repo: 'api' }],
  ])('%s -> %o', (url, identity) => expect(identityFromUrl(url)).toEqual(identity));
});
