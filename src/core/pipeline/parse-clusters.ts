import type { ParseProblem, SyntaxService } from '../syntax/types.js';
import type { Workspace } from '../workspace/workspace.js';

export interface ParseCluster {
  /** file + module + error type: one repair segment each. */
  id: string;
  module: string;
  type: string;
  files: { path: string; problems: ParseProblem[] }[];
}

/**
 * Parse every changed file and cluster the problems by module (top-level directory or nearest
 * manifest root given), error type and file. A file whose base version already had at least as
 * many problems is not blamed on the change (the base is parsed only for files that fail now).
 */
export async function parseClusters(
  workspace: Workspace,
  syntax: SyntaxService,
  moduleOf: (path: string) => string,
): Promise<{ clusters: ParseCluster[]; checked: string[]; preexisting: Record<string, number> }> {
  const preexisting: Record<string, number> = {};
  const byKey = new Map<string, ParseCluster>();
  const checked: string[] = [];
  for (const change of workspace.changes()) {
    if (change.kind === 'DELETED') continue;
    const entry = workspace.entry(change.path);
    if (entry?.mode === '120000' || entry?.mode === '160000') continue;
    const bytes = await workspace.read(change.path);
    if (bytes.includes(0)) continue;
    const problems = syntax.parseProblems(change.path, new TextDecoder().decode(bytes));
    checked.push(change.path);
    if (problems.length === 0) continue;
    const base = workspace.baseEntry(change.path);
    if (base && (base.mode === '100644' || base.mode === '100755')) {
      const before = syntax.parseProblems(change.path, new TextDecoder().decode(await workspace.readBase(change.path))).length;
      if (before > 0) preexisting[change.path] = before;
      if (before >= problems.length) continue;
    }
    const module = moduleOf(change.path);
    const type = problems[0].type;
    const id = `${module}:${type}`;
    const cluster = byKey.get(id) ?? { id, module, type, files: [] };
    cluster.files.push({ path: change.path, problems: problems.slice(0, 20) });
    byKey.set(id, cluster);
  }
  return { clusters: [...byKey.values()].sort((a, b) => (a.id < b.id ? -1 : 1)), checked, preexisting };
}

/** The module of a path: its first directory, or the repository root. */
export function topLevelModule(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}
