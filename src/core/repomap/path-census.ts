import { PATH_CLASSES, type PathClass, type PathRules } from '../paths/path-rules.js';
import { ignoredDirOf, isBinaryByName, isUnderFixtureDir } from '../paths/path-classes.js';
import type { RiskClassifier } from '../risk/risk-rules.js';
import type { RiskPath } from '../risk/risk-schema.js';
import type { Workspace } from '../workspace/workspace.js';
import { ROOT_INSTRUCTION_FILES } from './instruction-files.js';
import { languageForPath } from './language-table.js';
import { manifestKindFor } from '../manifests/manifest-kinds.js';
import type { PathClassification } from './repo-map-schema.js';

/** Risk entries kept in the map; beyond this the list is truncated (queries still classify any path). */
export const MAX_RISK_PATHS = 5000;

const IMPORTANT_ROOT =
  /^(README|LICENSE|CONTRIBUTING|SECURITY|CHANGELOG|NOTICE)(\.\w+)?$|^\.agent-policy\.yaml$|^Makefile$|^mvnw$|^gradlew$|^\.editorconfig$|^\.gitattributes$|^\.gitignore$|^\.nvmrc$|^\.tool-versions$|^docker-compose\.ya?ml$/;

/** What the map learns from the path list alone, in one pass (`build-repo-map.ts`). */
export interface PathCensus {
  topLevel: Set<string>;
  ignored: Map<string, { reason: string; files: number }>;
  /** Paths under an ignored directory. */
  ignoredSet: Set<string>;
  binaryFiles: string[];
  symlinkPaths: string[];
  submodules: string[];
  manifestPaths: string[];
  /** Manifests under test fixture directories: counted, never read. */
  fixtureManifests: number;
  importantFiles: string[];
  langCounts: Map<string, { type: string; files: number; confidence: number }>;
  riskPaths: RiskPath[];
  riskTruncated: boolean;
  classOf: Map<string, PathClass>;
  classification: PathClassification;
}

function emptyCensus(): PathCensus {
  return {
    topLevel: new Set(),
    ignored: new Map(),
    ignoredSet: new Set(),
    binaryFiles: [],
    symlinkPaths: [],
    submodules: [],
    manifestPaths: [],
    fixtureManifests: 0,
    importantFiles: [],
    langCounts: new Map(),
    riskPaths: [],
    riskTruncated: false,
    classOf: new Map(),
    classification: Object.fromEntries(PATH_CLASSES.map((c) => [c, [] as string[]])) as PathClassification,
  };
}

/** A path under an ignored directory is counted against that directory and looked at no further. */
function noteIgnored(census: PathCensus, path: string): boolean {
  const ign = ignoredDirOf(path);
  if (!ign) return false;
  census.ignoredSet.add(path);
  const cur = census.ignored.get(ign.dir);
  if (cur) cur.files++;
  else census.ignored.set(ign.dir, { reason: ign.reason, files: 1 });
  return true;
}

/** Important root files, instruction files and manifests (those of test fixtures only counted). */
function noteNamed(census: PathCensus, path: string, atRoot: boolean): void {
  if ((atRoot && IMPORTANT_ROOT.test(path)) || (ROOT_INSTRUCTION_FILES as readonly string[]).includes(path)) census.importantFiles.push(path);
  if (!manifestKindFor(path)) return;
  if (isUnderFixtureDir(path)) census.fixtureManifests++;
  else census.manifestPaths.push(path);
}

/** Binary files by name; the language of any other file that is neither a symlink nor a submodule. */
function noteContentKind(census: PathCensus, path: string, mode: string | undefined): void {
  if (isBinaryByName(path)) {
    census.binaryFiles.push(path);
    return;
  }
  if (mode === '120000' || mode === '160000') return;
  const lang = languageForPath(path);
  if (!lang) return;
  const cur = census.langCounts.get(lang.language) ?? { type: lang.type, files: 0, confidence: 0 };
  cur.files++;
  cur.confidence += lang.confidence;
  census.langCounts.set(lang.language, cur);
}

function noteRisk(census: PathCensus, path: string, pathClass: PathClass, risk: RiskClassifier): void {
  const r = risk.classify(path, pathClass);
  if (!r || r.level === 'low') return;
  if (census.riskPaths.length < MAX_RISK_PATHS) census.riskPaths.push({ path, level: r.level, reason: r.reason, ruleId: r.ruleId, isDirectory: false });
  else census.riskTruncated = true;
}

/** One pass over the path list (no content): classes, top-level directories, ignored and binary files, manifests, languages, risk. */
export function takePathCensus(paths: readonly string[], workspace: Workspace, rules: PathRules, risk: RiskClassifier): PathCensus {
  const census = emptyCensus();
  for (const path of paths) {
    const pathClass = rules.classify(path);
    census.classOf.set(path, pathClass);
    census.classification[pathClass].push(path);
    const slash = path.indexOf('/');
    if (slash > 0) census.topLevel.add(path.slice(0, slash));
    const mode = workspace.entry(path)?.mode;
    if (mode === '120000') census.symlinkPaths.push(path);
    if (mode === '160000') census.submodules.push(path);
    if (noteIgnored(census, path)) continue;
    noteNamed(census, path, slash < 0);
    noteContentKind(census, path, mode);
    noteRisk(census, path, pathClass, risk);
  }
  // Build output and dependency directories are never edited.
  for (const [dir, info] of census.ignored) {
    if (info.reason === 'build output' || info.reason.includes('dependencies')) {
      census.riskPaths.push({ path: dir, level: 'blocked', reason: info.reason, ruleId: 'default-ignored-dir', isDirectory: true });
    }
  }
  return census;
}
