import { block, code, inline, clip } from '../text/report-markdown.js';
import type { RunReport } from './run-report-schema.js';

// The PR body's sections in the model's words: its account of the change, its caveats and its plan revisions.
// All of it is untrusted text: framed as the model's, bounded, and defused as issue prose is.

/** Characters of one segment's account shown; the ledger keeps the whole answer. */
export const MAX_ACCOUNT_CHARS = 3_000;

/**
 * "What changed and why": each finished model segment's final answer as a quotation, framed as
 * its own claim (what ran is said by the diff, the checks and CI, not by it); code kept as written.
 */
export function modelAccount(report: RunReport): string[] {
  const out = [
    '### What changed and why',
    '',
    "In the model's own words (its final answer, not checked by draftsman: the diff, the checks and CI below say what ran):",
  ];
  for (const a of report.modelAccount) {
    const cut = a.text.length > MAX_ACCOUNT_CHARS;
    out.push('');
    if (report.modelAccount.length > 1) out.push(`Segment ${code(a.segment)}:`, '');
    out.push(...quoted(block(clip(a.text, MAX_ACCOUNT_CHARS))));
    if (cut) out.push('', `(cut at ${MAX_ACCOUNT_CHARS} characters; the run's ledger keeps the whole answer)`);
  }
  return out;
}

/** The lines of `markdown` as a block quote (a fenced block inside keeps its content byte for byte). */
function quoted(markdown: string): string[] {
  return markdown.split('\n').map((line) => (line === '' ? '>' : `> ${line}`));
}

/** For the Risk section: what the model says it did not verify or could not do, in its words. */
export function modelCaveats(report: RunReport): string[] {
  const caveats = report.modelAccount.flatMap((a) => a.caveats);
  if (caveats.length === 0) return [];
  return ['', "**The model's caveats** (what it says it did not verify or could not do, in its words):", '', ...caveats.map((c) => `- ${inline(c)}`)];
}

/**
 * "Plan revised N×" and each revision: the model's reason (inline, defused) and the files it added
 * to the plan or dropped from it (a file added to the plan is not a file the run created).
 */
export function planRevised(report: RunReport): string[] {
  const changes = (r: RunReport['planRevisions'][number]) =>
    [
      r.added.length > 0 ? `added ${r.added.map(code).join(', ')} to the plan` : '',
      r.dropped.length > 0 ? `dropped ${r.dropped.map(code).join(', ')} from the plan` : '',
    ]
      .filter(Boolean)
      .join('; ');
  const [first, ...rest] = report.planRevisions;
  if (rest.length === 0) {
    const what = changes(first);
    return [`### Plan revised 1×: ${inline(first.reason)}`, ...(what ? ['', `The model ${what}.`] : [])];
  }
  return [
    `### Plan revised ${report.planRevisions.length}×`,
    '',
    ...report.planRevisions.map((r) => `- ${inline(r.reason)}${changes(r) ? ` (${changes(r)})` : ''}`),
  ];
}
