import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CampaignSpec } from '../../core/campaign/campaign-spec.js';
import { CampaignError, parseCampaign } from '../../core/campaign/parse-campaign.js';
import type { SelectionCondition } from '../../core/campaign/select-checkout.js';
import { escapeControls } from '../../core/text/quote-path.js';
import { outcomeOf, type CampaignOutcomeKind } from '../campaign/campaign-outcome.js';
import { campaignTask } from '../campaign/campaign-task.js';
import { chooseRepository, unevaluatedNotice } from './campaign-selection.js';
import { UsageError, type CliIo } from './cli-io.js';

/** Runs `draftsman run` with these arguments and this io; the exit code. */
export type RunOne = (argv: string[], io: CliIo) => Promise<number>;

/**
 * How one repository of a campaign ended, read from its run's `--json` object (README, "The CLI").
 * changed: a commit (published with --publish); unchanged: nothing to change or an analysis;
 * declined: its policy said no or asks for approval; failed. `unselected` is the CLI's own: the
 * campaign's `repositories` leave out a --repos it was given, so it has no run to read an outcome
 * of (the App never makes an item of a repository its selection leaves out).
 */
export interface CampaignOutcome {
  repository: string;
  /** The repository's owner/name, as the spec's `repositories` see it. */
  name?: string;
  outcome: CampaignOutcomeKind | 'unselected';
  status: string;
  reason?: string;
  exitCode: number;
  detail?: string;
  /** unselected: the condition it fails. */
  condition?: SelectionCondition;
}

/** `draftsman campaign check FILE` and `draftsman campaign run FILE --repos ...` (docs/campaigns.md). */
export async function campaignCommand(argv: string[], io: CliIo, runOne: RunOne): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'check') return checkCampaign(rest, io);
  if (sub === 'run') return runCampaign(rest, io, runOne);
  throw new UsageError(`unknown campaign command: ${sub ?? '(none)'} (campaign check FILE | campaign run FILE --repos PATH...)`);
}

function readSpec(file: string, io: CliIo): string {
  try {
    return readFileSync(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
}

function checkCampaign(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw new UsageError('campaign check takes one FILE');
  const file = positionals[0];
  try {
    const spec = parseCampaign(readSpec(file, io), file);
    io.stdout(values.json ? `${JSON.stringify({ file, status: 'VALID', name: spec.name, problems: [] })}\n` : `${file}: valid (campaign ${spec.name})\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof CampaignError)) throw error;
    io.stdout(`${error.format()}\n`);
    if (values.json) io.stdout(`${JSON.stringify({ file, status: 'INVALID', reason: error.reason, problems: error.data.problems })}\n`);
    return 1;
  }
}

async function runCampaign(argv: string[], io: CliIo, runOne: RunOne): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      repos: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      publish: { type: 'boolean', default: false },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('campaign run takes one FILE');
  const file = positionals[0];
  let spec: CampaignSpec;
  try {
    spec = parseCampaign(readSpec(file, io), file);
  } catch (error) {
    if (!(error instanceof CampaignError)) throw error;
    io.stderr(`draftsman: ${file} is not a valid campaign:\n${error.format()}\n`);
    return 1;
  }
  const repos = values.repos ?? [];
  if (repos.length === 0) throw new UsageError('campaign run needs --repos PATH... (local checkouts or URLs; each --repos takes one)');
  const concurrency = values.concurrency === undefined ? spec.pace.concurrency : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 50) throw new UsageError('--concurrency must be a whole number from 1 to 50');
  const out = resolve(io.cwd, values.out ?? join('.draftsman', 'campaigns', spec.name));
  const task = campaignTask(spec);
  const names = uniqueNames(repos);
  const outcomes: CampaignOutcome[] = new Array(repos.length);
  let next = 0;
  let done = 0;
  const notice = unevaluatedNotice(spec);
  if (notice) io.stderr(notice);
  const worker = async () => {
    for (let i = next++; i < repos.length; i = next++) {
      const argvOne = [repos[i], '--task', task, '--out', join(out, names[i]), '--run-id', runIdOf(spec.name, names[i]), '--json'];
      if (values.publish && spec.publish === 'draft') argvOne.push('--publish');
      outcomes[i] = await chooseAndRun(spec, repos[i], argvOne, io, runOne);
      done++;
      io.stderr(`[${done}/${repos.length}] ${repos[i]}: ${progressOf(outcomes[i])}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, repos.length) }, worker));
  const counts = countOutcomes(outcomes);
  if (values.json) io.stdout(`${JSON.stringify({ campaign: spec.name, file, counts, repositories: outcomes })}\n`);
  else io.stdout(`${renderTable(spec, outcomes, counts)}\n`);
  return counts.failed === 0 ? 0 : 1;
}

