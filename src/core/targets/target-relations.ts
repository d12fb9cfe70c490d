import type { PathRules } from '../paths/path-rules.js';
import type { FileContents } from '../repomap/file-contents.js';
import { resolveFileImports } from '../repomap/file-imports.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import { RepoNavigator } from '../repomap/repo-navigator.js';
import type { Workspace } from '../workspace/workspace.js';
import { baseName } from '../paths/path-classes.js';
import { filesContaining } from './keyword-search.js';
import type { TargetEvidence } from './target-selection-schema.js';

const stemOf = (path: string): string => baseName(path).replace(/\.[^.]*$/, '');

export interface RelationFinding {
  path: string;
  /** The anchor the relation was found from. */
  anchor: string;
  score: number;
  /** How close the relation is, whatever the anchor's evidence (a test named after its file over one that mentions it). */
  strength: number;
  reason: string;
  evidence: TargetEvidence;
}

/** What relations are found from: the anchors, the map and the files, and which files may be reported. */
export interface RelationInput {
  anchors: readonly string[];
  map: RepoMap;
  workspace: Workspace;
  contents: FileContents;
  rules: PathRules;
  allowed: (path: string) => boolean;
}

/** Anchors whose relations are followed, tests per anchor, and files read to find importers: bounds, not tuning. */
export const MAX_RELATION_ANCHORS = 3;
export const MAX_TESTS_PER_ANCHOR = 3;
export const MAX_IMPORTER_SCANS = 300;
/** Relations are context for a change, never above the evidence that selected their anchor. */
const TEST_WEIGHT = 0.3;
const IMPORTER_SCORE = 0.2;

/**
 * The navigator's relations of the best-evidenced files: the tests that cover them and the
 * files that import them. Importers are looked for among the files of `scan` that mention an
 * anchor's file stem, a bounded number of them.
 */
export async function findRelations(input: RelationInput & { scan: readonly string[] }): Promise<RelationFinding[]> {
  const anchors = input.anchors.slice(0, MAX_RELATION_ANCHORS);
  if (anchors.length === 0) return [];
  const out = await findRelatedTests({ ...input, anchors });
  const files = new Set(input.workspace.paths());
  const wanted = new Set(anchors);
  // An importer names the module it imports: only files that mention an anchor's stem are parsed for imports.
  const stems = [...new Set(anchors.map(stemOf).filter((s) => s.length > 1))];
  const mentions = await filesContaining(input.contents, input.scan, stems);
  const scan = [...new Set([...mentions.values()].flat())].sort();
  for (const p of scan.slice(0, MAX_IMPORTER_SCANS)) {
    if (wanted.has(p) || !input.allowed(p)) continue;
    const text = await input.contents.text(p);
    if (text === undefined) continue;
    for (const target of resolveFileImports(p, text, files, input.map.modules)) {
      if (!wanted.has(target)) continue;
      out.push({
        path: p,
        anchor: target,
        score: IMPORTER_SCORE,
        strength: IMPORTER_SCORE,
        reason: `imports ${target}`,
        evidence: { type: 'scope', detail: `importer of ${target}` },
      });
    }
  }
  return out;
}

/** The tests that cover each anchor (naming conventions in its module, then tests that mention it), a bounded number per anchor. */
export async function findRelatedTests(input: RelationInput): Promise<RelationFinding[]> {
  const out: RelationFinding[] = [];
  const navigator = new RepoNavigator(input.map, input.workspace, input.contents, input.rules);
  for (const anchor of input.anchors) {
    for (const t of (await navigator.findRelatedTests(anchor, MAX_TESTS_PER_ANCHOR)).results) {
      if (!input.allowed(t.path)) continue;
      out.push({
        path: t.path,
        anchor,
        score: Math.round(TEST_WEIGHT * t.score * 100) / 100,
        strength: t.score,
        reason: `test covering ${anchor}: ${t.reason}`,
        evidence: { type: 'scope', detail: `related test of ${anchor} (${t.evidence.join(', ')})` },
      });
    }
  }
  return out;
}
