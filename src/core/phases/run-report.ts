import type { z } from 'zod';
import { describeExhaustion } from '../budget/budget.js';
import { formatUsd } from '../budget/cost.js';
import { spendLine } from './spend-line.js';
import {
  attr,
  block,
  cell,
  clip,
  code,
  codeCell,
  details,
  distinct,
  fenced,
  firstLine,
  firstParagraph,
  inline,
  mermaidText,
  plural,
  proseOnly,
  shortenOutsideCode,
  sum,
} from '../text/report-markdown.js';
import { modelAccount, modelCaveats, planRevised } from './model-sections.js';
import { RunReport, type RunReportInput, type Usage } from './run-report-schema.js';
import { MAX_FINDING_ROWS, MAX_NAMED_FILES, checksShown, markedSection, renderVerificationSection } from './verification-section.js';

/**
 * The run report rendered as the draft PR body: a five-row summary a
 * reviewer reads in thirty seconds, details folded in `<details>`, and a Verification section
 * between markers that the publisher replaces with real CI results later. The body says only
 * what the report says ran: static checks are labelled as such, build and test commands are
 * listed as not run by draftsman. Deterministic: no clock, no locale; the only dates are those
 * passed in.
 */

const MAX_TARGET_ROWS = 100;
const MAX_OBJECTIVE = 4_000;

/** Render the PR body. The report is validated first; an invalid report throws the ZodError. */
export function renderRunReport(input: RunReportInput): string {
  const report = RunReport.parse(input);
  const out: string[] = [];
  out.push(`<!-- draftsman:run-report run=${attr(report.runId)} attempt=${report.attempt} -->`);
  if (report.understood) out.push(...understood(report.understood), '');
  out.push(`## ${inline(report.title || 'Draft change')}`, '');
  out.push(...summaryTable(report), '');

  const warnings = distinct(report.warnings);
  if (warnings.length > 0) out.push('> [!WARNING]', ...warnings.map((w) => `> ${inline(w)}`), '');
  if (report.modelAccount.length > 0) out.push(...modelAccount(report), '');
  if (report.dependencyUpdates.length > 0) out.push(...dependencyUpdates(report), '');
  out.push(...movesAndLockfiles(report));

  const notes = distinct(report.notes, warnings);
  if (notes.length > 0) {
    out.push('### Notes', '', ...notes.slice(0, MAX_FINDING_ROWS).map((n) => `- ${inline(n)}`), '');
    if (notes.length > MAX_FINDING_ROWS) out.push(`…and ${notes.length - MAX_FINDING_ROWS} more.`, '');
  }

  if (report.planRevisions.length > 0) out.push(...planRevised(report), '');

  const objective = objectiveText(report);
  if (!report.title || (objective && !summaryShowsWhole(report, objective)))
    out.push('### Objective', '', block(clip(objective, MAX_OBJECTIVE)) || '_No objective given._', '');
  out.push(...details('Scope and strategy', scopeAndStrategy(report)));
  out.push(
    ...details(
      `${changedAny(report) ? 'Targets' : 'Candidate targets, not changed'} (${report.targets.length} ${plural(report.targets.length, 'file')})`,
      targets(report),
    ),
  );
  if (report.testCommands.length > 0) out.push(...testCommands(report), '');
  out.push(markedSection(renderVerificationSection(report.verification)), '');
  out.push(...details(`Risk: ${report.risk.level} (score ${report.risk.score})`, risk(report)));
  if (report.policyVerdicts.length > 0) out.push(...details(`Policy verdicts (${verdictCounts(report)})`, policyVerdicts(report)));
  out.push(...details(`Anti-cheat findings (${report.antiCheat.length})`, antiCheat(report)));
  out.push(...details('Budget used', budget(report)));
  const diagram = mermaid(report);
  if (diagram.length > 0) out.push(...details(report.phases.length > 0 ? 'Phases' : 'Touched modules', diagram));
  out.push(...details('Run', runFacts(report)));
  return `${out.join('\n').trimEnd()}\n`;
}

/**
 * How to run the tests of the change: the map's commands for the modules it touched, focused on
 * its test files where the map knows how. Shown as commands to run, never as run.
 */
