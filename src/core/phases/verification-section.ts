import type { z } from 'zod';
import { cell, code, codeCell, details, fenced, inline, plural } from '../text/report-markdown.js';
import { COMMAND_STATUS_TEXT, type CommandResult } from '../verify/command-result.js';
import { RunReportVerification } from './run-report-schema.js';

// The PR body's Verification section: rendered with the report, and again by the publisher with
// CI's results, which swaps it in between the markers.

export const VERIFICATION_START = '<!-- draftsman:verification:start -->';
export const VERIFICATION_END = '<!-- draftsman:verification:end -->';

/** Rows of findings shown before "…and N more". */
export const MAX_FINDING_ROWS = 50;
/** A risk factor, or a failed secret scan, names its files only when they are this few; more are counted. */
export const MAX_NAMED_FILES = 3;

/** CI's results as a table once any check reported; otherwise why there are none yet. */
function ciResultLines(ci: RunReportVerification['ci']): string[] {
  if (!ci || ci.state === 'unavailable' || (ci.state === 'pending' && ci.checks.length === 0)) {
    return [
      ci?.state === 'unavailable' ? '**CI results:** unavailable for this commit.' : '**CI results:** not yet known; this section is updated when CI reports.',
    ];
  }
  const out = [
    `**CI results** (${ci.state}${ci.commitSha ? ` on ${code(ci.commitSha.slice(0, 12))}` : ''}):`,
    '',
    '| check | status | conclusion |',
    '|---|---|---|',
  ];
  for (const c of ci.checks) {
    const name = c.url && /^https?:\/\//.test(c.url) ? `[${cell(c.name)}](${c.url.replace(/[()\s]/g, encodeURIComponent)})` : cell(c.name);
    out.push(`| ${name} | ${cell(c.status)} | ${cell(c.conclusion ?? 'pending')} |`);
  }
  return out;
}

/**
 * The Verification section's content (without markers): static checks draftsman ran, what it
 * did not run, what CI should run, and CI results when known. The publisher calls this again
 * with `ci` filled in and swaps it in with `replaceVerificationSection`.
 */
export function renderVerificationSection(input: z.input<typeof RunReportVerification>): string {
  const v = RunReportVerification.parse(input);
  const out: string[] = ['## Verification', ''];
  const checks = checksShown(v);
  const ran = v.commands.some((c) => c.status !== 'NOT_RUN');
  if (checks.length > 0) {
    out.push(`**Checked by draftsman** (static checks${ran ? '' : '; no build or test was run'}):`, '', '| check | result | detail |', '|---|---|---|');
    for (const c of checks) out.push(`| ${cell(c.name)} | ${statusMark(c.status)} | ${cell(c.detail ?? '')} |`);
    out.push('');
  } else out.push('Draftsman ran no checks on this change.', '');
  out.push(...commandLines(v));
  if (v.secretFindings.length > 0) {
    out.push(`**Secret scan findings** (publication is refused until they are removed):`, '', '| rule | file | line |', '|---|---|---|');
    for (const f of v.secretFindings.slice(0, MAX_FINDING_ROWS)) out.push(`| ${cell(f.rule)} | ${codeCell(f.path)} | ${f.line} |`);
    if (v.secretFindings.length > MAX_FINDING_ROWS) out.push('', `…and ${v.secretFindings.length - MAX_FINDING_ROWS} more.`);
    out.push('');
  }
  if (v.notRun.length > 0) {
    out.push('**Not run by draftsman:**', '');
    for (const n of v.notRun) out.push(`- ${inline(n.name)}: ${inline(n.why)}`);
    out.push('');
  }
  if (v.ciCommands.length > 0) {
    out.push(`**CI should run** (from the policy's \`agent.build.commands\`${v.verifier ? `, ${inline(v.verifier)}` : ''}):`, '');
    out.push(...fenced('sh', v.ciCommands.join('\n')), '');
  } else out.push('The policy lists no `agent.build.commands`; CI results are the only test evidence.', '');

  out.push(...ciResultLines(v.ci));
  return out.join('\n').trimEnd();
}

const COMMAND_MARK: Record<CommandResult['status'], string> = {
  PASSED: '✅',
  FAILED: '❌',
  TIMED_OUT: '❌',
  OUTPUT_LIMIT: '❌',
  NO_TESTS: '⚠️',
  NOT_RUN: '⏭️',
};
/** Failures listed per command before "…and N more". */
const MAX_FAILURE_ROWS = 10;

