import { stringify } from 'yaml';
import { z } from 'zod';
import { recipeFor } from '../engines/recipe/registry.js';
import { TaskBlock } from '../task/task-contract.js';
import { attr, block, cell, clip, code, codeCell, fenced, inline, plural } from '../text/report-markdown.js';

/**
 * The analysis report: what a draft PR for the task would do, posted on the issue and printed by
 * the CLI. An analysis changes nothing, so every sentence about a change is a forecast ("would"):
 * nothing here can claim a changed file, a commit or a pull request. Deterministic: no clock, no
 * locale. Bounded: `maxChars` keeps the rendered text under a limit (GitHub's comment limit) by
 * showing fewer rows and shorter texts, each cut said in place; the unbounded rendering is the
 * full report stored as the `run-report.md` artifact.
 */

/** GitHub refuses an issue comment body longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** The artifact that holds the full report; truncated sections point to it. */
export const ANALYSIS_REPORT_ARTIFACT = 'run-report.md';

const RiskForecast = z.object({
  level: z.enum(['LOW', 'MEDIUM', 'HIGH']),
  score: z.number(),
  reasons: z.array(z.string()),
  requiredGate: z.string(),
  /** How many files the forecast is for. */
  files: z.number().int().nonnegative(),
});

export const AnalysisReport = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  /** The attempt's outcome (COMPLETED, or why the analysis stopped early). */
  status: z.string(),
  title: z.string(),
  objective: z.string(),
  repository: z.string().optional(),
  baseRef: z.string().optional(),
  baseCommitSha: z.string(),
  plan: z.object({
    summary: z.string(),
    steps: z.array(z.object({ text: z.string(), files: z.array(z.string()) })),
  }),
  /** The target selection's files, best first, with its own reasons. */
  targets: z.array(
    z.object({
      path: z.string(),
      rank: z.number(),
      classification: z.string(),
      editable: z.boolean(),
      module: z.string().optional(),
      owners: z.array(z.string()),
      reasons: z.array(z.string()),
    }),
  ),
  modules: z.array(z.object({ name: z.string(), files: z.number().int().nonnegative(), owners: z.array(z.string()) })),
  /** The risk the change would have; absent when no file would change. */
  risk: RiskForecast.optional(),
  questions: z.array(z.string()),
  /** A task block that would run this plan as a draft PR, when the change fits a recipe. */
  agentBlock: TaskBlock.optional(),
  /** `task`: the task's own steps; `suggested`: steps read from the task's words, to be checked. */
  agentBlockSource: z.enum(['task', 'suggested']).default('task'),
  artifacts: z.array(z.object({ name: z.string(), url: z.string() })),
});
export type AnalysisReport = z.infer<typeof AnalysisReport>;
export type AnalysisReportInput = z.input<typeof AnalysisReport>;

/** The first line of every rendered report: the worker finds its own comment by it. */
export function analysisReportMarker(runId: string, attempt: number): string {
  return `${MARKER_PREFIX}run=${attr(runId)} attempt=${attempt} -->`;
}

const MARKER_PREFIX = '<!-- draftsman:analysis-report ';

/** Whether a rendered report is an analysis report (the worker posts those on the issue). */
export function isAnalysisReport(text: string): boolean {
  return text.startsWith(MARKER_PREFIX);
}

/** Row and text caps, loosest first; the first that fits the limit is used. */
const LEVELS: readonly { rows: number; text: number }[] = [
  { rows: Number.POSITIVE_INFINITY, text: Number.POSITIVE_INFINITY },
  { rows: 200, text: 4_000 },
  { rows: 50, text: 1_000 },
  { rows: 20, text: 300 },
  { rows: 5, text: 120 },
];

/** Render the report; with `maxChars`, the text is at most that long. Invalid input throws the ZodError. */
export function renderAnalysisReport(input: AnalysisReportInput, options: { maxChars?: number } = {}): string {
  const report = AnalysisReport.parse(input);
  const max = options.maxChars ?? Number.POSITIVE_INFINITY;
  for (const level of LEVELS) {
    const text = render(report, { ...level, block: true });
    if (text.length <= max) return text;
  }
  // Even the tightest caps do not fit (a huge objective or task block): drop the block, then cut at a line.
  const tight = render(report, { ...LEVELS[LEVELS.length - 1], block: false });
  if (tight.length <= max) return tight;
  const note = `\n\n_The report was cut to fit a comment; the full report is the ${code(ANALYSIS_REPORT_ARTIFACT)} artifact._\n`;
  const room = Math.max(0, max - note.length);
  const cut = tight.lastIndexOf('\n', room);
  return `${tight.slice(0, cut > 0 ? cut : room)}${note}`.slice(0, max);
}

/** The task block as YAML, fenced with the `agent` info string, ready to paste into a comment. */
export function renderAgentBlock(taskBlock: z.input<typeof TaskBlock>): string[] {
  const parsed = TaskBlock.parse(taskBlock);
  // Defaults the parser fills in again are left out, so the block reads as a maintainer would write it.
  const steps = parsed.steps?.map((s) => recipeFor(s).asWritten(s));
  const yaml = stringify({ ...parsed, ...(steps ? { steps } : {}) }, { lineWidth: 0 }).trimEnd();
  return fenced('agent', yaml);
}

interface Caps {
  rows: number;
  text: number;
  block: boolean;
}

type More = (shown: number, total: number, what: string) => string[];

