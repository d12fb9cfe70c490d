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
 * The run's task plus a follow-up. An ```agent block in a revision's instructions replaces the
 * recipe steps (parsed with the same parser and rules as the issue's block); the instructions, the
 * review's inline comments and the CI failures are appended to the objective, each framed as
 * untrusted content: they come from people and tools outside the trust boundary, like the issue
 * text, and say what to change, never what the agent may do.
 */
export function taskWithFollowUp(task: TaskContract, followUp: FollowUp): TaskContract {
  // Only a maintainer's revision may carry steps. A CI repair's text comes from checks (names,
  // output, annotations: whatever any app on the repository wrote) and never reaches the parser.
  const revised = followUp.kind === 'revise' ? parseTask({ title: task.title, body: '', comment: followUp.instructions, source: 'github' }) : undefined;
  const steps = revised?.blockSource === 'comment' && revised.steps.length > 0 ? revised.steps : task.steps;
  const parts = [task.objective];
  const who = followUp.kind === 'revise' ? `Revision requested by @${followUp.sender}` : `CI failed on ${followUp.onto.headSha.slice(0, 12)}; repair it`;
  parts.push(`${who}. The branch already holds the earlier change; build on it.`);
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
