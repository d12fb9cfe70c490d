import type { PathRules } from '../paths/path-rules.js';
import type { FileContents } from '../repomap/file-contents.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Workspace } from '../workspace/workspace.js';
import type { ChangelogConvention } from './changelog-convention.js';
import type { KeywordHit } from './keyword-search.js';
import type { SymbolFinding } from './symbol-search.js';
import type { TargetEvidence, TargetWarning } from './target-selection-schema.js';

/**
 * How a file was found, strongest first: named in the text, in a stack-trace frame, holding a
 * quoted message or defining a named symbol; related to such a file (its tests, its importers);
 * called from a named definition; referencing a named symbol; keyword only (no tier); the
 * project's changelog.
 */
export type EvidenceTier = 'strong' | 'related' | 'callee' | 'reference' | 'changelog';

/** What the stages of a selection found about one file. */
export interface Found {
  hits: KeywordHit[];
  evidence: TargetEvidence[];
  reasons: string[];
  score: number;
  symbol?: SymbolFinding;
  tier?: EvidenceTier;
  /** Distinct task terms the file holds (set before ranking). */
  coverage?: number;
  /** How strongly it relates to a better-evidenced file (a test by its name over one that mentions it). */
  relation?: number;
}

/** The files a selection may search, after its scope and the policy filter. */
export interface SelectionScope {
  /** The task's own scope globs (empty: the whole repository). */
  scopeGlobs: string[];
  inTaskScope: (path: string) => boolean;
  /** The task's scope narrowed by the steps' scopes when every step has one. */
  inScope: (path: string) => boolean;
  /** Files searched: in scope, allowed, not forbidden, generated, binary, a link or a submodule. */
  candidates: string[];
  /** Forbidden files in scope, searched only so that a reviewer sees what was left out. */
  forbiddenInScope: string[];
}

/** What the stages of one selection (`select-targets.ts`) share: its inputs, its scope, and what they found. */
export interface SelectionContext extends SelectionScope {
  workspace: Workspace;
  task: TaskContract;
  map: RepoMap;
  rules: PathRules;
  contents: FileContents;
  syntax: TreeSyntaxService;
  symbols?: SymbolIndex;
  all: string[];
  warnings: TargetWarning[];
  /** Path -> why it was left out. */
  excluded: Map<string, string>;
  /** Why a recipe left a candidate file alone (`path: reason`), told when nothing matched. */
  leftAlone: string[];
  found: Map<string, Found>;
  /** Every term searched for, reported in the selection. */
  terms: string[];
  filesSearched: number;
  filesParsed: number;
  /** The project's changelog convention, once looked at. */
  changelog?: ChangelogConvention;
}

/** The finding of a file, created empty the first time a stage notes it. */
export function noteFound(ctx: SelectionContext, path: string): Found {
  let f = ctx.found.get(path);
  if (!f) ctx.found.set(path, (f = { hits: [], evidence: [], reasons: [], score: 0 }));
  return f;
}