function testCommands(r: RunReport): string[] {
  const focused = r.testCommands.some((t) => t.focused);
  const lines = r.testCommands.map((t) => (t.cwd === '.' || t.cwd === '' ? t.run : `(cd ${t.cwd} && ${t.run})`));
  return [
    '### Run the tests of the change',
    '',
    `From the repository map, for the ${plural(r.testCommands.length, 'module')} the change touched${focused ? ', focused on the changed test files where the map knows how' : ''}:`,
    '',
    ...fenced('sh', lines.join('\n')),
  ];
}

/** The files the change moved and the lockfiles it left to refresh, each a section when there are any. */
function movesAndLockfiles(report: RunReport): string[] {
  const out: string[] = [];
  if (report.moves.length > 0) out.push('### Files moved', '', ...report.moves.map((m) => `- ${code(m.from)} → ${code(m.to)}`), '');
  if (report.lockfiles.length > 0) {
    out.push('### Lockfiles to refresh', '', 'Lockfiles were not edited; regenerate them before merging:', '');
    for (const l of report.lockfiles) out.push(`- ${code(l.path)}: run ${code(l.command)}${l.why ? ` (${inline(l.why)})` : ''}`);
    out.push('');
  }
  return out;
}

/** What the issue's words were read as: the block that ran (it parses back to the same steps), then what did not run. */
function understood(u: NonNullable<RunReport['understood']>): string[] {
  const out = ["**Understood as:** the issue's words, read as this task block and confirmed by the repository; no model was asked.", '', u.block];
  if (u.notDone.length > 0) {
    out.push('', 'Not done:', '', ...u.notDone.slice(0, MAX_FINDING_ROWS).map((n) => `- ${inline(n.text)}: ${inline(n.why)}`));
    if (u.notDone.length > MAX_FINDING_ROWS) out.push(`- …and ${u.notDone.length - MAX_FINDING_ROWS} more.`);
  }
  return out;
}

/** The versions moved, as Renovate tabulates them; a major update or a downgrade is marked. */
function dependencyUpdates(r: RunReport): string[] {
  const mark: Record<string, string> = { major: '**major**', downgrade: '**downgrade**' };
  return [
    '### Dependency updates',
    '',
    '| package | from | to | update |',
    '|---|---|---|---|',
    ...r.dependencyUpdates.map((u) => `| ${codeCell(u.package)} | ${codeCell(u.from)} | ${codeCell(u.to)} | ${mark[u.updateType] ?? u.updateType} |`),
  ];
}

/**
 * The summary's word on builds and tests: the project commands draftsman ran (agent.verify), then
 * CI's state once known; "not run by draftsman" only where it ran none.
 */
function buildAndTestCell(v: RunReport['verification']): string {
  const ran = v.commands.filter((c) => c.status !== 'NOT_RUN');
  const ranText = ran.length > 0 ? `project commands run by draftsman: ${ran.filter((c) => c.status === 'PASSED').length} of ${ran.length} passed` : undefined;
  const ci = v.ci && v.ci.state !== 'unavailable' && v.ci.checks.length > 0 ? `CI ${v.ci.state}` : undefined;
  if (ranText) return ci ? `${ranText} · ${ci}` : ranText;
  return ci ?? (v.ciCommands.length > 0 ? 'build/tests not run by draftsman, left to CI' : 'no build commands in policy');
}

function summaryTable(r: RunReport): string[] {
  const added = sum(r.targets.map((t) => t.insertions ?? 0));
  const removed = sum(r.targets.map((t) => t.deletions ?? 0));
  // Line counts come from the diff review; a run stopped before it has none to show.
  const counted = r.targets.some((t) => t.insertions !== undefined || t.deletions !== undefined);
  const checks = checksShown(r.verification);
  const passed = checks.filter((c) => c.status === 'PASSED').length;
  const failed = checks.filter((c) => c.status === 'FAILED').length;
  const ciText = buildAndTestCell(r.verification);
  const high = r.antiCheat.filter((f) => f.severity === 'HIGH').length;
  const objective = summaryObjective(r);
  return [
    '| | |',
    '|---|---|',
    `| **Objective** | ${cell(objective)} |`,
    `| **Change** | ${changedAny(r) ? `${r.targets.length} ${plural(r.targets.length, 'file')}${counted ? ` (+${added} / -${removed})` : ''}` : 'none'} · engine: ${r.strategy.engine} |`,
    `| **Verification** | static checks: ${passed} passed, ${failed} failed · ${ciText} |`,
    `| **Risk** | ${r.risk.level} (score ${r.risk.score}) · anti-cheat: ${r.antiCheat.length === 0 ? 'no finding' : `${r.antiCheat.length} ${plural(r.antiCheat.length, 'finding')} (${high} high)`}${caveatCount(r)} |`,
    `| **Run** | ${cell(r.status)} · base ${codeCell(r.baseCommitSha.slice(0, 12))}${r.baseRef ? ` (${cell(r.baseRef)})` : ''} · attempt ${r.attempt}${r.budget.modelCalls ? ` · ${usage(r.budget.modelCalls)} model calls` : ''} |`,
    ...budgetLine(r),
  ];
}

