import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { diffWorkspaceChanges } from '../../git/git-diff.js';
import { redactSecrets, type SecretPathRules } from '../../secrets/secret-scan.js';
import { checkTools } from './check-tools.js';
import { editTools } from './edit-tools.js';
import { historyTools } from './history-tools.js';
import { navigatorTools } from './navigator-tools.js';
import { planTools } from './plan-tools.js';
import { readTools } from './read-tools.js';
import { guardTools } from './rule-guard.js';
import { modelToolContext, type ModelToolContext, type SegmentToolsInput } from './tool-context.js';

export type { SegmentToolsInput } from './tool-context.js';

/**
 * The tools a model segment offers: projections of core services (read, search, navigate,
 * edit within the segment's files, diff). Every edit goes through the segment's files and the
 * policy's path rules and is ledgered; every output is redacted before the model sees it.
 * The phase contract decides which of them a phase shows.
 */
export function segmentTools(input: SegmentToolsInput): LlmTool<any>[] {
  const ctx = modelToolContext(input);
  const tools = [
    ...readTools(ctx),
    ...navigatorTools(ctx),
    ...editTools(ctx),
    ...diffTools(ctx),
    ...historyTools({ workspace: ctx.workspace, ledger: input.context.ledger, phase: input.context.phase, rules: ctx.views.rules }),
    ...planTools({ ...input, allowed: ctx.allowed }),
    ...checkTools(input),
  ];
  return guardTools(tools, input.env.policy.agent.rules, input.context.ledger, input.context.phase);
}

function diffTools(ctx: ModelToolContext): LlmTool<any>[] {
  return [
    defineLlmTool({
      name: 'git_diff',
      description: 'The change made so far, as a unified diff (truncated for size).',
      args: z.object({}),
      run: async () => redactPatchByFile((await diffWorkspaceChanges(ctx.workspace, { rules: ctx.views.rules })).modelPatch, ctx.views.rules),
    }),
  ];
}

/** Redact each file's section of a patch with that file's path, so rules that depend on the file type apply. */
function redactPatchByFile(patch: string, rules: SecretPathRules): string {
  return patch
    .split(/^(?=diff --git )/m)
    .map((section) => {
      const path = /^diff --git a\/.* b\/(.*)$/m.exec(section)?.[1];
      return redactSecrets(section, path === undefined ? undefined : { path, rules }).text;
    })
    .join('');
}
