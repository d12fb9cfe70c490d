import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffLineArrays, MAX_EDIT_LENGTH } from '../../../src/core/text/line-diff.js';
import { addedLines, scanChanges } from '../../../src/core/secrets/secret-scan.js';
import { buildHunks } from '../../../src/core/git/unified-patch.js';
import { makeTempDir, nativeGit, removeDir } from '../../helpers/git-materialize.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

/** About `bytes` of distinct lines; `tag(i)` is the part that may differ between versions. */
function text(bytes: number, tag: (i: number) => string): string {
  const out: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `row ${i} ${tag(i)} ${'='.repeat(20)}\n`;
    out.push(line);
    size += line.length;
  }
  return out.join('');
}

/** Apply our hunks to `before` with native `git apply` and return the result. */
function gitApply(before: string, hunks: string): string {
  const dir = makeTempDir();
  dirs.push(dir);
  nativeGit(dir, ['init', '-q']);
  writeFileSync(join(dir, 'f.txt'), before);
  writeFileSync(join(dir, 'change.patch'), `diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n${hunks}`);
  nativeGit(dir, ['apply', '--check', 'change.patch']);
  nativeGit(dir, ['apply', 'change.patch']);
  return readFileSync(join(dir, 'f.txt'), 'utf8');
}

const countLines = (s: string) => s.split('\n').length - 1;

describe('the line diff is bounded and its patch still applies', () => {
  it('a 1 MB file with every line changed diffs without the quadratic search, and git apply accepts it', () => {
    const before = text(1024 * 1024, () => 'old');
    const after = text(1024 * 1024, () => 'new');
    const { hunks, insertions, deletions } = buildHunks(before, after);
    expect(insertions).toBe(countLines(after));
    expect(deletions).toBe(countLines(before));
    expect(gitApply(before, hunks)).toBe(after);
  }, 60_000);

  it('more scattered edits than one search may spend are split at unchanged unique lines, not replaced whole', () => {
    const edits = 3 * MAX_EDIT_LENGTH;
    const before = text(800_000, () => 'same');
    const after = text(800_000, (i) => (i % 20 === 7 && i < edits * 20 ? 'edit' : 'same'));
    expect(countLines(before)).toBeGreaterThan(edits * 20);
    const { hunks, insertions, deletions } = buildHunks(before, after);
    expect([insertions, deletions]).toEqual([edits, edits]);
    expect(gitApply(before, hunks)).toBe(after);
  }, 60_000);

  it('gives the minimal script for a small change (a line moved, lines added at both ends)', () => {
    const a = ['a\n', 'b\n', 'c\n', 'd\n'];
    const b = ['z\n', 'a\n', 'c\n', 'd\n', 'b\n', 'y\n'];
    const runs = diffLineArrays(a, b);
    expect(runs.filter((r) => r.added).flatMap((r) => r.value)).toEqual(['z\n', 'b\n', 'y\n']);
    expect(runs.filter((r) => r.removed).flatMap((r) => r.value)).toEqual(['b\n']);
  });

  it('secret scanning reads the added lines through the same bounded diff, with new-file line numbers', () => {
    const before = text(1024 * 1024, () => 'old');
    const lines = text(1024 * 1024, () => 'new').split('\n');
    lines[20_000] = 'token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"';
    const after = lines.join('\n');
    const enc = new TextEncoder();
    expect(addedLines(enc.encode(before), enc.encode(after))).toHaveLength(countLines(after));
    const findings = scanChanges([{ path: 'f.txt', oldBytes: enc.encode(before), newBytes: enc.encode(after) }], defaultPathRules());
    expect(findings.filter((f) => f.rule === 'github-token').map((f) => f.line)).toEqual([20_001]);
  }, 60_000);
});
