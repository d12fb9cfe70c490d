import { canonicalJson, sha256Hex } from '../util/digest.js';
import type { DocumentProblem } from '../policy/document-problem.js';
import { validateYaml } from '../policy/validate-yaml.js';
import { blockContent, findFencedBlocks, splitLines, type FencedBlock } from './fenced-blocks.js';
import { deriveSearchTerms } from './search-terms.js';
import { TaskBlock, type TaskContract } from './task-contract.js';
import { TaskError } from './task-error.js';

/** Issue bodies and comments larger than this are refused (GitHub itself caps them at 64 KiB). */
export const MAX_TASK_TEXT_BYTES = 1024 * 1024;
/** The ```agent block is a few lines of settings; anything this large is a mistake. */
export const MAX_TASK_BLOCK_BYTES = 64 * 1024;

export interface ParseTaskInput {
  title: string;
  /** The issue body, or the CLI's task text. */
  body: string;
  /** The triggering comment, when a comment started the run; its block wins over the body's. */
  comment?: string;
  /** `/agent analyze` forces analysis whatever the block says. */
  forcedMode?: 'analysis' | 'draft_pr';
  /** Where the text came from: a GitHub issue (and comment) or the CLI. */
  source: 'github' | 'cli';
  /** Name of the body in problems (e.g. the CLI's task file); default `issue` or `task`. */
  bodyName?: string;
  /** Slash-command prefix; a comment line starting with it is not part of the objective. */
  commandPrefix?: string;
}

interface Located {
  name: string;
  lines: string[];
  blocks: FencedBlock[];
  /** The first `agent` block, the one that counts. */
  block: FencedBlock | undefined;
}

/**
 * Turn the request snapshot into a TaskContract. The first fenced block whose info
 * string is `agent` in the comment, else in the body, is YAML validated against TaskBlock;
 * everything outside `agent` blocks (and outside the slash-command line) is the objective.
 * Throws TaskError with every problem, lines relative to the document the block came from.
 * Texts over 1 MiB are refused (TASK_TEXT_TOO_LARGE) rather than truncated, so the objective is
 * never silently cut; a block over 64 KiB is TASK_BLOCK_TOO_LARGE.
 */
export function parseTask(input: ParseTaskInput): TaskContract {
  const { body, comment, chosen } = locateDocuments(input);

  let block: TaskBlock = {};
  if (chosen?.block) block = readBlock(chosen as Located & { block: FencedBlock });

  const objective = [outsideBlocks(body, undefined), comment ? outsideBlocks(comment, input.commandPrefix ?? '/agent') : '']
    .filter((part) => part !== '')
    .join('\n\n');
  const steps = block.steps ?? [];
  const searchTerms = deriveSearchTerms({ title: input.title, objective, steps });
  const task: Omit<TaskContract, 'digest'> = {
    schemaVersion: 1,
    title: input.title,
    objective,
    mode: input.forcedMode ?? block.mode ?? 'draft_pr',
    ...(block.base !== undefined ? { base: block.base } : {}),
    ...(block.paths !== undefined ? { paths: block.paths } : {}),
    steps,
    budgets: block.budgets ?? {},
    searchTerms,
    kind: steps.length > 0 || searchTerms.some((t) => t.kind === 'symbol') ? 'specific' : 'exploratory',
    blockSource: blockSourceOf(chosen, comment, input.source),
  };
  return { ...task, digest: taskDigest(task) };
}

/** The body and the comment, size-checked and located, and the one whose `agent` block counts (the comment's first). */
function locateDocuments(input: ParseTaskInput): { body: Located; comment: Located | undefined; chosen: Located | undefined } {
  const bodyName = input.bodyName ?? (input.source === 'cli' ? 'task' : 'issue');
  checkSize(input.title, 'title');
  checkSize(input.body, bodyName);
  if (input.comment !== undefined) checkSize(input.comment, 'comment');
  const body = locate(input.body, bodyName);
  const comment = input.comment !== undefined ? locate(input.comment, 'comment') : undefined;
  const chosen = comment?.block ? comment : body.block ? body : undefined;
  return { body, comment, chosen };
}

function blockSourceOf(chosen: Located | undefined, comment: Located | undefined, source: ParseTaskInput['source']): TaskContract['blockSource'] {
  if (!chosen) return 'none';
  if (chosen === comment) return 'comment';
  return source === 'cli' ? 'cli' : 'issue';
}

/** sha256 of the canonical JSON of the task without its digest: the CLI's task identity. */
export function taskDigest(task: Omit<TaskContract, 'digest'> | TaskContract): string {
  const { digest: _ignored, ...rest } = task as TaskContract;
  return sha256Hex(canonicalJson(rest));
}

function checkSize(text: string, name: string): void {
  const bytes = text.length > MAX_TASK_TEXT_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
  if (bytes <= MAX_TASK_TEXT_BYTES) return;
  throw new TaskError('TASK_TEXT_TOO_LARGE', `the ${name} is ${bytes} bytes; the limit is ${MAX_TASK_TEXT_BYTES}`, {
    problems: [problem(name, 1, 1, `the ${name} is ${bytes} bytes; at most ${MAX_TASK_TEXT_BYTES} are read`)],
  });
}

function locate(text: string, name: string): Located {
  const lines = splitLines(text);
  const blocks = findFencedBlocks(lines);
  return { name, lines, blocks, block: blocks.find((b) => b.infoWord === 'agent') };
}

function readBlock({ name, lines, block }: Located & { block: FencedBlock }): TaskBlock {
  if (block.closeLine === undefined) {
    throw new TaskError('TASK_BLOCK_INVALID', `the \`\`\`agent block in the ${name} is not closed`, {
      problems: [problem(name, block.openLine + 1, block.indent + 1, 'this ```agent block is never closed; end it with a line of ```')],
    });
  }
  const content = blockContent(lines, block).join('\n');
  const bytes = new TextEncoder().encode(content).byteLength;
  if (bytes > MAX_TASK_BLOCK_BYTES) {
    throw new TaskError('TASK_BLOCK_TOO_LARGE', `the \`\`\`agent block in the ${name} is ${bytes} bytes; the limit is ${MAX_TASK_BLOCK_BYTES}`, {
      problems: [problem(name, block.openLine + 1, block.indent + 1, `this block is ${bytes} bytes; at most ${MAX_TASK_BLOCK_BYTES} are allowed`)],
    });
  }
  const result = validateYaml(content, TaskBlock, { file: name, lineOffset: block.openLine + 1, columnOffset: block.indent, emptyAs: {} });
  if (result.ok) return result.value;
  const count = result.problems.length;
  throw new TaskError('TASK_BLOCK_INVALID', `the \`\`\`agent block in the ${name} has ${count} problem${count === 1 ? '' : 's'}`, {
    problems: result.problems,
  });
}

/** The document without its `agent` blocks and slash-command lines, trimmed. */
function outsideBlocks({ lines, blocks }: Located, commandPrefix: string | undefined): string {
  const skip = new Set<number>();
  for (const block of blocks) {
    if (block.infoWord !== 'agent') continue;
    for (let i = block.openLine; i <= (block.closeLine ?? lines.length - 1); i++) skip.add(i);
  }
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (skip.has(i)) continue;
    const trimmed = lines[i].trim();
    if (commandPrefix && trimmed.startsWith(commandPrefix) && /^\s?$/.test(trimmed.charAt(commandPrefix.length))) continue;
    kept.push(lines[i]);
  }
  return kept.join('\n').trim();
}

function problem(file: string, line: number, column: number, message: string): DocumentProblem {
  return { file, line, column, path: '', type: 'SCHEMA', message };
}
