import { describe, expect, it } from 'vitest';
import { hostileNameKind } from '../../../src/core/ingestion/hostile-entry.js';
import { applyDelta } from '../../../src/core/ingestion/git-delta.js';
import { parseGitmodules, scanAttributes } from '../../../src/core/ingestion/policy-scan.js';
import { canonicalMode, isStandardModeSpelling, parseTreeEntries } from '../../../src/core/ingestion/tree-entries.js';
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
    ['\u200c.git', 'DOT_GIT'],
    ['.g\u200dit', 'DOT_GIT'],
    ['\ufeffgit~1', 'DOT_GIT'],
    ['Git~1', 'DOT_GIT'],
  ])('%j is %s', (name, kind) => expect(hostileNameKind(name)).toBe(kind));
  it.each(['.gitignore', '.github', 'git', 'README', 'git~2', 'x.git', 'gît'])('%j is fine', (name) => expect(hostileNameKind(name)).toBeUndefined());
});

describe('raw tree parsing', () => {
  it('keeps names a library would refuse, and pads directory modes', () => {
    const oid = Buffer.alloc(20, 0xab);
    const content = Buffer.concat([Buffer.from('40000 ..\0'), oid, Buffer.from('100644 a\\b\0'), oid]);
    expect(parseTreeEntries(content)).toEqual([
      { mode: '040000', rawMode: '40000', name: '..', nameValid: true, oid: 'ab'.repeat(20) },
      { mode: '100644', rawMode: '100644', name: 'a\\b', nameValid: true, oid: 'ab'.repeat(20) },
    ]);
    expect(() => parseTreeEntries(Buffer.from('100644 x\0ab'))).toThrow(/malformed/);
  });

  it('says when a name is not valid UTF-8 instead of decoding it silently', () => {
    const content = Buffer.concat([Buffer.from('100644 caf'), Buffer.from([0xe9, 0]), Buffer.alloc(20, 1)]);
    expect(parseTreeEntries(content)[0]).toMatchObject({ name: 'caf\ufffd', nameValid: false });
    const utf8 = Buffer.concat([Buffer.from('100644 café.txt\0'), Buffer.alloc(20, 1), Buffer.from('100755 plain\0'), Buffer.alloc(20, 2)]);
    expect(parseTreeEntries(utf8)).toMatchObject([
      { name: 'café.txt', nameValid: true, mode: '100644' },
      { name: 'plain', nameValid: true, mode: '100755' },
    ]);
  });

  it.each([
    ['40000', '040000'],
    ['40755', '040000'],
    ['0040000', '040000'],
    ['120777', '120000'],
    ['160644', '160000'],
    ['170000', '160000'],
    ['100664', '100644'],
    ['100600', '100644'],
    ['100544', '100755'],
    ['0100755', '100755'],
    ['10064x', undefined],
    ['', undefined],
  ])('mode %j reads as git reads it: %s', (raw, mode) => expect(canonicalMode(raw)).toBe(mode));

  it.each([
    ['40000', true],
    ['100644', true],
    ['100664', true],
    ['040000', false],
    ['40755', false],
    ['120777', false],
    ['0100644', false],
  ])('mode spelling %j is one git writes: %s', (raw, standard) => expect(isStandardModeSpelling(raw)).toBe(standard));
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
