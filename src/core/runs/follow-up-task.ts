import { frameUntrusted } from '../text/untrusted-content.js';
import { frameCiFailures } from './ci-failure.js';
import type { FollowUp } from './follow-up.js';
import { findFencedBlocks, splitLines } from '../task/fenced-blocks.js';
import { parseTask, taskDigest } from '../task/parse-task.js';
import { deriveSearchTerms } from '../task/search-terms.js';
import type { TaskContract } from '../task/task-contract.js';

/**
 * The instructions of a `/agent revise <text>` comment or review: the text after the command
 * on its line, then every other line. The command word itself is not an instruction.
 */
export function followUpInstructions(body: string, prefix: string, command = 'revise'): string {
  const lines = splitLines(body);
  const inFence = new Set<number>();
  for (const block of findFencedBlocks(lines)) for (let i = block.openLine; i <= (block.closeLine ?? lines.length - 1); i++) inFence.add(i);
  const out: string[] = [];
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    if (!found && !inFence.has(i) && trimmed.startsWith(prefix) && /^\s/.test(trimmed.slice(prefix.length))) {
      const rest = trimmed.slice(prefix.length).trim();
      const word = rest.split(/\s/, 1)[0].toLowerCase();
      found = true;
      const tail = word === command ? rest.slice(word.length).trim() : rest;
      if (tail) out.push(tail);
      continue;
    }
    out.push(lines[i]);
  }
  return out.join('\n').trim();
}

/**
 * How a follow-up changes the branch. A revision whose instructions hold an ```agent block with
 * steps runs those steps. Any other revision is a model task on top of the branch when a model
 * is configured, whatever made the pull request (re-running a recipe cannot follow free text),
 * and cannot run without one. A CI repair is a model task too when a model is configured (the
 * failures, log excerpts included, say what to fix); without one it carries out the run's task
 * again on the branch head.
 */
export type FollowUpWork = 'steps' | 'model' | 'needs-model' | 'task';

/** The steps of an ```agent block in a revision's instructions, parsed as the issue's block is. */
function blockSteps(title: string, followUp: FollowUp): TaskContract['steps'] | undefined {
  // Only a maintainer's revision may carry steps. A CI repair's text comes from checks (names,
  // output, annotations: whatever any app on the repository wrote) and never reaches the parser.
  if (followUp.kind !== 'revise') return undefined;
  const revised = parseTask({ title, body: '', comment: followUp.instructions, source: 'github' });
  return revised.blockSource === 'comment' && revised.steps.length > 0 ? revised.steps : undefined;
}

export function followUpWork(followUp: FollowUp, hasModel: boolean, title = 'revision'): FollowUpWork {
  if (followUp.kind !== 'revise') return hasModel ? 'model' : 'task';
  if (blockSteps(title, followUp)) return 'steps';
  return hasModel ? 'model' : 'needs-model';
}

/**
 * The run's task plus a follow-up. An ```agent block in a revision's instructions replaces the
 * recipe steps (parsed with the same parser and rules as the issue's block); a model revision
 * drops them (the model makes the change, starting from the pull request's changed files). The
 * instructions, the review's inline comments and the CI failures are appended to the objective,
 * each framed as untrusted content: they come from people and tools outside the trust boundary,
 * like the issue text, and say what to change, never what the agent may do.
 */
export function taskWithFollowUp(task: TaskContract, followUp: FollowUp, hasModel = false): TaskContract {
  const revised = followUp.kind === 'revise' ? parseTask({ title: task.title, body: '', comment: followUp.instructions, source: 'github' }) : undefined;
  const work = followUpWork(followUp, hasModel, task.title);
  const steps = work === 'steps' ? revised!.steps : work === 'model' ? [] : task.steps;
  const parts = [task.objective];
  const who = followUp.kind === 'revise' ? `Revision requested by @${followUp.sender}` : `CI failed on ${followUp.onto.headSha.slice(0, 12)}; repair it`;
  parts.push(`${who}. The branch already holds the earlier change; build on it.`);
  // Backticked paths are named targets for discovery, and tell the model where the change is.
  if (work === 'model' && followUp.changedFiles?.length)
    parts.push(`Files this pull request changes: ${followUp.changedFiles.map((p) => `\`${p}\``).join(', ')}.`);
  if (revised?.objective) parts.push(frameUntrusted('revision instructions', revised.objective));
  else if (!revised && followUp.instructions.trim()) parts.push(frameUntrusted('repair instructions', followUp.instructions));
  for (const c of followUp.reviewComments) {
    const where = `${c.path}${c.line ? `:${c.startLine && c.startLine !== c.line ? `${c.startLine}-` : ''}${c.line}` : ''}`;
    parts.push(frameUntrusted(`review comment by @${c.author} on ${where}`, c.body));
  }
  if (followUp.ciFailures) parts.push(frameCiFailures(followUp.ciFailures));
  const objective = parts.filter((p) => p.trim() !== '').join('\n\n');
  const searchTerms = deriveSearchTerms({ title: task.title, objective, steps });
  const kind = steps.length > 0 || searchTerms.some((t) => t.kind === 'symbol') ? 'specific' : 'exploratory';
  const { digest: _d, ...rest } = task;
  const next = { ...rest, objective, steps, searchTerms, kind } as const;
  return { ...next, digest: taskDigest(next) };
}
