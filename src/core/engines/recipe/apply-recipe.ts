import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';
import type { RecipeStep } from '../../task/recipe-steps.js';
import type { Workspace } from '../../workspace/workspace.js';
import { applyRecipeToFile } from './apply-recipe-to-file.js';
import { applyBumpDependency } from './bump-dependency-recipe.js';
import { bumpMavenProperty, scanPom } from './bump-maven.js';
import { lockfilesForManifest } from '../../policy/lockfiles.js';
import { historyGuard } from './history-files.js';
import { lockfileRefreshCommand, manifestKindForPath } from './manifest-kind.js';
import type { PathRules } from '../../paths/path-rules.js';
import { recipeCandidates } from './recipe-candidates.js';
import type { ApplyRecipeResult, FileRecipeResult, LineEdit, LockfileRefresh, PendingMavenProperty, SkipReason } from './recipe-types.js';
import { renameInWorkspace } from './rename-symbol-recipe.js';
import { followThrough } from './manifests/follow-through.js';
import { compiledRequirements, pinsLeft } from './manifests/pins-left.js';
import { applySpanEdits } from './span-edits.js';

export interface ApplyRecipeOptions {
  /** The paths the step may touch, already filtered by the task and step scopes. */
  paths: string[];
  syntax: TreeSyntaxService;
  /** The policy's verdict: false for binary, generated, vendored and lock files (and anything else it refuses). */
  isEditable(path: string): boolean;
  /** Files larger than this (the policy's size limit) are never edited. */
  maxFileBytes?: number;
  /** The task's own `paths`: naming a history file there lets the recipe edit it. */
  taskPaths?: readonly string[];
  /** The policy lets recipes edit release history everywhere. */
  editHistory?: boolean;
  /** The run's path rules: which files are lockfiles (never edited) and release history. */
  rules: Pick<PathRules, 'isLockfile' | 'isHistory'>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type Readable = { text: string } | { reason: SkipReason };

/** Read a file the recipes may edit: a regular file, not a lockfile, no NUL byte, valid UTF-8 (a BOM is kept as text). */
async function readEditable(workspace: Workspace, path: string, isEditable: (path: string) => boolean, maxFileBytes = Infinity, isLockfile: (path: string) => boolean): Promise<Readable> {
  const entry = workspace.entry(path);
  if (!entry) return { reason: 'MISSING' };
  if (entry.mode !== '100644' && entry.mode !== '100755') return { reason: 'NOT_A_REGULAR_FILE' };
  if (isLockfile(path)) return { reason: 'LOCKFILE' };
  if (!isEditable(path)) return { reason: 'NOT_EDITABLE' };
  const bytes = await workspace.read(path);
  if (bytes.length > maxFileBytes) return { reason: 'TOO_LARGE' };
  if (bytes.includes(0)) return { reason: 'BINARY' };
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    return { reason: 'NOT_UTF8' };
  }
}

