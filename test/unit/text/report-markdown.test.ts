import { describe, expect, it } from 'vitest';
import { cell, inline } from '../../../src/core/text/report-markdown.js';

describe('inline text in the PR body', () => {
  it('leaves a code span as GitHub shows it: no zero-width entity, no escaped bracket', () => {
    expect(inline('drops `@types/node` from `a[0] & b<c>`')).toBe('drops `@types/node` from `a[0] & b<c>`');
  });

  it('still defuses a mention, a tag and a link bracket outside code spans', () => {
    expect(inline('ask @octocat about <b>[x]</b> and `@ok`')).toBe('ask @&#8203;octocat about &lt;b&gt;\\[x\\]&lt;/b&gt; and `@ok`');
  });

  it('reads code spans the CommonMark way: a run closes only on a run of the same width', () => {
    expect(inline('``a ` @b`` @c')).toBe('``a ` @b`` @&#8203;c');
    expect(inline('an unclosed ` @d')).toBe('an unclosed ` @&#8203;d');
  });

  it('keeps a comment marker inside a code span literal and one line', () => {
    const text = inline('`<!--` x\n-->');
    expect(text.startsWith('`<!--` x')).toBe(true);
    expect(text).not.toContain('\n');
    expect(text).toContain('--&gt;');
  });

  it('stays linear on many unmatched backtick runs', () => {
    const hostile = Array.from({ length: 20_000 }, (_, i) => '`'.repeat((i % 50) + 1) + ' x ').join('');
    expect(inline(hostile).length).toBeGreaterThan(hostile.length / 2);
  });

  it('escapes a pipe in a table cell, inside a code span too', () => {
    expect(cell('`a|b` c|d')).toBe('`a\\|b` c\\|d');
  });
});
