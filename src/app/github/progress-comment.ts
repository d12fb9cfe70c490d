import type { RunProgress, RunReporter } from '../../core/ports.js';
import type { GitHubApi } from './github-api.js';
import type { PlanDocument } from '../../core/runs/plan-gate.js';

const STATE_ICON: Record<RunProgress['phases'][number]['state'], string> = {
  pending: '⬜',
  running: '🔄',
  done: '✅',
  skipped: '➖',
  failed: '❌',
  blocked: '⛔',
};

const ICON_STATE = new Map(Object.entries(STATE_ICON).map(([state, icon]) => [icon, state as RunProgress['phases'][number]['state']]));

/**
 * The phase checklist of a rendered progress comment. The publisher edits the comment after the
 * worker is gone and knows nothing of the phases: it carries the worker's checklist over.
 */
export function parseProgressPhases(body: string): RunProgress['phases'] {
  const phases: RunProgress['phases'] = [];
  for (const line of body.split('\n')) {
    const match = /^- (\S+) (.+)$/u.exec(line);
    const state = match ? ICON_STATE.get(match[1]) : undefined;
    if (match && state) phases.push({ name: match[2], state });
  }
  return phases;
}

/** Marker that identifies the progress comment of a run. */
export function progressMarker(runId: string): string {
  return `<!-- draftsman:progress run=${runId} -->`;
}

/** The approval gate as the publisher recomputed it (`control/gate-<n>.json`). */
export interface GateView {
  gateId: string;
  riskLevel: string;
  violations: { rule: string; path?: string; message: string }[];
  changes: { path: string; contentId: string }[];
  /** A plan gate: the digest of the stored `plan.json`, and the plan as shown. */
  plan?: { digest: string; document: PlanDocument };
}

/** Changed paths the comment lists; the gate record holds them all. */
const GATE_PATHS_SHOWN = 50;

const code = (text: string) => `\`${text.replace(/[`\r\n]/g, '?')}\``;

const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** What `/agent approve` approves at a plan gate: the plan by its digest, its segments, the files it may change and its spend. */
function planLines(plan: NonNullable<GateView['plan']>, gateId: string): string[] {
  const { document: d } = plan;
  const spend = d.estimatedSpend;
  const lines = [
    `**Plan approval needed** (gate ${code(gateId)}, plan.json sha256 ${code(plan.digest.slice(0, 16))}). \`/agent approve\` lets the next attempt make the change this plan describes, held to its ${d.files.length} file(s); a change to any other file stops for a new approval.`,
    '',
    `- Strategy: ${d.strategy} — ${oneLine(d.reason)}`,
    `- Estimated spend: at most ${spend.modelCallsAtMost} model call(s)${spend.costUsdAtMost !== undefined ? `, at most US$${spend.costUsdAtMost}` : ''} (${oneLine(spend.basis)})`,
    `- Targets: ${
      d.targets
        .slice(0, 10)
        .map((t) => code(t.path))
        .join(', ') || '(none)'
    }${d.targets.length > 10 ? `, … and ${d.targets.length - 10} more` : ''}`,
  ];
  for (const s of d.segments) lines.push(`- Segment ${code(s.id)} (${s.engine}${s.recipe ? ` ${code(s.recipe)}` : ''}): ${s.files.length} file(s)`);
  lines.push('', 'Files the change may touch:', '');
  for (const f of d.files.slice(0, GATE_PATHS_SHOWN)) lines.push(`- ${code(f)}`);
  if (d.files.length > GATE_PATHS_SHOWN) lines.push(`- … and ${d.files.length - GATE_PATHS_SHOWN} more (plan.json)`);
  lines.push('');
  return lines;
}

/** What `/agent approve` approves: every changed path, its content, and the rules it raises. */
function gateLines(gate: GateView): string[] {
  if (gate.plan) return planLines(gate.plan, gate.gateId);
  const rules = new Map<string, string[]>();
  for (const v of gate.violations) if (v.path) rules.set(v.path, [...(rules.get(v.path) ?? []), v.rule]);
  const lines = [
    `**Approval needed** (gate ${code(gate.gateId)}, risk ${gate.riskLevel}). \`/agent approve\` lets the next attempt publish exactly this change, ${gate.changes.length} file(s) at these contents, and nothing else:`,
    '',
  ];
  for (const c of gate.changes.slice(0, GATE_PATHS_SHOWN)) {
    const content = c.contentId === 'deleted' ? 'deleted' : `blob ${code(c.contentId.slice(0, 12))}`;
    const raised = rules.get(c.path);
    lines.push(`- ${code(c.path)} (${content})${raised ? `: ${raised.join(', ')}` : ''}`);
  }
  if (gate.changes.length > GATE_PATHS_SHOWN) lines.push(`- … and ${gate.changes.length - GATE_PATHS_SHOWN} more (control/gate record)`);
  for (const v of gate.violations.filter((x) => !x.path)) lines.push(`- ${v.rule}: ${oneLine(v.message)}`);
  lines.push('');
  return lines;
}

/** The progress comment: the task echoed back, one checklist line per phase, the result, the run's spend so far, and the gate it waits on. */
export function renderProgressComment(progress: RunProgress, gate?: GateView, spend?: string): string {
  const lines: string[] = [progressMarker(progress.runId), `### draftsman run \`${progress.runId}\` · attempt ${progress.attempt}`, ''];
  lines.push(`**Status:** ${progress.status}${progress.message ? ` — ${progress.message}` : ''}`);
  if (progress.baseCommitSha) lines.push(`**Base commit:** \`${progress.baseCommitSha}\``);
  if (progress.pullRequestUrl) lines.push(`**Draft pull request:** ${progress.pullRequestUrl}`);
  if (spend) lines.push(`**Spend so far:** ${spend} (all attempts)`);
  lines.push('');
  if (gate) lines.push(...gateLines(gate));
  if (progress.phases.length > 0) {
    for (const phase of progress.phases) lines.push(`- ${STATE_ICON[phase.state]} ${phase.name}`);
    lines.push('');
  }
  if (progress.taskEcho) {
    lines.push('<details><summary>Task as understood</summary>', '', '```yaml', progress.taskEcho.replace(/```/g, "'''"), '```', '', '</details>', '');
  }
  const artifacts = Object.entries(progress.artifacts ?? {});
  if (artifacts.length > 0) {
    lines.push('<details><summary>Artifacts</summary>', '');
    for (const [name, where] of artifacts) lines.push(`- ${name}: \`${where}\``);
    lines.push('', '</details>', '');
  }
  lines.push('<sub>Commands: `/agent status` · `/agent cancel` · `/agent approve` · `/agent retry` · `/agent help`</sub>');
  return lines.join('\n');
}

/** Edits one issue comment in place with each progress update. */
export class IssueCommentReporter implements RunReporter {
  constructor(
    private readonly api: GitHubApi,
    private readonly target: { owner: string; repo: string; commentId: number },
  ) {}

  async report(progress: RunProgress): Promise<void> {
    await this.api.rest.issues.updateComment({
      owner: this.target.owner,
      repo: this.target.repo,
      comment_id: this.target.commentId,
      body: renderProgressComment(progress),
    });
  }
}