function failureLine(f: CommandResult['failures'][number]): string {
  const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : undefined;
  const parts = [f.test ? code(f.test) : undefined, where ? code(where) : undefined, f.message ? inline(f.message) : undefined].filter(Boolean);
  return `- ${parts.join(' — ')}`;
}

/**
 * The project's commands draftsman ran: one row each with its real exit code and time, then
 * for each that ran its parsed failures and the end of its output (scrubbed), as data.
 */
function commandLines(v: RunReportVerification): string[] {
  if (v.commands.length === 0) return [];
  const out = [
    `**Run by draftsman** on the change${v.commandsRanIn ? ` (${inline(v.commandsRanIn)})` : ''}:`,
    '',
    '| command | directory | result | exit | time |',
    '|---|---|---|---|---|',
  ];
  for (const c of v.commands) {
    const result = `${COMMAND_MARK[c.status]} ${COMMAND_STATUS_TEXT[c.status]}${c.why ? `: ${c.why}` : ''}`;
    const time = c.status === 'NOT_RUN' ? '' : `${(c.durationMs / 1000).toFixed(1)} s`;
    out.push(`| ${codeCell(c.run)} | ${codeCell(c.cwd)} | ${cell(result)} | ${c.exitCode ?? ''} | ${time} |`);
  }
  out.push('');
  for (const c of v.commands.filter((r) => r.status !== 'NOT_RUN')) {
    const body = [
      ...c.failures.slice(0, MAX_FAILURE_ROWS).map(failureLine),
      ...(c.failures.length > MAX_FAILURE_ROWS ? [`- …and ${c.failures.length - MAX_FAILURE_ROWS} more`] : []),
      ...(c.failures.length > 0 ? [''] : []),
      ...(c.excerpt ? fenced('text', c.excerpt) : ['(no output)']),
    ];
    out.push(...details(`${code(c.run)}: ${COMMAND_STATUS_TEXT[c.status]} — ${c.excerpt ? 'end of its output' : 'no output'}`, body));
  }
  return out;
}

/**
 * Replace the Verification section (between the markers) of a PR body with `markdown`. A body
 * that lost its markers (a human edited it) gets the section appended instead. Markers inside
 * `markdown` are removed so the section stays well delimited.
 */
export function replaceVerificationSection(body: string, markdown: string): string {
  const section = markedSection(markdown.trim());
  const start = body.indexOf(VERIFICATION_START);
  const end = start >= 0 ? body.indexOf(VERIFICATION_END, start) : -1;
  if (start >= 0 && end > start) return body.slice(0, start) + section + body.slice(end + VERIFICATION_END.length);
  return `${body.trimEnd()}\n\n${section}\n`;
}

/**
 * The section between its markers. Markers inside the content (a command's output may print
 * them) are removed so the section stays well delimited; blank lines around the content keep
 * the comment markers separate HTML blocks in any renderer.
 */
export function markedSection(content: string): string {
  const clean = content.split(VERIFICATION_START).join('').split(VERIFICATION_END).join('');
  return `${VERIFICATION_START}\n\n${clean}\n\n${VERIFICATION_END}`;
}

/** The checks as shown: a secret scan with findings is failed, whatever the check recorded. */
export function checksShown(v: RunReportVerification): RunReportVerification['checks'] {
  if (v.secretFindings.length === 0) return v.checks;
  const detail = `${v.secretFindings.length} ${plural(v.secretFindings.length, 'finding')}: ${v.secretFindings
    .slice(0, MAX_NAMED_FILES)
    .map((f) => `${f.rule} at ${f.path}:${f.line}`)
    .join('; ')}${v.secretFindings.length > MAX_NAMED_FILES ? '; …' : ''}`;
  const isScan = (name: string) => /secret/i.test(name);
  const scan = { name: 'Secret scan of the change', status: 'FAILED' as const, detail };
  return v.checks.some((c) => isScan(c.name)) ? v.checks.map((c) => (isScan(c.name) ? { ...c, status: 'FAILED' as const, detail } : c)) : [...v.checks, scan];
}

function statusMark(status: 'PASSED' | 'FAILED' | 'SKIPPED'): string {
  return status === 'PASSED' ? '✅ passed' : status === 'FAILED' ? '❌ failed' : '⏭️ skipped';
}
