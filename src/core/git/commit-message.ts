import { runIdTrailer } from '../runs/run-branch.js';
import { shortenAtWord } from '../util/shorten.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { COMMAND_STATUS_TEXT, type CommandResult } from '../verify/command-result.js';
import type { VerificationReport } from './verification-report.js';
import { COMMIT_TYPES, type CommitType } from '../text/commit-types.js';

export { COMMIT_TYPES, type CommitType };

export interface CommitMessageInput {
  type: CommitType;
  scope?: string;
  /** A breaking change: `type(scope)!: …`. */
  breaking?: boolean;
  summary: string;
  /** The task as a human reads it (the issue title, or the CLI task's first line). */
  task: string;
  intent: string;
  /** Who asked for this commit and in which words (a revision's comment), quoted after Intent. */
  request?: { by: string; text: string };
  verification: VerificationReport;
  risk: string[];
  runId: string;
  /** The attempt that made the commit, and its trail's prefix (`trail/<owner>/<repo>/<runId>/<n>/`), named in the trailers. */
  attempt?: { n: number; trail: string };
  /** Issue URL, or the CLI task digest. */
  taskId: string;
}

/** What a scope may contain (`deps`, `order-service`, `api,core`): no spaces, no parentheses. */
export const SCOPE = /^[A-Za-z0-9._/,-]+$/;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Longest subject line, as git tooling and hosting pages show it without wrapping. */
export const MAX_SUBJECT = 72;
/** The least room a scope may leave the summary; a longer scope is left out. */
const MIN_SUMMARY = 24;

/** `<type>(<scope>)[!]: <summary>`, shortened to MAX_SUBJECT; refuses an unknown type or a bad scope. */
function subjectLine(input: CommitMessageInput, summary: string): string {
  if (!COMMIT_TYPES.includes(input.type)) throw new GitBoundaryError('INVALID_COMMIT_MESSAGE', `unknown commit type: ${input.type}`, { type: input.type });
  const scope = input.scope ? oneLine(input.scope) : '';
  if (scope && !SCOPE.test(scope)) throw new GitBoundaryError('INVALID_COMMIT_MESSAGE', `invalid commit scope: ${scope}`, { scope });
  const bang = input.breaking ? '!' : '';
  // A scope so long that the summary would not fit is dropped: the subject never exceeds MAX_SUBJECT.
  const scoped = `${input.type}${scope ? `(${scope})` : ''}${bang}: `;
  const prefix = MAX_SUBJECT - scoped.length >= MIN_SUMMARY ? scoped : `${input.type}${bang}: `;
  return `${prefix}${shortenAtWord(summary, MAX_SUBJECT - prefix.length)}`;
}

/** A request quoted at most this long: the PR keeps the whole comment. */
const MAX_QUOTED_LINES = 20;
const MAX_QUOTED_CHARS = 2_000;

/** `Requested by @x:` and the request's words as a `> ` quote, bounded (a cut says so). */
function requestLines(request: { by: string; text: string } | undefined): string[] {
  const text = request?.text.trim() ?? '';
  if (!request || !text) return [];
  const lines = text.slice(0, MAX_QUOTED_CHARS).split(/\r?\n/);
  const kept = lines.slice(0, MAX_QUOTED_LINES);
  if (kept.length < lines.length || text.length > MAX_QUOTED_CHARS) kept.push('[...]');
  return [`Requested by @${oneLine(request.by)}:`, ...kept.map((l) => (l.trim() ? `> ${l.trimEnd()}` : '>'))];
}

/** A project command as one line of the trailer: what ran, where, and how it ended. */
function commandLine(c: CommandResult, where: string | undefined): string {
  if (c.status === 'NOT_RUN') return `not run: ${oneLine(c.run)}: ${oneLine(c.why ?? 'not started')}`;
  const seconds = (c.durationMs / 1000).toFixed(1);
  return `ran ${oneLine(c.run)}${c.cwd === '.' ? '' : ` in ${c.cwd}`}${where ? ` (${where})` : ''}: ${COMMAND_STATUS_TEXT[c.status]}, exit ${c.exitCode ?? 'none'}, ${seconds} s`;
}

/** The Verification lines: what ran and how it ended, then what did not run and why. */
function verificationLines(report: VerificationReport): string[] {
  const lines: string[] = [];
  for (const c of report.checks) {
    if (c.status === 'SKIPPED') continue;
    lines.push(`- ${oneLine(c.name)}: ${c.status === 'PASSED' ? 'passed' : 'failed'}${c.detail ? ` (${oneLine(c.detail)})` : ''}`);
  }
  for (const c of report.commands ?? []) lines.push(`- ${commandLine(c, report.commandsRanIn)}`);
  for (const n of report.notRun) lines.push(`- not run: ${oneLine(n.name)}: ${oneLine(n.why)}`);
  if (lines.length === 0) lines.push('- not run: no verification was recorded');
  return lines;
}

/**
 * The commit message contract: `<type>(<scope>)[!]: <summary>` (at most 72 characters: a long
 * summary is shortened at a word boundary, a scope too long to leave room is left out; length is
 * never an error), then Task, Intent, the request quoted (a revision's words, when given),
 * Verification (only what really ran; `not run: <why>` otherwise), Risk, and the trailers
 * `Generated-by`, `Run-id`, `Run-attempt` and `Run-trail` (where the attempt's ledger and spend
 * records are kept, create-only), `Task-id`. Ends with one newline, so the bytes are stable.
 */
export function formatCommitMessage(input: CommitMessageInput): string {
  const summary = oneLine(input.summary ?? '');
  if (!summary || !oneLine(input.intent ?? '') || !oneLine(input.task ?? ''))
    throw new GitBoundaryError('EMPTY_MESSAGE', 'commit summary, task and intent must not be empty', {});
  const subject = subjectLine(input, summary);
  const risk = input.risk.length > 0 ? input.risk.map((r) => `- ${oneLine(r)}`) : ['- none identified'];
  return [
    subject,
    '',
    `Task: ${oneLine(input.task)}`,
    `Intent: ${oneLine(input.intent)}`,
    ...requestLines(input.request),
    'Verification:',
    ...verificationLines(input.verification),
    'Risk:',
    ...risk,
    '',
    'Generated-by: draftsman',
    runIdTrailer(oneLine(input.runId)),
    ...(input.attempt ? [`Run-attempt: ${input.attempt.n}`, `Run-trail: ${oneLine(input.attempt.trail)}`] : []),
    `Task-id: ${oneLine(input.taskId)}`,
    '',
  ].join('\n');
}
