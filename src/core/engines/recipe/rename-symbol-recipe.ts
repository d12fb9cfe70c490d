import type { Workspace } from '../../workspace/workspace.js';
import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';
import type { RenameSymbolStep } from '../../task/recipe-steps.js';
import type { ApplyRecipeResult, FileRecipeResult, LineEdit, RecipeContext, SkipReason } from './recipe-types.js';
import { scanRenameSites, type FileScan } from './rename-scan.js';
import { declaresKind, moduleNamesOf, planFileRename, renameFacts, type FilePlan, type RenameFacts } from './rename-plan.js';
import { applySpanEdits } from './span-edits.js';
import { movedPath } from './rename-file-move.js';

/*
 * rename-symbol renames by syntactic role, never by type. Without `kind`, every identifier with
 * the name is renamed, whatever it refers to. With `kind`, an occurrence is renamed only when
 * its role says it names a symbol of that kind:
 * - class, interface, type (TS type aliases, Go named types, enums): the declaration, type
 *   references, imports, and bare names that resolve to it (`new C()`, `C.of()`); TS/JS types and
 *   interfaces are never values. Fields, methods and keys of the same name stay.
 * - function: the declaration (`function f`, `const f = () => ...`, a Python `def` outside a
 *   class, a Go `func`), imports, and bare names that resolve to it (calls included); object keys,
 *   property accesses (`obj.f`) and methods stay, except through a namespace import (`ns.f()`).
 * - method: method declarations (classes, interfaces, object literals, Go receivers and interface
 *   methods, Python `def` in a class), `obj.m(...)` calls and Java calls without a receiver; an
 *   uncalled `obj.m` too unless a field of that name is declared in scope.
 * - field: property signatures (type literals, interfaces), class fields, Java fields, record
 *   components (and their accessors), enum members, Go struct fields, Python `self.x = ...` and
 *   class attributes; member accesses (`x.f`, except calls when a method of that name exists),
 *   object and destructuring keys (`{ f }` becomes `{ g: f }`), Go keyed literal elements, Java
 *   bare names that resolve to the field. Types and type references of the same name stay.
 *   Python keyword arguments and TS `#private` names are not matched.
 * - variable: declarations, parameters, destructuring, loop/with/except/comprehension/walrus
 *   targets, and bare names that resolve to them (`{ v }` becomes `{ v: w }`).
 * Imports are resolved by module where the language names one (Python, Java, Kotlin): an import
 * renames only when its module is one the declaring files can be imported by (their package, a
 * package above them, or a relative import); a file that imports the name from elsewhere
 * (`from enum import Enum`) keeps its uses. `pkg.mod.Name` through `from pkg import mod` renames
 * when `pkg.mod` is a declaring module. `type` covers enums and interfaces (Go's interface types).
 * A rename whose new name meets an existing binding (a declaration in a scope around a renamed
 * occurrence, or a member of the same type or object) is refused with the places named.
 */

export const RENAME_NOT_TYPE_AWARE_NOTE =
  'rename-symbol matches identifiers by name through the syntax tree: it is not type-aware, so every identifier with that name is renamed, whatever it refers to; strings and comments are left alone';

function renameNote(step: RenameSymbolStep): string {
  const comments = step.comments ? 'mentions in comments and docstrings of the edited files are updated too' : 'strings and comments are left alone';
  if (!step.kind) return step.comments ? RENAME_NOT_TYPE_AWARE_NOTE.replace('strings and comments are left alone', comments) : RENAME_NOT_TYPE_AWARE_NOTE;
  return `rename-symbol renames the ${step.kind} ${step.from} by syntactic role (declarations, references, member accesses), not type-aware: an occurrence of the same name that is another kind of symbol is left alone; ${comments}`;
}

function clashNote(step: RenameSymbolStep, places: { path: string; line: number; against: number }[]): string {
  const list = places.map((p) => `${p.path}:${p.line} (meets ${step.from} at line ${p.against})`).join(', ');
  return `rename-symbol refused: ${step.to} is already bound where ${step.from} would be renamed: ${list}; nothing was renamed`;
}

/** At most this many places are named in a note; the count says the rest. */
const MAX_PLACES = 10;

function leftNote(step: RenameSymbolStep, places: string[]): string | undefined {
  if (!step.kind || places.length === 0) return undefined;
  const shown = places.slice(0, MAX_PLACES).join(', ');
  const more = places.length > MAX_PLACES ? ` and ${places.length - MAX_PLACES} more` : '';
  return `rename-symbol left ${places.length} line(s) where ${step.from} names another kind of symbol than ${step.kind}: ${shown}${more}`;
}

