import { z } from 'zod';

const Sha = z.string().regex(/^[0-9a-f]{40}$/);

/** One follow-up attempt as the PR body's Revisions section shows it. */
export const RevisionEntry = z.object({
  attempt: z.number().int().min(2),
  kind: z.enum(['revise', 'ci-repair']),
  sender: z.string(),
  /** The commit the revision added; absent when it changed nothing. */
  commitSha: Sha.optional(),
  parentSha: Sha,
  files: z.array(z.object({ path: z.string(), insertions: z.number().int().nonnegative(), deletions: z.number().int().nonnegative() })),
  checks: z.array(z.object({ name: z.string(), status: z.string() })),
  note: z.string().optional(),
});
export type RevisionEntry = z.infer<typeof RevisionEntry>;

const START = '<!-- draftsman:revisions:start -->';
const END = '<!-- draftsman:revisions:end -->';

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** The `## Revisions` section: one entry per follow-up attempt, oldest first. */
export function renderRevisionsSection(entries: readonly RevisionEntry[]): string {
  const lines = ['## Revisions', ''];
  for (const e of [...entries].sort((a, b) => a.attempt - b.attempt)) {
    const what = e.kind === 'revise' ? 'review' : 'CI repair';
    const commit = e.commitSha ? `\`${e.commitSha.slice(0, 12)}\` on \`${e.parentSha.slice(0, 12)}\`` : `no new commit (on \`${e.parentSha.slice(0, 12)}\`)`;
    lines.push(`### Attempt ${e.attempt}: ${what}, asked by @${escapeCell(e.sender)}`, '', `Commit: ${commit}`);
    if (e.note) lines.push('', escapeCell(e.note));
    if (e.files.length > 0) {
      lines.push('', '| file | + | - |', '|---|---|---|');
      for (const f of e.files) lines.push(`| \`${escapeCell(f.path)}\` | ${f.insertions} | ${f.deletions} |`);
    }
    const checks = e.checks.length > 0 ? e.checks.map((c) => `${escapeCell(c.name)}: ${c.status}`).join(', ') : 'none run';
    lines.push('', `Verification of this commit: ${checks}`, '');
  }
  return lines.join('\n').trimEnd();
}

/** `body` with its Revisions section replaced (or appended): other sections, CI feedback's included, are left as they are. */
export function replaceRevisionsSection(body: string, entries: readonly RevisionEntry[]): string {
  const section = `${START}\n\n${renderRevisionsSection(entries)}\n\n${END}`;
  const start = body.indexOf(START);
  const end = start >= 0 ? body.indexOf(END, start) : -1;
  if (start >= 0 && end > start) return body.slice(0, start) + section + body.slice(end + END.length);
  return `${body.trimEnd()}\n\n${section}\n`;
}
