import { z } from 'zod';
import { escapeControls } from '../git/quote-path.js';

/**
 * The run report (seed Part 047 §21) rendered as the draft PR body: a five-row summary a
 * reviewer reads in thirty seconds, details folded in `<details>`, and a Verification section
 * between markers that the publisher replaces with real CI results later. The body says only
 * what the report says ran: static checks are labelled as such, build and test commands are
 * listed as not run by draftsman. Deterministic: no clock, no locale; the only dates are those
 * passed in.
 */

const Usage = z.strictObject({ used: z.number().int().nonnegative(), limit: z.number().int().nonnegative().optional() });
const Severity = z.enum(['HIGH', 'MEDIUM']);
const Level = z.enum(['LOW', 'MEDIUM', 'HIGH']);

export const RunReportVerification = z
  .strictObject({
    /** Checks draftsman ran itself (static: parse, scope guard, secret scan, anti-cheat). */
    checks: z.array(z.strictObject({ name: z.string().min(1), status: z.enum(['PASSED', 'FAILED', 'SKIPPED']), detail: z.string().optional() })),
    /** What did not run, and why (build and test commands always land here). */
    notRun: z.array(z.strictObject({ name: z.string().min(1), why: z.string().min(1) })),
    /** The policy's `agent.build.commands`: what CI should run. */
    ciCommands: z.array(z.string().min(1)),
    /** The policy's `agent.build.defaultVerifier` (e.g. maven, npm). */
    verifier: z.string().optional(),
    /** Real CI results, once the publisher has them. */
    ci: z
      .strictObject({
        state: z.enum(['unavailable', 'pending', 'success', 'failure', 'mixed']),
        commitSha: z.string().optional(),
        checks: z.array(z.strictObject({ name: z.string(), status: z.string(), conclusion: z.string().nullable(), url: z.string().optional() })),
      })
      .optional(),
  })
  .refine((v) => !v.checks.some((c) => v.notRun.some((n) => n.name === c.name)), {
    message: 'a check cannot be both run and not run',
    path: ['notRun'],
  });
export type RunReportVerification = z.infer<typeof RunReportVerification>;

export const RunReport = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** Terminal state of the attempt (COMPLETED, NEEDS_APPROVAL, ...). */
  status: z.string().min(1),
  title: z.string(),
  objective: z.string(),
  mode: z.enum(['draft_pr', 'analysis']).optional(),
  repository: z.string().optional(),
  baseRef: z.string().optional(),
  baseCommitSha: z.string().min(1),
  headCommitSha: z.string().optional(),
  agentBranch: z.string().optional(),
  /** The attempt's `createdAt`, when the caller wants it shown. */
  createdAt: z.string().optional(),
  scope: z.strictObject({
    /** Task scope globs; empty means the whole repository. */
    paths: z.array(z.string()),
    /** What the run deliberately left alone (e.g. "CI configuration", "lockfiles"). */
    untouched: z.array(z.string()).default([]),
  }),
  strategy: z.strictObject({
    engine: z.enum(['recipe', 'llm', 'hybrid', 'none']),
    steps: z.array(z.string()),
    notes: z.array(z.string()).default([]),
  }),
  targets: z.array(
    z.strictObject({
      path: z.string(),
      change: z.string().optional(),
      insertions: z.number().int().nonnegative().optional(),
      deletions: z.number().int().nonnegative().optional(),
      reasons: z.array(z.string()),
    }),
  ),
  verification: RunReportVerification,
  lockfiles: z.array(z.strictObject({ path: z.string(), command: z.string(), why: z.string().optional() })).default([]),
  risk: z.strictObject({ level: Level, score: z.number(), reasons: z.array(z.string()), requiredGate: z.string().optional() }),
  policyVerdicts: z.array(z.strictObject({ rule: z.string(), verdict: z.enum(['PASS', 'WARN', 'FAIL', 'APPROVED']), detail: z.string().optional() })).default([]),
  antiCheat: z.array(z.strictObject({ rule: z.string(), path: z.string(), line: z.number().int().optional(), snippet: z.string(), severity: Severity })).default([]),
  budget: z.strictObject({ steps: Usage, modelCalls: Usage, tokens: Usage, files: Usage, lines: Usage }),
  phases: z.array(z.strictObject({ name: z.string(), state: z.enum(['pending', 'running', 'done', 'skipped', 'failed', 'blocked']) })).default([]),
  /** Touched modules, drawn when there are no phases to draw. */
  modules: z.array(z.strictObject({ name: z.string(), files: z.number().int().nonnegative() })).default([]),
  artifacts: z.array(z.strictObject({ name: z.string(), url: z.string() })).default([]),
  /** Things the reviewer must know first (base moved and policy is warn, partial result...). */
  warnings: z.array(z.string()).default([]),
});
export type RunReport = z.infer<typeof RunReport>;
export type RunReportInput = z.input<typeof RunReport>;

export const VERIFICATION_START = '<!-- draftsman:verification:start -->';
export const VERIFICATION_END = '<!-- draftsman:verification:end -->';

const MAX_TARGET_ROWS = 100;
const MAX_FINDING_ROWS = 50;
const MAX_OBJECTIVE = 4_000;