function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function joinPath(dir: string, relative: string): string | undefined {
  const parts = dir ? dir.split('/') : [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}

/**
 * Apply a recipe step to the workspace: reads and writes go through `workspace`, only
 * candidates that are editable text change, and bytes outside the edited spans are kept.
 * Lockfiles are never edited; for bump-dependency the lockfiles to refresh are reported.
 */
export async function applyRecipe(step: RecipeStep, workspace: Workspace, options: ApplyRecipeOptions): Promise<ApplyRecipeResult> {
  const result: ApplyRecipeResult = { changedFiles: [], skipped: [], notes: [], lockfilesToRefresh: [] };
  const notes = new Set<string>();
  const inScope = new Set(options.paths);
  const changed = new Map<string, LineEdit[]>();
  const record = (path: string, out: FileRecipeResult) => {
    for (const note of out.notes) notes.add(note);
    if (out.edits.length) changed.set(path, [...(changed.get(path) ?? []), ...out.edits]);
  };
  const candidates = recipeCandidates(step, options.paths, options.rules.isLockfile);
  const leaveAlone = options.editHistory ? () => false : historyGuard(step, options.taskPaths, options.rules.isHistory);

  if (step.recipe === 'rename-symbol') {
    return renameInWorkspace(step, candidates.filter((path) => !leaveAlone(path)), workspace, options.syntax, (path, forEditing) => readEditable(workspace, path, forEditing ? options.isEditable : () => true, options.maxFileBytes, options.rules.isLockfile));
  }

  const pendingProperties: { pom: string; pending: PendingMavenProperty }[] = [];
  for (const path of candidates) {
    const readable = await readEditable(workspace, path, options.isEditable, options.maxFileBytes, options.rules.isLockfile);
    if ('reason' in readable) {
      result.skipped.push({ path, reason: readable.reason });
      continue;
    }
    if (leaveAlone(path)) {
      leaveHistory(step, path, readable.text, options, result, notes);
      continue;
    }
    let out: FileRecipeResult | undefined;
    if (step.recipe === 'bump-dependency') {
      const bump = applyBumpDependency(step, { path, text: readable.text });
      for (const pending of bump?.pending ?? []) pendingProperties.push({ pom: path, pending });
      out = bump;
    } else out = applyRecipeToFile(step, { path, text: readable.text }, { syntax: options.syntax });
    if (!out) continue;
    if (out.edits.length) await workspace.write(path, encoder.encode(out.text));
    record(path, out);
  }

  if (step.recipe === 'migrate-import' && changed.size) {
    const cache = new Map<string, Promise<string | undefined>>();
    const follow = await followThrough(step, [...changed.keys()], {
      paths: workspace.paths(),
      read: (path) => {
        if (!cache.has(path)) cache.set(path, readEditable(workspace, path, () => true, options.maxFileBytes, options.rules.isLockfile).then((r) => ('text' in r ? r.text : undefined)));
        return cache.get(path)!;
      },
      cannotEdit: (path) => (!options.isEditable(path) ? 'the policy does not let recipes edit it' : !inScope.has(path) ? "it is outside the step's scope" : undefined),
    });
    for (const note of follow.notes) notes.add(note);
    for (const edit of follow.edits) {
      const readable = await readEditable(workspace, edit.path, options.isEditable, options.maxFileBytes, options.rules.isLockfile);
      const out = 'text' in readable ? applySpanEdits(readable.text, edit.spans) : undefined;
      if (!out) continue;
      await workspace.write(edit.path, encoder.encode(out.text));
      record(edit.path, out);
    }
    if (follow.dependency) result.lockfilesToRefresh = lockfilesFor(follow.edits.map((e) => e.path), workspace, follow.dependency);
  }

  if (step.recipe === 'bump-dependency') {
    for (const { pom, pending } of pendingProperties) await resolveParentProperty(pom, pending, step.to, workspace, options, inScope, result, record, notes);
    result.lockfilesToRefresh = lockfilesFor([...changed.keys()], workspace, step.package);
    const skipped = new Map(result.skipped.map((s) => [s.path, s.reason] as const));
    const left = await pinsLeft(step, workspace, { inScope, changed: new Set(changed.keys()), skipped, isEditable: options.isEditable, maxFileBytes: options.maxFileBytes, isLockfile: options.rules.isLockfile });
    for (const note of left) notes.add(note);
    for (const note of compiledRequirements([...changed.keys()], new Set(workspace.paths()))) notes.add(note);
  }

  result.changedFiles = [...changed.keys()].sort().map((path) => ({ path, edits: changed.get(path)! }));
  result.notes = [...notes];
  return result;
}

/** A history file the step would change is left as it is; the notes say how many occurrences remain. */
function leaveHistory(step: RecipeStep, path: string, text: string, options: ApplyRecipeOptions, result: ApplyRecipeResult, notes: Set<string>): void {
  const out = applyRecipeToFile(step, { path, text }, { syntax: options.syntax });
  if (!out?.edits.length) return;
  const count = out.occurrences ?? out.edits.length;
  result.skipped.push({ path, reason: 'HISTORY' });
  notes.add(`${path}: ${count} occurrence${count === 1 ? '' : 's'} left (history: name it in the task's paths to change it)`);
}

/** Follow `<parent><relativePath>` (default `../pom.xml`) up the repository to the pom defining the property, and edit it there. */
async function resolveParentProperty(
  pom: string,
  pending: PendingMavenProperty,
  to: string,
  workspace: Workspace,
  options: ApplyRecipeOptions,
  inScope: Set<string>,
  result: ApplyRecipeResult,
  record: (path: string, out: FileRecipeResult) => void,
  notes: Set<string>,
): Promise<void> {
  let current = pom;
  const seen = new Set<string>([pom]);
  for (let depth = 0; depth < 20; depth++) {
    const facts = scanPom(await workspace.readText(current));
    if (!facts.hasParent) break;
    const relative = facts.parentRelativePath || '../pom.xml';
    let parent = joinPath(dirname(current), relative);
    if (parent !== undefined && !/\.(xml|pom)$/.test(parent)) parent = parent ? `${parent}/pom.xml` : 'pom.xml';
    if (parent === undefined || seen.has(parent) || !workspace.entry(parent)) break;
    seen.add(parent);
    const readable = await readEditable(workspace, parent, options.isEditable, options.maxFileBytes, options.rules.isLockfile);
    if ('reason' in readable) {
      result.skipped.push({ path: parent, reason: readable.reason });
      notes.add(`${pom}: the version property \${${pending.property}} may be defined in ${parent}, which cannot be edited`);
      return;
    }
    const bump = bumpMavenProperty(readable.text, pending, to);
    if (!bump.defined) {
      current = parent;
      continue;
    }
    if (!inScope.has(parent)) {
      result.skipped.push({ path: parent, reason: 'NOT_EDITABLE' });
      notes.add(`${pom}: the version property \${${pending.property}} is defined in ${parent}, outside the scope; not edited`);
      return;
    }
    const out = applySpanEdits(readable.text, bump.spans);
    if (out) {
      await workspace.write(parent, encoder.encode(out.text));
      record(parent, out);
    }
    return;
  }
  notes.add(`${pom}: the version property \${${pending.property}} is not defined in this repository's poms; not edited`);
}

/**
 * For each changed manifest, the lockfiles of its ecosystem in its directory or the nearest
 * ancestor that has one (npm, pnpm and Cargo workspaces lock at their root). A Go module's
 * go.sum always sits beside its own go.mod, so a nested module is refreshed in its directory.
 */
export function lockfilesFor(changedPaths: string[], workspace: Workspace, pkg: string): LockfileRefresh[] {
  const all = new Set(workspace.paths());
  const out = new Map<string, LockfileRefresh>();
  for (const path of changedPaths) {
    const kind = manifestKindForPath(path);
    const names = kind ? lockfilesForManifest(kind) : [];
    if (names.length === 0) continue;
    for (let dir: string | undefined = dirname(path); dir !== undefined; dir = dir === '' ? undefined : dirname(dir)) {
      const here = names.map((name) => (dir ? `${dir}/${name}` : name));
      const found = kind === 'go-mod' ? here : here.filter((p) => all.has(p));
      if (!found.length) continue;
      for (const lockfile of found) {
        const command = lockfileRefreshCommand(lockfile, pkg)!;
        out.set(lockfile, { lockfile, command: dir ? `${command} (in ${dir})` : command });
      }
      break;
    }
  }
  return [...out.values()].sort((a, b) => (a.lockfile < b.lockfile ? -1 : 1));
}
