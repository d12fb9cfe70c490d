import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { diffWorkspaceChanges } from '../../git/git-diff.js';
import { redactSecrets } from '../../git/secret-scan.js';
import type { PhaseContext } from '../../phases/orchestrator.js';
import { PhaseContractError } from '../../phases/phase-runtime.js';
import type { TaskContract } from '../../task/task-contract.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import { maxEditableBytes, type Segment } from '../phases/planning-phase.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { planTools } from './plan-tools.js';

const MAX_READ_BYTES = 200_000;

export interface SegmentToolsInput {
  env: PipelineEnv;
  context: PhaseContext;
  task: TaskContract;
  segment: Segment;
  /** Files written by the segment and how many times; the tools add to it. */
  written: Map<string, number>;
}

/**
 * The tools a model segment offers: projections of core services (read, search, list, write
 * within the segment's files, diff). Every write goes through the phase runtime's rules and
 * the segment's allowed files; every output is redacted before the model sees it.
 */
export function segmentTools({ env, context, task, segment, written }: SegmentToolsInput): LlmTool<any>[] {
  const views = viewsFor(env, task);
  const workspace = context.workspace;
  const allowed = new Set(segment.paths);
  return [
    defineLlmTool({
      name: 'file.read',
      description: 'Read a file of the repository (UTF-8 text).',
      args: z.object({ path: z.string() }),
      run: async ({ path }) => {
        const p = normalizeRepoPath(path);
        const bytes = await workspace.read(p);
        // Redacted with the file's own path (config files have stricter rules) before the model sees it.
        return redactSecrets(new TextDecoder().decode(bytes.slice(0, MAX_READ_BYTES)), p).text;
      },
    }),
    defineLlmTool({
      name: 'code_search.search',
      description: 'Search the repository for a literal string; returns path:line: text lines.',
      args: z.object({ query: z.string().min(2), maxResults: z.number().int().positive().max(200).optional() }),
      run: async ({ query, maxResults }) => {
        const out: string[] = [];
        for (const p of workspace.paths()) {
          if (out.length >= (maxResults ?? 50)) break;
          if (views.rules.isGenerated(p)) continue;
          const entry = workspace.entry(p);
          if (entry?.mode !== '100644' && entry?.mode !== '100755') continue;
          const bytes = await workspace.read(p);
          if (bytes.includes(0) || bytes.length > MAX_READ_BYTES) continue;
          const lines = new TextDecoder().decode(bytes).split('\n');
          lines.forEach((line, i) => {
            if (line.includes(query) && out.length < (maxResults ?? 50)) out.push(`${p}:${i + 1}: ${redactSecrets(line, p).text.trim().slice(0, 200)}`);
          });
        }
        return out.join('\n') || 'no match';
      },
    }),
    defineLlmTool({
      name: 'repo_map.query',
      description: 'List repository files whose path contains a substring.',
      args: z.object({ contains: z.string() }),
      run: async ({ contains }) => workspace.paths().filter((p) => p.includes(contains)).slice(0, 200).join('\n') || 'no match',
    }),
    defineLlmTool({
      name: 'file.write',
      description: 'Replace the whole content of one of the files this segment may change.',
      args: z.object({ path: z.string(), content: z.string() }),
      run: async ({ path, content }) => {
        const p = normalizeRepoPath(path);
        if (!allowed.has(p)) throw new PhaseContractError('FILE_NOT_ALLOWED', `${p} is not one of the files this segment may change`, { path: p });
        // The size limit holds for repair segments too, whose files do not come from planning.
        const before = workspace.entry(p) ? (await workspace.read(p)).length : 0;
        if (Math.max(before, new TextEncoder().encode(content).length) > maxEditableBytes(env.policy)) {
          throw new PhaseContractError('FILE_NOT_ALLOWED', `${p} is over the ${env.policy.ingestion.maxFileSizeMb} MB file size limit`, { path: p });
        }
        await workspace.write(p, content);
        written.set(p, (written.get(p) ?? 0) + 1);
        return `wrote ${p}`;
      },
    }),
    defineLlmTool({
      name: 'git.diff',
      description: 'The change made so far, as a unified diff (truncated for size).',
      args: z.object({}),
      run: async () => redactPatchByFile((await diffWorkspaceChanges(workspace, { isGenerated: (p) => views.rules.isGenerated(p) })).modelPatch),
    }),
    ...planTools({ env, context, task, segment, allowed }),
  ];
}

/** Redact each file's section of a patch with that file's path, so rules that depend on the file type apply. */
function redactPatchByFile(patch: string): string {
  return patch
    .split(/^(?=diff --git )/m)
    .map((section) => redactSecrets(section, /^diff --git a\/.* b\/(.*)$/m.exec(section)?.[1] ?? '<text>').text)
    .join('');
}
