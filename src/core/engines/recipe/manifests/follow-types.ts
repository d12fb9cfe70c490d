import type { MigrateImportStep } from '../../../task/recipe-steps.js';
import type { SpanEdit } from '../recipe-types.js';

/** What follow-through may read and edit: the repository's paths, file text, and the edit verdict per manifest. */
export interface ManifestAccess {
  paths: readonly string[];
  /** The file's text, or undefined when it is missing or not readable text. */
  read(path: string): Promise<string | undefined>;
  /** Why this manifest cannot be edited by the step (outside its scope, refused by the policy), or undefined when it can. */
  cannotEdit(path: string): string | undefined;
}

/** Manifest edits and notes from checking that a migration's new imports are declared by the build. */
export interface FollowThrough {
  /**
   * Manifest edits, applied in order: `spans` against the text as it is when the edit is reached
   * (an earlier edit of the same file has been written), or `then`, which computes its spans from
   * that text (a removal after an insertion into the same section).
   */
  edits: ({ path: string; spans: SpanEdit[] } | { path: string; then: (text: string) => SpanEdit[] })[];
  notes: string[];
  /** The dependency name whose lockfile must be refreshed after a manifest edit. */
  dependency?: string;
}

export type FollowStep = MigrateImportStep;

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `dir/name` (or `name` at the root). */
export function inDir(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

/** The directories from `path`'s own up to the root, nearest first. */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === '') return out;
  }
}

/** The nearest file named `name` up the tree from `path`, among `paths`. */
export function nearest(path: string, name: string, paths: ReadonlySet<string>): string | undefined {
  return ancestors(path)
    .map((dir) => inDir(dir, name))
    .find((candidate) => paths.has(candidate));
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The leading blanks of the line holding `offset`. */
export function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** The file's line ending: CRLF when its first line ends so. */
export function eolOf(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

/** True when `list` is in ascending order by `key` (case-insensitive). */
export function isSorted<T>(list: readonly T[], key: (item: T) => string): boolean {
  for (let i = 1; i < list.length; i++) if (key(list[i - 1]).toLowerCase() > key(list[i]).toLowerCase()) return false;
  return true;
}

/** At most `limit` notes; the rest are counted in one closing note, so a change across hundreds of manifests stays readable. */
export function capNotes(notes: readonly string[], limit: number): string[] {
  if (notes.length <= limit) return [...notes];
  return [...notes.slice(0, limit), `… and ${notes.length - limit} more like these`];
}
