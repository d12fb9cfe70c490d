import { describe, expect, it } from 'vitest';
import { block, cell, inline, proseOnly, shortenOutsideCode } from '../../../src/core/text/report-markdown.js';

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

describe('a block of task text in the PR body keeps code as written', () => {
  it('shows a fenced block byte for byte inside a fence, never escaped, never joined', () => {
    const code = "if x < y and d['x'] > 0:\n    ping('@octocat', Foo[str])  # <tag>";
    const text = block(`Before:\n\n\`\`\`python\n${code}\n\`\`\`\n\nafter <b>`);
    expect(text).toBe(`Before:\n\n\`\`\`python\n${code}\n\`\`\`\n\nafter &lt;b&gt;`);
  });

  it('fences a block holding a backtick run with a longer run, and closes a fence left open', () => {
    const text = block('~~~md\nuse ```js\nx\n```\n~~~\n\n```sh\nrm <file>');
    expect(text).toBe('````md\nuse ```js\nx\n```\n````\n\n```sh\nrm <file>\n```');
  });

  it("keeps code spans as written (`<tag>`, `['x']`, `Foo[str]`), one spanning a line break too, and escapes the prose", () => {
    expect(block("Use `<tag>` and `['x']` in `Foo[str]`, not <b>[y]</b>\nor ``a\n@b``.")).toBe(
      "Use `<tag>` and `['x']` in `Foo[str]`, not &lt;b&gt;\\[y\\]&lt;/b&gt;\nor ``a\n@b``.",
    );
  });

  it("never lets code forge draftsman's section markers", () => {
    expect(block('```\n<!-- draftsman:verification:start -->\n```')).not.toContain('<!-- draftsman:');
    expect(inline('`<!-- draftsman:verification:end -->`')).not.toContain('<!-- draftsman:');
  });

  it('takes the prose apart from the fenced blocks for a one-line summary, cut outside code spans', () => {
    expect(proseOnly('```py\nx = 1\n```\nThe fix.')).toBe('The fix.');
    expect(shortenOutsideCode('Call `a very long span of code` now', 20)).toBe('Call…');
    expect(shortenOutsideCode('short `x`', 20)).toBe('short `x`');
  });
});
