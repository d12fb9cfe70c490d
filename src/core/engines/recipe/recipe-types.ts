import type { ImportLayout } from './import-placement/declared-layout.js';
import type { SyntaxLanguage } from '../../syntax/types.js';
import type { DependencyUpdate } from '../../versions/versions.js';

export type { DependencyUpdate } from '../../versions/versions.js';
import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';

/** One changed region, reported by whole lines: `line` is 1-based in the original text. */
export interface LineEdit {
  line: number;
  before: string;
  after: string;
}

/** A replacement of `[start, end)` of the original text (UTF-16 offsets). */
export interface SpanEdit {
  start: number;
  end: number;
  text: string;
}

export interface FileRecipeResult {
  text: string;
  edits: LineEdit[];
  notes: string[];
  /** How many places changed (edits group them by line), when known. */
  occurrences?: number;
  /** The dependency versions the edit moves (bump-dependency). */
  updates?: DependencyUpdate[];
}

/** A version in a Maven pom that is a `${property}` not defined in that pom: resolved against parent poms. */
export interface PendingMavenProperty {
  property: string;
  /** The version the property must hold to be edited (the step's `from`), when given. */
  from?: string;
}

export interface RecipeContext {
  syntax: TreeSyntaxService;
  /** The import layout the project's formatter declares for a language (Java), when its build declares one. */
  importLayout?: (language: SyntaxLanguage) => ImportLayout | undefined;
}

export interface LockfileRefresh {
  lockfile: string;
  command: string;
}

export interface ApplyRecipeResult {
  changedFiles: { path: string; edits: LineEdit[] }[];
  skipped: { path: string; reason: SkipReason }[];
  notes: string[];
  lockfilesToRefresh: LockfileRefresh[];
  /** The dependency versions the step moved, one per package, from and to (bump-dependency). */
  updates?: DependencyUpdate[];
  /** Files the step moved (a renamed public Java class to the file of its new name): deleted at `from`, written at `to`. */
  moves?: { from: string; to: string }[];
  /** Why the change is incomplete (files outside the step's scope still use a renamed name): the PR body warns at its top. */
  incomplete?: string[];
}

export type SkipReason =
  'NOT_EDITABLE' | 'TOO_LARGE' | 'BINARY' | 'NOT_UTF8' | 'NOT_A_REGULAR_FILE' | 'LOCKFILE' | 'MISSING' | 'PARSE_ERRORS_BEFORE' | 'HISTORY';