/** The risk forecast's lines: level, score and gate, then its reasons (at most `rows`). */
function riskLines(risk: AnalysisReport['risk'], rows: number, text: (t: string) => string, more: More): string[] {
  if (!risk) return ['No file would change, so there is no risk to forecast.', ''];
  const out = [
    `If the ${risk.files} ${plural(risk.files, 'file')} above were changed, the risk would be **${risk.level}** (score ${risk.score}); ${risk.requiredGate === 'NONE' ? 'no approval gate would apply' : `the gate would be ${code(risk.requiredGate)}`}.`,
    '',
  ];
  const reasons = risk.reasons.slice(0, rows);
  for (const reason of reasons) out.push(`- ${inline(text(reason))}`);
  out.push('', ...more(reasons.length, risk.reasons.length, plural(risk.reasons.length - reasons.length, 'reason')));
  return out;
}

/** The ready-to-paste task block with how to use it, or a pointer to the artifact when it does not fit. */
function agentBlockLines(agentBlock: NonNullable<AnalysisReport['agentBlock']>, source: AnalysisReport['agentBlockSource'], fits: boolean): string[] {
  if (!fits) return [`The task block is too long for a comment; it is in the ${code(ANALYSIS_REPORT_ARTIFACT)} artifact.`, ''];
  const intro =
    source === 'suggested'
      ? 'The task has no steps, but its words name a recipe. This block is a suggestion read from them: check the names, then comment `/agent run` with it to open a draft PR:'
      : 'To open a draft PR with this plan, comment `/agent run` with this block (or put it in the issue body):';
  return [intro, '', ...renderAgentBlock(agentBlock), ''];
}

function render(r: AnalysisReport, caps: Caps): string {
  const more: More = (shown, total, what) =>
    total > shown ? [`…and ${total - shown} more ${what}; the full list is in the ${code(ANALYSIS_REPORT_ARTIFACT)} artifact.`, ''] : [];
  const text = (t: string) => (t.length > caps.text ? `${clip(t, caps.text)} (cut; see ${ANALYSIS_REPORT_ARTIFACT})` : t);
  const out: string[] = [analysisReportMarker(r.runId, r.attempt), `## Analysis: ${inline(text(r.title) || 'untitled task')}`, ''];
  out.push(
    `> [!NOTE]`,
    `> This is an analysis only: draftsman changed no file, made no commit and opened no pull request. Everything below says what a draft PR **would** do.`,
    '',
  );
  if (r.status !== 'COMPLETED') out.push(`The analysis stopped early (${code(r.status)}); what was found until then is below.`, '');
  if (r.objective.trim()) out.push('### Objective', '', block(text(r.objective)), '');

  out.push('### Plan', '', inline(r.plan.summary), '');
  r.plan.steps.forEach((s, i) => {
    const files = s.files.slice(0, caps.rows);
    const where =
      s.files.length === 0
        ? 'would change no file in scope'
        : `would change ${s.files.length} ${plural(s.files.length, 'file')}: ${files.map(code).join(', ')}${s.files.length > files.length ? ', …' : ''}`;
    out.push(`${i + 1}. ${inline(text(s.text))}; ${where}`);
  });
  if (r.plan.steps.length > 0) out.push('');

  const targets = r.targets.slice(0, caps.rows);
  out.push(`### Target files (${r.targets.length})`, '');
  if (r.targets.length === 0) out.push('Target selection found no file for this task.', '');
  else {
    out.push('| file | module | would edit | why |', '|---|---|---|---|');
    for (const t of targets) out.push(`| ${codeCell(t.path)} | ${cell(t.module ?? '')} | ${t.editable ? 'yes' : 'no'} | ${cell(text(t.reasons.join('; ')))} |`);
    out.push('', ...more(targets.length, r.targets.length, plural(r.targets.length - targets.length, 'file')));
  }

  out.push('### Modules and owners', '');
  if (r.modules.length === 0) out.push('No module found for the targets.', '');
  else {
    const modules = r.modules.slice(0, caps.rows);
    out.push('| module | target files | owners (CODEOWNERS) |', '|---|---|---|');
    for (const m of modules) out.push(`| ${cell(m.name)} | ${m.files} | ${m.owners.length > 0 ? m.owners.map(codeCell).join(' ') : 'none listed'} |`);
    out.push('', ...more(modules.length, r.modules.length, plural(r.modules.length - modules.length, 'module')));
  }

  out.push('### Risk (forecast)', '', ...riskLines(r.risk, caps.rows, text, more));

  out.push('### Open questions', '');
  if (r.questions.length === 0) out.push('None found.', '');
  else {
    const questions = r.questions.slice(0, caps.rows);
    for (const q of questions) out.push(`- ${inline(text(q))}`);
    out.push('', ...more(questions.length, r.questions.length, plural(r.questions.length - questions.length, 'question')));
  }

  if (r.agentBlock) out.push('### Ready-to-paste task', '', ...agentBlockLines(r.agentBlock, r.agentBlockSource, caps.block));

  const facts = [`run ${code(r.runId)}`, `attempt ${r.attempt}`, `base ${code(r.baseCommitSha.slice(0, 12))}${r.baseRef ? ` (${code(r.baseRef)})` : ''}`];
  if (r.repository) facts.push(code(r.repository));
  out.push(`<sub>draftsman analysis · ${facts.join(' · ')} · full report: the ${code(ANALYSIS_REPORT_ARTIFACT)} artifact</sub>`);
  return `${out.join('\n').trimEnd()}\n`;
}