/** The run id of a repository's run in the campaign: stable, so a second run continues the same runs (letters, digits, _ and - only). */
function runIdOf(campaign: string, name: string): string {
  return `${campaign}-${name}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);
}

/** One directory name per repository under the campaign's --out: its base name, numbered when two share one. */
function uniqueNames(repos: string[]): string[] {
  const seen = new Map<string, number>();
  return repos.map((repo) => {
    const base = basename(repo.replace(/\/+$/, '').replace(/\.git$/, '')).replace(/[^A-Za-z0-9._-]/g, '-') || 'repo';
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

/** One --repos: left out when the campaign's `repositories` do not take it, else its run's outcome. */
async function chooseAndRun(spec: CampaignSpec, repository: string, argv: string[], io: CliIo, runOne: RunOne): Promise<CampaignOutcome> {
  const { name, selection } = await chooseRepository(spec, repository, io.cwd);
  if (selection && !selection.selected) {
    return { repository, name, outcome: 'unselected', status: 'UNSELECTED', exitCode: 0, detail: selection.detail, condition: selection.condition };
  }
  const run = await runRepository(repository, argv, io, runOne);
  return { ...run, name };
}

/** The progress line's words for one repository. */
function progressOf(o: CampaignOutcome): string {
  if (o.outcome === 'unselected') return `unselected (${o.detail ?? ''})`;
  return `${o.outcome} (${o.status}${o.reason ? ` ${o.reason}` : ''})`;
}

async function runRepository(repository: string, argv: string[], io: CliIo, runOne: RunOne): Promise<CampaignOutcome> {
  let stdout = '';
  let stderr = '';
  const captured: CliIo = { ...io, isTty: false, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  let exitCode: number;
  try {
    exitCode = await runOne(argv, captured);
  } catch (error) {
    return { repository, outcome: 'failed', status: 'ERROR', exitCode: 1, detail: error instanceof Error ? error.message : String(error) };
  }
  const last = stdout.trimEnd().split('\n').pop() ?? '';
  let json: { status?: string; reason?: string; headCommitSha?: string; agentBranch?: string; publish?: string } | undefined;
  try {
    json = JSON.parse(last) as typeof json;
  } catch {
    json = undefined;
  }
  const status = json?.status ?? 'ERROR';
  const detail = json
    ? (json.publish ?? (json.headCommitSha ? `commit ${json.headCommitSha.slice(0, 12)} on ${json.agentBranch}` : undefined))
    : lastLine(stderr);
  const outcome = outcomeOf(status, Boolean(json?.headCommitSha), json?.reason);
  return { repository, outcome, status, ...(json?.reason ? { reason: json.reason } : {}), exitCode, ...(detail ? { detail } : {}) };
}

const lastLine = (text: string): string | undefined => text.trim().split('\n').pop()?.slice(0, 300) || undefined;

function countOutcomes(outcomes: CampaignOutcome[]): Record<CampaignOutcome['outcome'], number> {
  const counts = { changed: 0, unchanged: 0, declined: 0, failed: 0, unselected: 0 };
  for (const o of outcomes) counts[o.outcome]++;
  return counts;
}

/** A table cell for the terminal: control characters shown, never obeyed; one line; pipes kept out of the layout. */
const cell = (text: string | undefined) => escapeControls((text ?? '').replace(/\s+/g, ' ')).replace(/\|/g, '\\|');

function renderTable(spec: CampaignSpec, outcomes: CampaignOutcome[], counts: Record<string, number>): string {
  const rows = outcomes.map((o) => `| ${cell(o.repository)} | ${o.outcome} | ${o.status} | ${cell(o.reason)} | ${cell(o.detail)} |`);
  const summary = Object.entries(counts)
    // unselected is named when some are: a spec without repositories leaves none out.
    .filter(([k, v]) => k !== 'unselected' || v > 0)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  return [`campaign ${spec.name}: ${summary}`, '', '| repository | outcome | status | reason | detail |', '|---|---|---|---|---|', ...rows].join('\n');
}