/** The summary's word on the model's caveats, which the Risk section lists. */
function caveatCount(r: RunReport): string {
  const n = sum(r.modelAccount.map((a) => a.caveats.length));
  return n > 0 ? ` · the model names ${n} ${plural(n, 'thing')} it did not check or do (see Risk)` : '';
}

/**
 * The summary's Budget row, when the model's usage is known: calls, tokens each way and cost in
 * dollars (`n/a` when the deployment has no price for the model), and what stopped the run.
 */
function budgetLine(r: RunReport): string[] {
  const b = r.budget;
  if (!b.modelCalls || !b.tokensIn || !b.tokensOut) return [];
  const stopped = b.exhausted ? ` · **stopped: ${b.exhausted.dimension}**` : '';
  return [
    `| **Budget** | ${b.modelCalls.used} model calls · tokens ${b.tokensIn.used} in / ${b.tokensOut.used} out · cost ${costText(b.cost)}${stopped} |`,
    ...spendLine(b.spend),
  ];
}

function costText(cost: RunReport['budget']['cost']): string {
  if (!cost || cost.used === null) return 'n/a';
  return cost.limit !== undefined ? `${formatUsd(cost.used)} of ${formatUsd(cost.limit)}` : formatUsd(cost.used);
}

function scopeAndStrategy(r: RunReport): string[] {
  const out = ['**Scope**', ''];
  out.push(r.scope.paths.length > 0 ? `- Task scope: ${r.scope.paths.map(code).join(', ')}` : '- Task scope: the whole repository');
  out.push(
    changedAny(r)
      ? `- Changed ${r.targets.length} ${plural(r.targets.length, 'file')}.`
      : `- Changed no file; ${r.targets.length} candidate ${plural(r.targets.length, 'file')} selected.`,
  );
  for (const u of r.scope.untouched) out.push(`- Did not change: ${inline(u)}`);
  out.push('', `**Strategy** (engine: ${r.strategy.engine})`, '');
  if (r.strategy.steps.length === 0) out.push('- No change steps.');
  r.strategy.steps.forEach((s, i) => out.push(`${i + 1}. ${inline(s)}`));
  for (const n of r.strategy.notes) out.push(`- ${inline(n)}`);
  return out;
}

/** Whether the targets are changed files: an analysis changes none, its targets are only candidates. */
function changedAny(r: RunReport): boolean {
  return r.mode !== 'analysis';
}

function targets(r: RunReport): string[] {
  if (r.targets.length === 0) return ['No file changed.'];
  const out = ['| file | change | why |', '|---|---|---|'];
  for (const t of r.targets.slice(0, MAX_TARGET_ROWS)) {
    const lines = t.insertions !== undefined || t.deletions !== undefined ? ` +${t.insertions ?? 0}/-${t.deletions ?? 0}` : '';
    out.push(`| ${codeCell(t.path)} | ${cell(t.change ?? '')}${lines} | ${cell(t.reasons.join('; '))} |`);
  }
  if (r.targets.length > MAX_TARGET_ROWS) out.push('', `…and ${r.targets.length - MAX_TARGET_ROWS} more; see the diff summary artifact.`);
  return out;
}

/**
 * Risk reasons grouped by factor: `<factor>: <path>` reasons about the changed files become one
 * line per factor with a count (the files themselves are in Targets); other reasons stay as they are.
 */