function scanFile(step: RenameSymbolStep, path: string, text: string, syntax: TreeSyntaxService): FileScan | undefined {
  const language = syntax.languageFor(path);
  if (!language || !text.includes(step.from)) return undefined;
  return syntax.withTree(language, text, (tree) => scanRenameSites(language, tree, text, step, step.comments ?? false));
}

/** Why a renamed file moves to the file of its new name. */
function moveReason(path: string): string {
  return path.endsWith('.java') ? 'a public top-level class lives in the file of its name' : 'the file is named after its class';
}

function moveNote(step: RenameSymbolStep, path: string, text: string, syntax: TreeSyntaxService): string | undefined {
  const target = movedPath(step, path, text, syntax);
  return target && `${path}: the file moves to ${target} (${moveReason(path)})`;
}

/**
 * Rename `from` to `to` in one file (the rule per kind above), judging by this file alone: what
 * target selection shows. A clash is named in the notes; `renameInWorkspace`, which writes,
 * refuses it.
 */
export function applyRenameSymbol(step: RenameSymbolStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  const scan = scanFile(step, file.path, file.text, ctx.syntax);
  if (!scan) return undefined;
  const plan = planFileRename(scan, step, renameFacts([scan]));
  const result = applySpanEdits(file.text, plan.spans);
  const java = result ? moveNote(step, file.path, result.text, ctx.syntax) : undefined;
  const left = leftNote(
    step,
    plan.left.map((line) => `${file.path}:${line}`),
  );
  const clash = plan.clashes.length
    ? clashNote(
        step,
        plan.clashes.map((c) => ({ path: file.path, ...c })),
      )
    : undefined;
  return applySpanEdits(file.text, plan.spans, [renameNote(step), ...[java, left, clash].filter((n): n is string => n !== undefined)]);
}

/** The module paths of the files that declare the symbol, for telling its imports from a same-named symbol's (Python, Java, Kotlin). */
function declaringModules(step: RenameSymbolStep, files: { path: string; scan: FileScan }[]): Set<string> | undefined {
  if (!step.kind) return undefined;
  const kind = step.kind;
  const out = new Set<string>();
  for (const { path, scan } of files) {
    if (!declaresKind([scan], kind)) continue;
    for (const name of moduleNamesOf(path, scan.language)) out.add(name);
    if (scan.packageName) out.add(scan.packageName);
  }
  return out;
}

export type RenameReadable = { text: string } | { reason: SkipReason };

/**
 * Rename across the files in scope: every file is planned before any is written, so a kind
 * that no file declares, or a clash in any file, leaves the workspace untouched (said in the
 * notes). `read(path, forEditing)` reads a file, applying the policy only when `forEditing`:
 * declarations in files that cannot be edited still count.
 */
export async function renameInWorkspace(
  step: RenameSymbolStep,
  candidates: string[],
  workspace: Workspace,
  syntax: TreeSyntaxService,
  read: (path: string, forEditing: boolean) => Promise<RenameReadable>,
  outside: readonly string[] = [],
  canCreate: (path: string) => boolean = () => true,
): Promise<ApplyRecipeResult> {
  const result: ApplyRecipeResult = { changedFiles: [], skipped: [], notes: [renameNote(step)], lockfilesToRefresh: [] };
  const scans: FileScan[] = [];
  const declaring: { path: string; scan: FileScan }[] = [];
  const editable: { path: string; text: string; scan: FileScan }[] = [];
  for (const path of candidates) {
    let readable = await read(path, true);
    if ('reason' in readable) {
      result.skipped.push({ path, reason: readable.reason });
      if (readable.reason !== 'NOT_EDITABLE') continue;
      readable = await read(path, false);
      if ('reason' in readable) continue;
      const scan = scanFile(step, path, readable.text, syntax);
      if (scan) scans.push(scan);
      if (scan) declaring.push({ path, scan });
      continue;
    }
    const scan = scanFile(step, path, readable.text, syntax);
    if (!scan) continue;
    scans.push(scan);
    declaring.push({ path, scan });
    editable.push({ path, text: readable.text, scan });
  }
  if (step.kind && !declaresKind(scans, step.kind)) {
    result.notes.push(`no ${step.kind} named ${step.from} is defined in scope; nothing was renamed`);
    return result;
  }
  const facts = { ...renameFacts(scans), modules: declaringModules(step, declaring) };
  const plans: { path: string; text: string; plan: FilePlan }[] = editable.map((file) => ({ ...file, plan: planFileRename(file.scan, step, facts) }));
  const clashes = plans.flatMap(({ path, plan }) => plan.clashes.map((c) => ({ path, ...c })));
  if (clashes.length) {
    result.notes.push(clashNote(step, clashes));
    return result;
  }
  const changed: { path: string; edits: LineEdit[] }[] = [];
  for (const { path, text, plan } of plans) {
    const out = applySpanEdits(text, plan.spans);
    if (!out) continue;
    const written = await writeRenamed(step, { path, text: out.text }, { workspace, syntax, canCreate, result });
    changed.push({ path: written, edits: out.edits });
  }
  result.changedFiles = changed.sort((a, b) => (a.path < b.path ? -1 : 1));
  const left = leftNote(
    step,
    plans.flatMap(({ path, plan }) => plan.left.map((line) => `${path}:${line}`)),
  );
  if (left) result.notes.push(left);
  if (changed.length > 0) await leftOutside(step, outside, syntax, facts, read, result);
  return result;
}