/** Render the PR body. The report is validated first; an invalid report throws the ZodError. */
export function renderRunReport(input: RunReportInput): string {
  const report = RunReport.parse(input);
  const out: string[] = [];
  out.push(`<!-- draftsman:run-report run=${attr(report.runId)} attempt=${report.attempt} -->`);
  out.push(`## ${inline(report.title || 'Draft change')}`, '');
  out.push(...summaryTable(report), '');

  if (report.warnings.length > 0) {
    out.push('> [!WARNING]', ...report.warnings.map((w) => `> ${inline(w)}`), '');
  }
  if (report.lockfiles.length > 0) {
    out.push('### Lockfiles to refresh', '', 'Lockfiles were not edited; regenerate them before merging:', '');
    for (const l of report.lockfiles) out.push(`- ${code(l.path)}: run ${code(l.command)}${l.why ? ` (${inline(l.why)})` : ''}`);
    out.push('');
  }

  out.push('### Objective', '', block(clip(report.objective, MAX_OBJECTIVE)) || '_No objective given._', '');
  out.push(...details('Scope and strategy', scopeAndStrategy(report)));
  out.push(...details(`Targets (${report.targets.length} ${plural(report.targets.length, 'file')})`, targets(report)));
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
 * The Verification section's content (without markers): static checks draftsman ran, what it
 * did not run, what CI should run, and CI results when known. The publisher calls this again
 * with `ci` filled in and swaps it in with `replaceVerificationSection`.
 */
export function renderVerificationSection(input: z.input<typeof RunReportVerification>): string {
  const v = RunReportVerification.parse(input);
  const out: string[] = ['## Verification', ''];
  if (v.checks.length > 0) {
    out.push('**Checked by draftsman** (static checks; no build or test was run):', '', '| check | result | detail |', '|---|---|---|');
    for (const c of v.checks) out.push(`| ${cell(c.name)} | ${statusMark(c.status)} | ${cell(c.detail ?? '')} |`);
    out.push('');
  } else out.push('Draftsman ran no checks on this change.', '');
  if (v.notRun.length > 0) {
    out.push('**Not run by draftsman:**', '');
    for (const n of v.notRun) out.push(`- ${inline(n.name)}: ${inline(n.why)}`);
    out.push('');
  }
  if (v.ciCommands.length > 0) {
    out.push(`**CI should run** (from the policy's \`agent.build.commands\`${v.verifier ? `, ${inline(v.verifier)}` : ''}):`, '');
    out.push(...fenced('sh', v.ciCommands.join('\n')), '');
  } else out.push('The policy lists no `agent.build.commands`; CI results are the only test evidence.', '');

  if (!v.ci || v.ci.state === 'unavailable' || (v.ci.state === 'pending' && v.ci.checks.length === 0)) {
    out.push(v.ci?.state === 'unavailable' ? '**CI results:** unavailable for this commit.' : '**CI results:** not yet known; this section is updated when CI reports.');
  } else {
    out.push(`**CI results** (${v.ci.state}${v.ci.commitSha ? ` on ${code(v.ci.commitSha.slice(0, 12))}` : ''}):`, '', '| check | status | conclusion |', '|---|---|---|');
    for (const c of v.ci.checks) {
      const name = c.url && /^https?:\/\//.test(c.url) ? `[${cell(c.name)}](${c.url.replace(/[()\s]/g, encodeURIComponent)})` : cell(c.name);
      out.push(`| ${name} | ${cell(c.status)} | ${cell(c.conclusion ?? 'pending')} |`);
    }
  }
  return out.join('\n').trimEnd();
}

/**
 * Replace the Verification section (between the markers) of a PR body with `markdown`. A body
 * that lost its markers (a human edited it) gets the section appended instead. Markers inside
 * `markdown` are removed so the section stays well delimited.
 */
export function replaceVerificationSection(body: string, markdown: string): string {
  const content = markdown.split(VERIFICATION_START).join('').split(VERIFICATION_END).join('').trim();
  const section = markedSection(content);
  const start = body.indexOf(VERIFICATION_START);
  const end = start >= 0 ? body.indexOf(VERIFICATION_END, start) : -1;
  if (start >= 0 && end > start) return body.slice(0, start) + section + body.slice(end + VERIFICATION_END.length);
  return `${body.trimEnd()}\n\n${section}\n`;
}

/** Blank lines around the content keep the comment markers separate HTML blocks in any renderer. */
function markedSection(content: string): string {
  return `${VERIFICATION_START}\n\n${content}\n\n${VERIFICATION_END}`;
}

function summaryTable(r: RunReport): string[] {
  const added = sum(r.targets.map((t) => t.insertions ?? 0));
  const removed = sum(r.targets.map((t) => t.deletions ?? 0));
  const passed = r.verification.checks.filter((c) => c.status === 'PASSED').length;
  const failed = r.verification.checks.filter((c) => c.status === 'FAILED').length;
  const ci = r.verification.ci;
  const ciText = ci && ci.state !== 'unavailable' && ci.checks.length > 0 ? `CI ${ci.state}` : r.verification.ciCommands.length > 0 ? 'build/tests not run by draftsman, left to CI' : 'no build commands in policy';
  const high = r.antiCheat.filter((f) => f.severity === 'HIGH').length;
  const objective = firstLine(r.objective) || firstLine(r.title);
  return [
    '| | |',
    '|---|---|',
    `| **Objective** | ${cell(clip(objective, 140))} |`,
    `| **Change** | ${r.targets.length} ${plural(r.targets.length, 'file')} (+${added} / -${removed}) · engine: ${r.strategy.engine} |`,
    `| **Verification** | static checks: ${passed} passed, ${failed} failed · ${ciText} |`,
    `| **Risk** | ${r.risk.level} (score ${r.risk.score}) · anti-cheat: ${r.antiCheat.length === 0 ? 'no finding' : `${r.antiCheat.length} ${plural(r.antiCheat.length, 'finding')} (${high} high)`} |`,
    `| **Run** | ${cell(r.status)} · base ${codeCell(r.baseCommitSha.slice(0, 12))}${r.baseRef ? ` (${cell(r.baseRef)})` : ''} · attempt ${r.attempt} · ${usage(r.budget.modelCalls)} model calls |`,
  ];
}

function scopeAndStrategy(r: RunReport): string[] {
  const out = ['**Scope**', ''];
  out.push(r.scope.paths.length > 0 ? `- Task scope: ${r.scope.paths.map(code).join(', ')}` : '- Task scope: the whole repository');
  out.push(`- Changed ${r.targets.length} ${plural(r.targets.length, 'file')}.`);
  for (const u of r.scope.untouched) out.push(`- Did not change: ${inline(u)}`);
  out.push('', `**Strategy** (engine: ${r.strategy.engine})`, '');
  if (r.strategy.steps.length === 0) out.push('- No change steps.');
  r.strategy.steps.forEach((s, i) => out.push(`${i + 1}. ${inline(s)}`));
  for (const n of r.strategy.notes) out.push(`- ${inline(n)}`);
  return out;
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

function risk(r: RunReport): string[] {
  const out = r.risk.reasons.length > 0 ? r.risk.reasons.map((reason) => `- ${inline(reason)}`) : ['- No risk factor found.'];
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
  const rows: [string, z.infer<typeof Usage>][] = [
    ['steps', r.budget.steps],
    ['model calls', r.budget.modelCalls],
    ['tokens', r.budget.tokens],
    ['files changed', r.budget.files],
    ['lines changed', r.budget.lines],
  ];
  return ['| dimension | used | limit |', '|---|---|---|', ...rows.map(([name, u]) => `| ${name} | ${u.used} | ${u.limit ?? '-'} |`)];
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
    for (const a of r.artifacts) out.push(/^https?:\/\//.test(a.url) ? `  - [${inline(a.name)}](${a.url.replace(/[()\s]/g, encodeURIComponent)})` : `  - ${inline(a.name)}: ${code(a.url)}`);
  }
  return out;
}

// ---- formatting helpers: everything from the repository or the issue is treated as text ----

function details(summary: string, body: string[]): string[] {
  return ['<details>', `<summary>${summary}</summary>`, '', ...body, '', '</details>', ''];
}

/** Inline text: HTML neutralised (no comment markers, no tags), @mentions defused, one line. */
function inline(text: string): string {
  return escapeControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=[A-Za-z0-9])/g, '@&#8203;')
    .replace(/([[\]])/g, '\\$1')
    .replace(/\s*\r?\n\s*/g, ' ');
}