function risk(r: RunReport): string[] {
  const editOf = new Map(r.targets.map((t) => [t.path, t.edit]));
  const groups = new Map<string, string[]>();
  const other: string[] = [];
  for (const reason of r.risk.reasons) {
    const at = reason.indexOf(': ');
    const path = at > 0 ? reason.slice(at + 2) : '';
    if (path && editOf.has(path)) groups.set(reason.slice(0, at), [...(groups.get(reason.slice(0, at)) ?? []), path]);
    else other.push(reason);
  }
  const out: string[] = [];
  for (const [factor, paths] of groups) {
    const edits = [...new Set(paths.map((p) => editOf.get(p)).filter((e): e is string => Boolean(e)))].sort();
    const kind = edits.length > 0 ? `, ${inline(edits.join(' and '))}` : '';
    const shown = paths.length <= MAX_NAMED_FILES ? `: ${paths.map(code).join(', ')}` : '';
    out.push(`- ${inline(factor)}: ${paths.length} ${plural(paths.length, 'file')}${kind}${shown}`);
  }
  for (const reason of other) out.push(`- ${inline(reason)}`);
  if (out.length === 0) out.push('- No risk factor found.');
  out.push(...modelCaveats(r));
  if (r.risk.requiredGate) out.push('', `Required gate: ${code(r.risk.requiredGate)}`);
  return out;
}

function policyVerdicts(r: RunReport): string[] {
  return ['| rule | verdict | detail |', '|---|---|---|', ...r.policyVerdicts.map((p) => `| ${cell(p.rule)} | ${p.verdict} | ${cell(p.detail ?? '')} |`)];
}

function antiCheat(r: RunReport): string[] {
  if (r.antiCheat.length === 0) return ['No skipped test, removed assertion, skip flag or CI edit found in the diff.'];
  const out = ['| severity | rule | where | line |', '|---|---|---|---|'];
  for (const f of r.antiCheat.slice(0, MAX_FINDING_ROWS)) {
    out.push(`| ${f.severity} | ${cell(f.rule)} | ${codeCell(f.path)}${f.line !== undefined ? `:${f.line}` : ''} | ${codeCell(f.snippet)} |`);
  }
  if (r.antiCheat.length > MAX_FINDING_ROWS) out.push('', `…and ${r.antiCheat.length - MAX_FINDING_ROWS} more.`);
  return out;
}

function budget(r: RunReport): string[] {
  const b = r.budget;
  // Phase steps are the pipeline's own actions, not the task's recipe steps: shown only beside a
  // limit or a model's rows, where they measure something a reviewer weighs.
  const stepsMatter = b.steps.limit !== undefined || b.modelCalls !== undefined;
  const rows: [string, z.infer<typeof Usage> | undefined][] = [
    ['phase steps', stepsMatter ? b.steps : undefined],
    ['model calls', b.modelCalls],
    ['tool calls', b.toolCalls],
    ['tokens', b.tokens],
    ['tokens in', b.tokensIn],
    ['tokens out', b.tokensOut],
    ['files changed', b.files],
    ['lines changed', b.lines],
  ];
  const shown = rows.filter((row): row is [string, z.infer<typeof Usage>] => row[1] !== undefined);
  const out = ['| dimension | used | limit |', '|---|---|---|', ...shown.map(([name, u]) => `| ${name} | ${u.used} | ${u.limit ?? '-'} |`)];
  if (b.cost)
    out.push(
      `| cost (USD) | ${b.cost.used === null ? 'n/a (no price for the model)' : formatUsd(b.cost.used)} | ${b.cost.limit !== undefined ? formatUsd(b.cost.limit) : '-'} |`,
    );
  if (b.wallClockMs !== undefined) out.push(`| wall clock | ${seconds(b.wallClockMs)} | - |`);
  if (b.phases.length > 0) {
    out.push('', '| phase | model calls | tool calls | tokens in | tokens out | cost (USD) | wall clock |', '|---|---|---|---|---|---|---|');
    for (const p of b.phases) {
      out.push(
        `| ${cell(p.phase)} | ${p.modelCalls} | ${p.toolCalls} | ${p.tokensIn} | ${p.tokensOut} | ${p.costMicroUsd === null ? 'n/a' : formatUsd(p.costMicroUsd)} | ${p.wallClockMs === undefined ? '-' : seconds(p.wallClockMs)} |`,
      );
    }
  }
  if (b.exhausted)
    out.push(
      '',
      `**Stopped by a budget:** ${inline(describeExhaustion(b.exhausted))}${b.exhausted.phase ? ` in ${inline(b.exhausted.phase)}${b.exhausted.segment ? ` (${inline(b.exhausted.segment)})` : ''}` : ''}.`,
    );
  return out;
}

