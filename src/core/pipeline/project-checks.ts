import type { PhaseContext } from '../phases/orchestrator.js';
import { sha256Hex } from '../util/digest.js';
import { commandFailed, type CommandResult } from '../verify/command-result.js';
import { commandResultOf } from './command-outcome.js';
import type { CheckoutFile } from '../verify/verifier.js';
import { verifyCommands, verifyLimits } from './verify-commands.js';
import type { Workspace } from '../workspace/workspace.js';
import { discoveredMap } from './discovered-map.js';
import { discoveryOf } from './phases/discovery-phase.js';
import type { PipelineEnv } from './pipeline-env.js';

/**
 * The project's own commands on the change (policy `agent.verify`): which ran, where and how
 * each ended, and what did not run and why. With `runner: none`, or where the configured
 * runner is not available, nothing runs and the report says why; a command is never shown as
 * run when it did not run. See docs/architecture.md, "Verification".
 */
export interface ProjectChecks {
  commands: CommandResult[];
  ranIn?: string;
  notRun: { name: string; why: string }[];
  /** Commands that failed (ran and failed, timed out, or printed past the limit). */
  failed: CommandResult[];
  /** The policy asked for a runner that is not available here: with `required: true` the change cannot be checked. */
  unavailable?: string;
}

/** The candidate tree as files for a runner's checkout. */
async function* candidateFiles(workspace: Workspace): AsyncIterable<CheckoutFile> {
  for (const path of workspace.paths()) {
    const entry = workspace.entry(path);
    if (!entry || entry.mode === '160000') continue;
    yield { path, mode: entry.mode, content: await workspace.read(path) };
  }
}

const CI_ONLY = 'agent.verify.runner is none; CI runs them on the draft PR and the results are added here';

function notRunAll(env: PipelineEnv, why: string): { name: string; why: string }[] {
  const commands = env.policy.agent.build.commands;
  if (commands.length > 0) return commands.map((name) => ({ name, why }));
  return [{ name: 'build and tests', why: `${why}; the policy lists no agent.build.commands, so CI results are the only test evidence` }];
}

/** The last checks run per attempt, by the change they ran on: verification reuses repair's last run of the same change. */
const lastRun = new WeakMap<PipelineEnv, { change: string; checks: ProjectChecks }>();

/** What identifies the change the commands run on: every changed path with its kind, mode and content. */
async function changeDigest(workspace: Workspace): Promise<string> {
  const lines: string[] = [];
  for (const change of [...workspace.changes()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const content = change.kind === 'DELETED' ? '' : `${change.mode ?? ''}\0${sha256Hex(await workspace.read(change.path))}`;
    lines.push(`${change.path}\0${change.kind}\0${content}`);
  }
  return sha256Hex(lines.join('\n'));
}

/** The project's checks on the change as it stands, run once per distinct change of an attempt. */
export async function runProjectChecks(env: PipelineEnv, context: PhaseContext): Promise<ProjectChecks> {
  // Nothing runs: no change to read and hash (the default, on every run).
  if (env.policy.agent.verify.runner === 'none') return runChecks(env, context);
  const change = await changeDigest(context.workspace);
  const last = lastRun.get(env);
  if (last?.change === change) return last.checks;
  const checks = await runChecks(env, context);
  lastRun.set(env, { change, checks });
  return checks;
}

async function runChecks(env: PipelineEnv, context: PhaseContext): Promise<ProjectChecks> {
  const settings = env.policy.agent.verify;
  const none = { commands: [], failed: [] };
  if (settings.runner === 'none') return { ...none, notRun: notRunAll(env, CI_ONLY) };
  const verifier = env.verifier?.runner === settings.runner ? env.verifier : undefined;
  const availability = verifier
    ? await verifier.available()
    : { ok: false as const, why: `agent.verify.runner is ${settings.runner}, which this installation does not provide` };
  if (!availability.ok) return { ...none, notRun: notRunAll(env, availability.why), unavailable: availability.why };
  const changed = context.workspace.changes().map((c) => c.path);
  const map = await discoveredMap(env, context.outputs.discovery ? discoveryOf(context.outputs) : undefined);
  const commands = verifyCommands(env.policy, map, changed);
  if (commands.length === 0)
    return {
      ...none,
      notRun: [{ name: 'build and tests', why: 'the policy lists no agent.build.commands and the repository map found no build or test command' }],
    };
  const limits = verifyLimits(env.policy);
  await context.runtime.use('verify_commands', { commands: commands.length });
  const run = await verifier!.run({ files: () => candidateFiles(context.workspace), commands, limits });
  const results = run.outcomes.map((outcome) => commandResultOf(outcome, run.checkoutRoot, limits));
  return { commands: results, ranIn: run.where, notRun: [], failed: results.filter(commandFailed) };
}
