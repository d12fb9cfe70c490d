import { maxEditableBytes } from '../../policy/agent-policy.js';
import { AgentError } from '../../errors.js';
import type { PhaseContext } from '../../phases/orchestrator.js';
import { collectSymlinks, type SymlinkLookup } from '../../paths/symlinks.js';
import type { WriteDenialReason } from '../../paths/write-rules.js';
import { policyDigest } from '../../policy/policy-digest.js';
import { buildRepoMap } from '../../repomap/build-repo-map.js';
import { FileContents } from '../../repomap/file-contents.js';
import { looksBinary } from '../../paths/path-classes.js';
import { RepoNavigator } from '../../repomap/repo-navigator.js';
import { SymbolIndex } from '../../repomap/symbol-index.js';
import type { TaskContract } from '../../task/task-contract.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import type { Workspace } from '../../workspace/workspace.js';
import { discoveredMap } from '../discovered-map.js';
import { discoveryOf } from '../phases/discovery-phase.js';
import type { Segment } from '../phases/planning-phase.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import type { PolicyViews } from '../../paths/policy-views.js';

export const MODEL_TOOL_REASONS = [
  'FILE_NOT_FOUND',
  'FILE_EXISTS',
  'NOT_A_TEXT_FILE',
  'READ_OUTSIDE_SCOPE',
  'LINE_RANGE_INVALID',
  'EDIT_NO_MATCH',
  'EDIT_AMBIGUOUS',
  'EDIT_NO_CHANGE',
  'WHOLE_WRITE_TOO_LARGE',
  'SYMLINK_NOT_EDITABLE',
  'SUBMODULE_NOT_EDITABLE',
  /** A policy rule (`agent.rules`, `on: tool`) denies the call. */
  'RULE_DENIED',
] as const;
export type ModelToolReason = (typeof MODEL_TOOL_REASONS)[number] | WriteDenialReason;
/** A tool call the model can correct: the message says what was wrong and what to do instead. */
export class ModelToolError extends AgentError<ModelToolReason> {}

export interface SegmentToolsInput {
  env: PipelineEnv;
  context: PhaseContext;
  task: TaskContract;
  segment: Segment;
  /** Files written by the segment and how many times; the tools add to it. */
  written: Map<string, number>;
}

/** What every model tool of one segment shares; the map, navigator and symlinks are built on first use. */
export interface ModelToolContext extends SegmentToolsInput {
  views: PolicyViews;
  workspace: Workspace;
  contents: FileContents;
  symbols: SymbolIndex;
  /** The files the segment may change; an accepted plan revision changes it in place, for every tool. */
  allowed: Set<string>;
  navigator(): Promise<RepoNavigator>;
  symlinks(): Promise<SymlinkLookup>;
  /** The path normalised, an existing regular text file of the workspace: its bytes. */
  readText(path: string): Promise<{ path: string; bytes: Uint8Array; text: string }>;
}

export function modelToolContext(input: SegmentToolsInput): ModelToolContext {
  const { env, context, task } = input;
  const views = viewsFor(env, task);
  const workspace = context.workspace;
  const contents = new FileContents(workspace, maxEditableBytes(env.policy));
  const symbols = new SymbolIndex(env.syntax, contents);
  let navigator: Promise<RepoNavigator> | undefined;
  let symlinks: Promise<SymlinkLookup> | undefined;
  return {
    ...input,
    views,
    workspace,
    contents,
    symbols,
    allowed: new Set(input.segment.paths),
    navigator: () =>
      (navigator ??= (async () => {
        // The map discovery stored, read once per attempt; a segment that runs without it builds one the same way.
        const outputs = context.outputs ?? {};
        const stored = await discoveredMap(env, outputs.discovery === undefined ? undefined : discoveryOf(outputs));
        const map =
          stored ?? (await buildRepoMap({ workspace, owner: env.owner, repo: env.repo, rules: views.rules, policyDigest: policyDigest(env.policy), contents }));
        return new RepoNavigator(map, workspace, contents, views.rules);
      })()),
    // The tree's symlinks, read once: edits are judged on every name a path goes by through them.
    symlinks: () => (symlinks ??= collectSymlinks(entriesOf(workspace), (p) => workspace.readText(p))),
    readText: async (raw) => {
      const path = normalizeRepoPath(raw);
      const entry = workspace.entry(path);
      if (!entry) throw new ModelToolError('FILE_NOT_FOUND', `no such file: ${path}${suggest(workspace, path)}`, { path });
      if (entry.mode === '120000') {
        // The link is named with what git stores (its target), never followed: the target may lie outside the scope or the repository.
        const target = (await workspace.readText(path)).slice(0, 300);
        throw new ModelToolError(
          'READ_OUTSIDE_SCOPE',
          `${path} is a symlink to ${JSON.stringify(target)}; it is not followed, read the file it points to if it is in the repository`,
          { path },
        );
      }
      if (entry.mode === '160000') throw new ModelToolError('READ_OUTSIDE_SCOPE', `${path} is a submodule, which is never read`, { path });
      const bytes = await workspace.read(path);
      if (looksBinary(bytes)) throw new ModelToolError('NOT_A_TEXT_FILE', `${path} is a binary file (${bytes.length} bytes)`, { path });
      return { path, bytes, text: new TextDecoder().decode(bytes) };
    },
  };
}

function* entriesOf(workspace: Workspace): Generator<[string, { mode: string }]> {
  for (const path of workspace.paths()) {
    const entry = workspace.entry(path);
    if (entry) yield [path, entry];
  }
}

/** ", did you mean …" with up to five existing files of the same name. */
function suggest(workspace: Workspace, path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const same = workspace
    .paths()
    .filter((p) => p.endsWith(`/${name}`) || p === name)
    .slice(0, 5);
  return same.length > 0 ? `; files with that name: ${same.join(', ')}` : '';
}