function seconds(ms: number): string {
  return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
}

const STATE_LABEL: Record<RunReport['phases'][number]['state'], string> = {
  done: 'done',
  running: 'running',
  pending: 'pending',
  skipped: 'skipped',
  failed: 'failed',
  blocked: 'blocked',
};

function mermaid(r: RunReport): string[] {
  const lines: string[] = ['flowchart LR'];
  if (r.phases.length > 0) {
    r.phases.forEach((p, i) => lines.push(`  p${i}["${mermaidText(p.name)}: ${STATE_LABEL[p.state]}"]:::${p.state}`));
    if (r.phases.length > 1) lines.push(`  ${r.phases.map((_, i) => `p${i}`).join(' --> ')}`);
    const used = [...new Set(r.phases.map((p) => p.state))].sort();
    const styles: Record<string, string> = {
      done: 'fill:#dcfce7,stroke:#15803d',
      running: 'fill:#dbeafe,stroke:#1d4ed8',
      pending: 'fill:#f3f4f6,stroke:#6b7280',
      skipped: 'fill:#f3f4f6,stroke:#9ca3af,stroke-dasharray:3 3',
      failed: 'fill:#fee2e2,stroke:#b91c1c',
      blocked: 'fill:#fef3c7,stroke:#b45309',
    };
    for (const s of used) lines.push(`  classDef ${s} ${styles[s]}`);
  } else if (r.modules.length > 0) {
    lines.push('  change(("change"))');
    r.modules.slice(0, 12).forEach((m, i) => lines.push(`  change --> m${i}["${mermaidText(m.name)} (${m.files} ${plural(m.files, 'file')})"]`));
  } else return [];
  return fenced('mermaid', lines.join('\n'));
}

function runFacts(r: RunReport): string[] {
  const out = [
    `- Run ${code(r.runId)}, attempt ${r.attempt}, status ${code(r.status)}${r.mode ? `, mode ${code(r.mode)}` : ''}`,
    `- Base commit: ${code(r.baseCommitSha)}${r.baseRef ? ` (${code(r.baseRef)})` : ''}`,
  ];
  if (r.repository) out.push(`- Repository: ${code(r.repository)}`);
  if (r.headCommitSha) out.push(`- Head commit: ${code(r.headCommitSha)}`);
  if (r.agentBranch) out.push(`- Branch: ${code(r.agentBranch)}`);
  if (r.createdAt) out.push(`- Attempt created at: ${inline(r.createdAt)}`);
  if (r.artifacts.length > 0) {
    out.push('- Artifacts:');
    for (const a of r.artifacts)
      out.push(
        /^https?:\/\//.test(a.url) ? `  - [${inline(a.name)}](${a.url.replace(/[()\s]/g, encodeURIComponent)})` : `  - ${inline(a.name)}: ${code(a.url)}`,
      );
  }
  return out;
}

/**
 * The summary row's objective: the first paragraph of its prose (or the title), cut at a word
 * outside code spans; a fenced block is never squashed onto the row (the Objective section shows it).
 */
function summaryObjective(r: RunReport): string {
  return shortenOutsideCode(firstParagraph(proseOnly(objectiveText(r))) || firstLine(r.title), 160);
}

/** Whether the summary row already shows the whole objective (no fenced block), so a section would only repeat it. */
function summaryShowsWhole(r: RunReport, objective: string): boolean {
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  return proseOnly(objective) === objective && flat(summaryObjective(r)) === flat(objective);
}

/** The objective without a first line that only repeats the title (a CLI task's heading is both). */
function objectiveText(r: RunReport): string {
  const lines = r.objective.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== '');
  const bare = (text: string) =>
    text
      .replace(/^\s{0,3}#+\s*/, '')
      .replace(/\s+/g, ' ')
      .trim();
  if (first < 0 || !r.title || bare(lines[first]) !== bare(r.title)) return r.objective;
  return lines
    .slice(first + 1)
    .join('\n')
    .trim();
}

function verdictCounts(r: RunReport): string {
  const counts = new Map<string, number>();
  for (const p of r.policyVerdicts) counts.set(p.verdict, (counts.get(p.verdict) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k.toLowerCase()}`).join(', ');
}

function usage(u: z.infer<typeof Usage>): string {
  return u.limit !== undefined ? `${u.used}/${u.limit}` : `${u.used}`;
}
