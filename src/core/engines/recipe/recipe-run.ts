import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';
import type { Workspace } from '../../workspace/workspace.js';
import type { PathRules } from '../../paths/path-rules.js';
import type { WritePolicy } from '../../paths/write-rules.js';
import type { ApplyRecipeResult, FileRecipeResult, LineEdit, SkipReason } from './recipe-types.js';

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
  rules: Pick<PathRules, 'isLockfile' | 'isHistory'> & Partial<Pick<WritePolicy, 'inTaskScope'>>;
}

export type Readable = { text: string } | { reason: SkipReason };

/** One file's edit by a recipe step (pure). */
export type FileEdit = (file: { path: string; text: string }) => FileRecipeResult | undefined;

/**
 * One application of a recipe step to a workspace: what every recipe's `apply` works with.
 * Edits are collected by path; `finish` turns them into the result.
 */
export interface RecipeRun {
  workspace: Workspace;
  options: ApplyRecipeOptions;
  /** The paths the recipe can change, in scope, sorted. */
  candidates: string[];
  inScope: ReadonlySet<string>;
  /** A history file the step leaves alone. */
  leaveAlone(path: string): boolean;
  /** The step's edit of one file, as applyRecipeToFile makes it (used to count what history keeps). */
  editFile: FileEdit;
  result: ApplyRecipeResult;
  notes: Set<string>;
  changed: Map<string, LineEdit[]>;
  /** Read a file the recipe may edit (`forEditing`: the policy's verdict counts; otherwise only read). */
  read(path: string, forEditing?: boolean): Promise<Readable>;
  /** Write a changed file and record its edits and notes. */
  write(path: string, out: FileRecipeResult): Promise<void>;
  /** Record a file's edits and notes (already written). */
  record(path: string, out: FileRecipeResult): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Read a file the recipes may edit: a regular file, not a lockfile, no NUL byte, valid UTF-8 (a BOM is kept as text). */
export async function readEditable(
  workspace: Workspace,
  path: string,
  isEditable: (path: string) => boolean,
  maxFileBytes = Infinity,
  isLockfile: (path: string) => boolean,
): Promise<Readable> {
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

export function createRecipeRun(
  workspace: Workspace,
  options: ApplyRecipeOptions,
  parts: { candidates: string[]; leaveAlone(path: string): boolean; editFile: FileEdit },
): RecipeRun {
  const run: RecipeRun = {
    workspace,
    options,
    ...parts,
    inScope: new Set(options.paths),
    result: { changedFiles: [], skipped: [], notes: [], lockfilesToRefresh: [] },
    notes: new Set<string>(),
    changed: new Map<string, LineEdit[]>(),
    read: (path, forEditing = true) =>
      readEditable(workspace, path, forEditing ? options.isEditable : () => true, options.maxFileBytes, options.rules.isLockfile),
    record: (path, out) => {
      // A file's note names its file, so a reader can tell a fixture from the manifest that matters.
      for (const note of out.notes) run.notes.add(note.startsWith(`${path}:`) ? note : `${path}: ${note}`);
      if (out.edits.length) run.changed.set(path, [...(run.changed.get(path) ?? []), ...out.edits]);
      for (const update of out.edits.length ? (out.updates ?? []) : []) {
        const updates = (run.result.updates ??= []);
        if (!updates.some((u) => u.package === update.package && u.from === update.from && u.to === update.to)) updates.push(update);
      }
    },
    write: async (path, out) => {
      if (out.edits.length) await workspace.write(path, encoder.encode(out.text));
      run.record(path, out);
    },
  };
  return run;
}

/**
 * The usual way to apply a step: each candidate that is editable text is edited on its own;
 * a history file the step would change is left alone, with a note.
 */
export async function editEachFile(run: RecipeRun, edit: FileEdit): Promise<void> {
  for (const path of run.candidates) {
    const readable = await run.read(path);
    if ('reason' in readable) {
      run.result.skipped.push({ path, reason: readable.reason });
      continue;
    }
    if (run.leaveAlone(path)) {
      leaveHistory(run, path, readable.text);
      continue;
    }
    const out = edit({ path, text: readable.text });
    if (out) await run.write(path, out);
  }
}

/** A history file the step would change is left as it is; the notes say how many occurrences remain. */
function leaveHistory(run: RecipeRun, path: string, text: string): void {
  const out = run.editFile({ path, text });
  if (!out?.edits.length) return;
  const count = out.occurrences ?? out.edits.length;
  run.result.skipped.push({ path, reason: 'HISTORY' });
  run.notes.add(`${path}: ${count} occurrence${count === 1 ? '' : 's'} left (history: name it in the task's paths to change it)`);
}

/** The run's result: changed files sorted by path, notes in the order first given. */
export function finishRun(run: RecipeRun): ApplyRecipeResult {
  const { changed } = run;
  run.result.changedFiles = [...changed.keys()].sort().map((path) => ({ path, edits: changed.get(path)! }));
  run.result.notes = [...run.notes];
  return run.result;
}

/** `apply` for a recipe that edits each file on its own and has nothing to follow through. */
export async function applyFileByFile(run: RecipeRun): Promise<ApplyRecipeResult> {
  await editEachFile(run, run.editFile);
  return finishRun(run);
}