const encoder = new TextEncoder();

/**
 * Write a renamed file; one whose public class (Java) or namesake class (Kotlin) was renamed
 * moves to the file of the new name, in the same directory: written there, deleted here, listed
 * in `moves` and the notes. A target that exists, or that the step may not create, is refused
 * with a note and the file keeps its name (for Java the change is then incomplete: javac refuses
 * it). Returns the path written.
 */
async function writeRenamed(
  step: RenameSymbolStep,
  file: { path: string; text: string },
  ctx: { workspace: Workspace; syntax: TreeSyntaxService; canCreate: (path: string) => boolean; result: ApplyRecipeResult },
): Promise<string> {
  const { workspace, result } = ctx;
  const { path } = file;
  const target = movedPath(step, path, file.text, ctx.syntax);
  const refusal =
    target === undefined
      ? undefined
      : workspace.entry(target)
        ? `${target} already exists`
        : !ctx.canCreate(target)
          ? `${target} is outside the step's scope or not editable`
          : undefined;
  if (target === undefined || refusal !== undefined) {
    await workspace.write(path, encoder.encode(file.text));
    if (target !== undefined) {
      const consequence = path.endsWith('.java') ? `; javac refuses the public class ${step.to} in ${path} until it moves` : '';
      const note = `rename-symbol did not move ${path} to ${target}: ${refusal}${consequence}`;
      result.notes.push(note);
      if (consequence) result.incomplete = [...(result.incomplete ?? []), note];
    }
    return path;
  }
  await workspace.write(target, encoder.encode(file.text), workspace.entry(path)?.mode);
  await workspace.delete(path);
  (result.moves ??= []).push({ from: path, to: target });
  result.notes.push(`rename-symbol moved ${path} to ${target} (${moveReason(path)})`);
  return target;
}

/** At most this many files outside the scope are read for uses the rename leaves behind. */
const MAX_OUTSIDE_FILES = 5_000;

/**
 * Files outside the step's scope that would rename too (an import or a use of the renamed
 * symbol): the change does not build without them, so the result says which and is incomplete.
 */
async function leftOutside(
  step: RenameSymbolStep,
  outside: readonly string[],
  syntax: TreeSyntaxService,
  facts: RenameFacts,
  read: (path: string, forEditing: boolean) => Promise<RenameReadable>,
  result: ApplyRecipeResult,
): Promise<void> {
  const using: string[] = [];
  for (const path of outside.slice(0, MAX_OUTSIDE_FILES)) {
    const readable = await read(path, false);
    if ('reason' in readable) continue;
    const scan = scanFile(step, path, readable.text, syntax);
    if (scan && planFileRename(scan, step, facts).spans.length > 0) using.push(path);
  }
  if (using.length === 0) return;
  const shown = using.slice(0, MAX_PLACES).join(', ');
  const more = using.length > MAX_PLACES ? ` and ${using.length - MAX_PLACES} more` : '';
  const message = `rename-symbol renamed ${step.from} to ${step.to}, but ${using.length} file(s) it did not change (outside the scope or the selected targets) still use ${step.from}: ${shown}${more}; add them to the step's paths, or the change does not build`;
  result.notes.push(message);
  result.incomplete = [message];
}
