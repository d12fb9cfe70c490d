import { evaluateRules, type RuleFiring } from '../paths/policy-rules.js';
import type { AgentRule, RuleToolClass } from '../policy/agent-rules.js';
import { normalizeRepoPath } from '../util/repo-path.js';
import { TOOL_NAMES, type ToolName } from './phase-contracts.js';

/**
 * The one place each tool is given a class for `agent.rules` (docs/policy-reference.md): rules
 * name classes, never tools, so renaming or adding a tool opens nothing. A new tool in
 * `TOOL_NAMES` does not compile until it is classed here; null is a tool that reads, searches,
 * writes or deletes no repository file (it still matches a rule without `tools`).
 */
export const TOOL_CLASSES: Readonly<Record<ToolName, RuleToolClass | null>> = {
  task_parse: null,
  repo_map_query: 'read',
  repo_map_find_definition: 'search',
  repo_map_find_importers: 'search',
  repo_map_find_tests: 'search',
  repo_map_owners: 'read',
  repo_map_explain_path: 'read',
  repo_map_find_files: 'search',
  code_search: 'search',
  file_read: 'read',
  file_edit: 'write',
  file_create: 'write',
  file_write: 'write',
  file_delete: 'delete',
  recipe_apply: 'write',
  model_call: null,
  verify_parse: null,
  verify_commands: null,
  ci_read: 'read',
  git_status: 'read',
  git_diff: 'read',
  git_log: 'read',
  git_blame: 'read',
  git_branch: null,
  git_stage: 'write',
  git_commit: 'write',
  candidate_write: 'write',
  plan_revise: null,
};

const KNOWN = new Set<string>(TOOL_NAMES);

/** A tool's class; null for a tool outside the classes or not known. */
export function toolClassOf(name: string): RuleToolClass | null {
  return KNOWN.has(name) ? TOOL_CLASSES[name as ToolName] : null;
}

function pathOf(raw: unknown): string[] {
  if (typeof raw !== 'string' || raw === '') return [];
  try {
    return [normalizeRepoPath(raw)];
  } catch {
    // A path the tool itself refuses: matched as written, so a rule still sees what was asked.
    return [raw];
  }
}

/**
 * The paths and added lines of a tool call, read from its validated arguments: `path` and
 * `paths` name files, `newText` and `content` are the text a write adds.
 */
function callFacts(args: unknown): { paths: string[]; addedLines: string[] } {
  if (typeof args !== 'object' || args === null) return { paths: [], addedLines: [] };
  const a = args as Record<string, unknown>;
  const paths = [...pathOf(a.path), ...(Array.isArray(a.paths) ? a.paths.flatMap(pathOf) : [])];
  const added = [a.newText, a.content].filter((t): t is string => typeof t === 'string');
  return { paths, addedLines: added.flatMap((t) => t.split('\n')) };
}

/** The `on: tool` rules a call to `tool` with `args` fires. */
export function toolCallFirings(rules: readonly AgentRule[], tool: string, args: unknown): RuleFiring[] {
  if (rules.length === 0) return [];
  return evaluateRules(rules, { on: 'tool', toolClass: toolClassOf(tool), ...callFacts(args) });
}

/**
 * The files whose content the policy's `on: tool` deny rules keep from the model: a file a rule
 * would refuse to read or to search by name is also left out of a search over many files, so a
 * repository-wide `code_search` never shows what `file_read` would refuse.
 */
export function hiddenByToolRules(rules: readonly AgentRule[]): (path: string) => boolean {
  if (!rules.some((r) => r.on === 'tool' && r.action === 'deny')) return () => false;
  return (path) => (['read', 'search'] as const).some((toolClass) => evaluateRules(rules, { on: 'tool', toolClass, paths: [path], addedLines: [] }).length > 0);
}
