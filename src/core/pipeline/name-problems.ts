import { isBinaryContent } from '../objects/object-format.js';
import { introducedNameProblems, nameCheckFamily, type NameProblem } from '../syntax/name-bindings.js';
import type { Workspace } from '../workspace/workspace.js';

/** What a change did to the names of a source file it changed (nothing for deletions, binaries and other files). */
export function nameProblemsOf(path: string, oldBytes: Uint8Array | undefined, newBytes: Uint8Array | undefined): NameProblem[] {
  if (!newBytes || !nameCheckFamily(path) || isBinaryContent(newBytes) || (oldBytes && isBinaryContent(oldBytes))) return [];
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return introducedNameProblems(path, oldBytes ? text(oldBytes) : undefined, text(newBytes));
}

/** The name problems the workspace's changes introduced, file by file (compared with the base). */
export async function changedNameProblems(ws: Workspace): Promise<NameProblem[]> {
  const out: NameProblem[] = [];
  for (const change of ws.changes()) {
    if (change.kind === 'DELETED' || !nameCheckFamily(change.path)) continue;
    const base = ws.baseEntry(change.path);
    const oldBytes = base && base.mode !== '160000' ? await ws.readBase(change.path) : undefined;
    out.push(...nameProblemsOf(change.path, oldBytes, await ws.read(change.path)));
  }
  return out;
}

/** The check's evidence line: counts first (also when zero), then each problem, at most ten. */
export function describeNames(problems: readonly NameProblem[]): string {
  const unresolved = problems.filter((p) => p.kind === 'unresolved');
  const unused = problems.filter((p) => p.kind === 'unused-import');
  const head = `names: ${unresolved.length} introduced unresolved, ${unused.length} unused imports (compared with the base; no build was run)`;
  const each = problems
    .slice(0, 10)
    .map((p) =>
      p.kind === 'unresolved' ? `${p.path}:${p.line} uses ${p.name}, which ${p.wasBoundBy} bound before` : `${p.path}:${p.line} imports ${p.import}, unused`,
    );
  return [head, ...each].join('; ');
}

/**
 * The recipe follow-up for what a language refuses and a tool would fix: an unused Go import
 * (gofmt's goimports drops it). The import's own line goes when it holds exactly that import;
 * anything else is left for the model or the reviewer. Returns the paths it edited.
 */
export async function dropUnusedGoImports(ws: Workspace, problems: readonly NameProblem[]): Promise<string[]> {
  const byPath = new Map<string, Extract<NameProblem, { kind: 'unused-import' }>[]>();
  for (const p of problems) if (p.kind === 'unused-import' && p.path.endsWith('.go')) byPath.set(p.path, [...(byPath.get(p.path) ?? []), p]);
  const edited: string[] = [];
  for (const [path, unused] of byPath) {
    const rows = new TextDecoder().decode(await ws.read(path)).split('\n');
    const drop = new Set(unused.filter((p) => holdsOnlyImport(rows[p.line - 1] ?? '', p.import)).map((p) => p.line - 1));
    if (drop.size === 0) continue;
    await ws.write(path, new TextEncoder().encode(rows.filter((_, i) => !drop.has(i)).join('\n')));
    edited.push(path);
  }
  return edited.sort();
}

/** A line that is exactly one import of `path`: `"path"` or `name "path"` in a block, or `import [name] "path"`, a comment aside. */
function holdsOnlyImport(row: string, path: string): boolean {
  const comment = row.indexOf('//');
  const words = (comment >= 0 ? row.slice(0, comment) : row).trim().split(/\s+/);
  if (words[0] === 'import') words.shift();
  if (words.length === 2 && /^[A-Za-z_.][\w]*$/.test(words[0]!)) words.shift();
  return words.length === 1 && words[0] === `"${path}"`;
}
