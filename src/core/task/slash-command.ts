import { findFencedBlocks, splitLines } from './fenced-blocks.js';

export const SLASH_COMMANDS = ['run', 'analyze', 'plan', 'approve', 'cancel', 'retry', 'rebase', 'status', 'help', 'revise', 'campaign'] as const;
export type SlashCommandName = (typeof SLASH_COMMANDS)[number];

export interface SlashCommand {
  command: SlashCommandName;
  /** The rest of the line after the subcommand, trimmed. */
  args: string;
  /** The subcommand as written, when it was not recognised (the reply then shows help). */
  unknown?: string;
}

const ALIASES: Record<string, SlashCommandName> = { analyse: 'analyze', analysis: 'analyze', start: 'run', stop: 'cancel' };

/**
 * The first line of a comment that starts with the command prefix (`/agent run ...`), outside
 * code blocks and quotes. Undefined when the comment holds no command. The prefix must stand
 * alone: `/agentx` is not `/agent`. A missing subcommand means help; an unknown one means help
 * with `unknown` set.
 */
export function parseSlashCommand(commentBody: string, prefix = '/agent'): SlashCommand | undefined {
  const lines = splitLines(commentBody);
  const inFence = new Set<number>();
  for (const block of findFencedBlocks(lines)) {
    for (let i = block.openLine; i <= (block.closeLine ?? lines.length - 1); i++) inFence.add(i);
  }
  for (let i = 0; i < lines.length; i++) {
    if (inFence.has(i)) continue;
    const line = lines[i].trim();
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    if (rest !== '' && !/^\s/.test(rest)) continue;
    const trimmed = rest.trim();
    const space = trimmed.search(/\s/);
    const word = (space < 0 ? trimmed : trimmed.slice(0, space)).toLowerCase();
    const args = space < 0 ? '' : trimmed.slice(space).trim();
    if (word === '') return { command: 'help', args: '' };
    const command = (SLASH_COMMANDS as readonly string[]).includes(word) ? (word as SlashCommandName) : ALIASES[word];
    if (command) return { command, args };
    return { command: 'help', args, unknown: space < 0 ? trimmed : trimmed.slice(0, space) };
  }
  return undefined;
}
