import { describe, expect, it } from 'vitest';
import { replaceVerificationSection } from '../../../src/core/phases/verification-section.js';
import { replaceRevisionsSection, type RevisionEntry } from '../../../src/core/runs/revisions.js';

const entry = (attempt: number, fields: Partial<RevisionEntry> = {}): RevisionEntry => ({
  attempt,
  kind: 'revise',
  sender: 'maya',
  commitSha: String(attempt).repeat(40),
  parentSha: 'f'.repeat(40),
  files: [{ path: 'pom.xml', insertions: 1, deletions: 1 }],
  checks: [{ name: 'maven', status: 'PASSED' }],
  ...fields,
});

describe('revise: the PR body Revisions section', () => {
  it('is appended once, then replaced in place with every entry, oldest first', () => {
    const once = replaceRevisionsSection('Body\n', [entry(2)]);
    const twice = replaceRevisionsSection(once, [entry(3, { kind: 'ci-repair', sender: 'github-actions' }), entry(2)]);
    expect(twice.match(/## Revisions/g)).toHaveLength(1);
    expect(twice.match(/### Attempt \d+[^\n]*/g)).toEqual(['### Attempt 2: review, asked by @maya', '### Attempt 3: CI repair, asked by @github-actions']);
    expect(twice).toContain('| `pom.xml` | 1 | 1 |');
    expect(twice).toContain('Verification of this commit: maven: PASSED');
  });

  it('survives CI feedback rewriting the Verification section, and vice versa', () => {
    const body = replaceRevisionsSection(replaceVerificationSection('Body', '## Verification\n\nold'), [entry(2)]);
    const after = replaceVerificationSection(body, '## Verification\n\nnew');
    expect(after).toContain('### Attempt 2');
    expect(after).toContain('new');
    expect(after).not.toContain('old');
  });

  it('escapes table cells and says when a revision added no commit', () => {
    const text = replaceRevisionsSection('', [entry(2, { commitSha: undefined, files: [{ path: 'a|b.md', insertions: 0, deletions: 0 }] })]);
    expect(text).toContain('no new commit');
    expect(text).toContain('`a\\|b.md`');
  });
});