/** A paragraph block: like `inline` but keeps line breaks. */
function block(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => inline(line))
    .join('\n')
    .trim();
}

function cell(text: string): string {
  return inline(text).replace(/\|/g, '\\|');
}

/** A code span inside a table row: GFM reads `\\|` in a cell as a literal pipe, even in code. */
function codeCell(text: string): string {
  return code(text).replace(/\|/g, '\\|');
}

/** A code span that survives backticks and pipes in its content. */
function code(text: string): string {
  const flat = escapeControls(text.replace(/\s*\r?\n\s*/g, ' '));
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function fenced(info: string, text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, text, fence];
}

function mermaidText(text: string): string {
  return text.replace(/["<>\r\n`]/g, ' ').replace(/[[\]{}()]/g, ' ').trim();
}

function attr(text: string): string {
  return text.replace(/[^A-Za-z0-9._:/-]/g, '_');
}

function statusMark(status: 'PASSED' | 'FAILED' | 'SKIPPED'): string {
  return status === 'PASSED' ? '✅ passed' : status === 'FAILED' ? '❌ failed' : '⏭️ skipped';
}

function verdictCounts(r: RunReport): string {
  const counts = new Map<string, number>();
  for (const p of r.policyVerdicts) counts.set(p.verdict, (counts.get(p.verdict) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k.toLowerCase()}`).join(', ');
}

function usage(u: z.infer<typeof Usage>): string {
  return u.limit !== undefined ? `${u.used}/${u.limit}` : `${u.used}`;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/).map((l) => l.trim()).find((l) => l.length > 0) ?? '';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
