import { PATH_CLASSES, type PathRules } from '../paths/path-rules.js';
import { sha256Hex } from '../util/digest.js';
import { resolveLinkTarget } from '../util/repo-path.js';
import type { Workspace } from '../workspace/workspace.js';
import { inferBuildProfiles } from './build-profiles.js';
import { CODEOWNERS_LOCATIONS, parseCodeowners } from './codeowners.js';
import { buildTreeIndex, createModuleLocator, detectModules } from './detect-modules.js';
import { EvidenceCollector } from './evidence.js';
import { FileContents } from './file-contents.js';
import { languageForPath } from './language-table.js';
import { manifestKindFor } from '../manifests/manifest-kinds.js';
import { parseManifest } from '../manifests/parse-manifest.js';
import { resolveManifests } from '../manifests/resolve-manifests.js';
import { buildNavigationHints } from './navigation-hints.js';
import { MAX_RISK_PATHS, takePathCensus, type PathCensus } from './path-census.js';
import {
  REPO_MAP_SCANNER_VERSION,
  RepoMap,
  type LanguageProfile,
  type ManifestKind,
  type ManifestRecord,
  type MapWarning,
  type ModuleRecord,
  type OwnershipRule,
  type PathClassification,
} from './repo-map-schema.js';
import { createRiskClassifier } from '../risk/risk-rules.js';

export { MAX_RISK_PATHS };

export interface BuildRepoMapInput {
  workspace: Workspace;
  owner: string;
  repo: string;
  /** The policy's path rules (the defaults' for a repository without a policy). */
  rules: PathRules;
  /** Digest of the policy the rules came from (part of the cache key). */
  policyDigest: string;
  /** Shared content cache (target selection reuses what the map read). */
  contents?: FileContents;
  /** Sizes when the caller knows them (e.g. from a pack index); files read are measured anyway. */
  sizeOf?: (path: string) => number | undefined;
  largeFileBytes?: number;
}

/** A digest of the workspace view: the base tree plus every overlay change (path, mode, content). */
export async function workspaceDigest(workspace: Workspace): Promise<string> {
  const changes = workspace.changes();
  if (changes.length === 0) return `tree:${workspace.baseTreeSha}`;
  const parts: string[] = [workspace.baseTreeSha];
  for (const c of changes) parts.push(`${c.kind}:${c.path}:${c.mode ?? ''}:${c.kind === 'DELETED' ? '' : sha256Hex(await workspace.read(c.path))}`);
  return `sha256:${sha256Hex(parts.join('\n'))}`;
}

/** At most this many files a manifest includes (`-r deps/common.txt`) are read beyond the manifests found by name. */
export const MAX_INCLUDED_MANIFESTS = 50;

interface ManifestReading {
  workspace: Workspace;
  contents: FileContents;
  evidence: EvidenceCollector;
  importantFiles: string[];
  warnings: MapWarning[];
}

/** One manifest, read and parsed (never executed). A root manifest is an important file. */
async function readManifest(path: string, kind: ManifestKind, r: ManifestReading): Promise<ManifestRecord> {
  const text = await r.contents.text(path);
  const evidenceRef = r.evidence.fromBlob(path, 'manifest', `manifest/${kind}`, r.workspace.entry(path)?.oid);
  if (text === undefined) {
    r.warnings.push({ code: 'MANIFEST_UNREADABLE', message: `${path} is binary or too large`, path });
    return { path, kind, dependencies: [], parseError: 'not readable as text', evidenceRef };
  }
  const parsed = parseManifest(kind, text, path);
  if (parsed.parseError) r.warnings.push({ code: 'MANIFEST_PARSE_ERROR', message: `${path}: ${parsed.parseError}`, path });
  if (path.indexOf('/') < 0 && !r.importantFiles.includes(path)) r.importantFiles.push(path);
  return { path, kind, ...parsed, evidenceRef };
}

/**
 * Files the manifests include (`-r deps/common.txt`, any name) that were not read as manifests:
 * read as `requirements`, their own includes followed, at most MAX_INCLUDED_MANIFESTS of them.
 * Include paths are repository paths (the parsers never resolve outside the tree) and are read
 * from the workspace only; a missing one, a symlink or a submodule is a warning.
 */
async function readIncludedManifests(manifests: ManifestRecord[], r: ManifestReading): Promise<void> {
  const known = new Set(manifests.map((m) => m.path));
  const queue = manifests.flatMap((m) => (m.includes ?? []).map((path) => ({ from: m.path, path })));
  let read = 0;
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { from, path } = next;
    if (known.has(path)) continue;
    known.add(path);
    const entry = r.workspace.entry(path);
    if (!entry || entry.mode === '120000' || entry.mode === '160000') {
      r.warnings.push({ code: 'MANIFEST_INCLUDE_MISSING', message: `${from} includes ${path}, which is not a file of the repository`, path: from });
      continue;
    }
    if (read === MAX_INCLUDED_MANIFESTS) {
      r.warnings.push({
        code: 'MANIFEST_INCLUDES_TRUNCATED',
        message: `more than ${MAX_INCLUDED_MANIFESTS} included requirements files; ${path} and later ones not read`,
        path: from,
      });
      return;
    }
    read++;
    const manifest = await readManifest(path, 'requirements', r);
    manifests.push(manifest);
    queue.push(...(manifest.includes ?? []).map((included) => ({ from: path, path: included })));
  }
}

/** Manifests: every manifest path of the tree, then the files they include, then the versions they share resolved. */
async function readManifests(manifestPaths: string[], r: ManifestReading): Promise<ManifestRecord[]> {
  const manifests: ManifestRecord[] = [];
  for (const path of manifestPaths) manifests.push(await readManifest(path, manifestKindFor(path)!, r));
  await readIncludedManifests(manifests, r);
  return resolveManifests(manifests);
}

/** Ownership: the first CODEOWNERS GitHub would use. */
async function readOwnership(
  workspace: Workspace,
  contents: FileContents,
  evidence: EvidenceCollector,
  importantFiles: string[],
): Promise<RepoMap['ownership']> {
  for (const loc of CODEOWNERS_LOCATIONS) {
    if (!workspace.entry(loc)) continue;
    const text = await contents.text(loc);
    if (text === undefined) continue;
    const rules: OwnershipRule[] = parseCodeowners(text, loc);
    evidence.fromBlob(loc, 'ownership', 'codeowners', workspace.entry(loc)?.oid);
    if (!importantFiles.includes(loc)) importantFiles.push(loc);
    return { source: loc, rules };
  }
  return { source: undefined, rules: [] };
}

/** Module language: the most common programming language among the files it owns. */
function setModuleLanguages(modules: ModuleRecord[], paths: readonly string[], ignoredSet: Set<string>): void {
  if (modules.length === 0) return;
  const perModule = new Map<string, Map<string, number>>();
  const moduleForPath = createModuleLocator(modules);
  for (const path of paths) {
    if (ignoredSet.has(path)) continue;
    const lang = languageForPath(path);
    if (!lang || lang.type !== 'programming') continue;
    const mod = moduleForPath(path);
    if (!mod) continue;
    const counts = perModule.get(mod.id) ?? new Map<string, number>();
    counts.set(lang.language, (counts.get(lang.language) ?? 0) + 1);
    perModule.set(mod.id, counts);
  }
  for (const mod of modules) {
    const counts = [...(perModule.get(mod.id) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (counts.length) mod.language = counts[0][0];
  }
}

async function readSymlinks(symlinkPaths: string[], workspace: Workspace, warnings: MapWarning[]): Promise<RepoMap['filesystem']['symlinks']> {
  const symlinks: RepoMap['filesystem']['symlinks'] = [];
  for (const path of symlinkPaths) {
    let target = '';
    try {
      target = new TextDecoder().decode(await workspace.read(path));
    } catch {
      warnings.push({ code: 'SYMLINK_UNREADABLE', message: `cannot read symlink ${path}`, path });
    }
    symlinks.push({ path, target, withinWorkspace: target !== '' && resolveLinkTarget(path, target) !== undefined });
  }
  return symlinks;
}

function largeFilesOf(paths: readonly string[], input: BuildRepoMapInput, contents: FileContents): { path: string; sizeBytes: number }[] {
  const largeLimit = input.largeFileBytes ?? 1024 * 1024;
  const largeFiles: { path: string; sizeBytes: number }[] = [];
  for (const path of paths) {
    const size = input.sizeOf?.(path) ?? contents.sizeOf(path);
    if (size !== undefined && size > largeLimit) largeFiles.push({ path, sizeBytes: size });
  }
  return largeFiles;
}

function languageProfiles(langCounts: PathCensus['langCounts']): LanguageProfile[] {
  const total = [...langCounts.values()].reduce((n, l) => n + l.files, 0);
  return [...langCounts]
    .map(([language, l]) => ({ language, type: l.type, files: l.files, share: round(l.files / Math.max(1, total)), confidence: round(l.confidence / l.files) }))
    .sort((a, b) => b.files - a.files || (a.language < b.language ? -1 : 1));
}

function filesystemOf(
  paths: readonly string[],
  census: PathCensus,
  largeFiles: RepoMap['filesystem']['largeFiles'],
  symlinks: RepoMap['filesystem']['symlinks'],
): RepoMap['filesystem'] {
  return {
    fileCount: paths.length,
    topLevelDirs: [...census.topLevel].sort(),
    importantFiles: census.importantFiles.sort(),
    ignoredDirs: [...census.ignored].map(([path, i]) => ({ path, reason: i.reason, files: i.files })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    largeFiles,
    binaryFiles: census.binaryFiles,
    symlinks,
    submodules: census.submodules,
  };
}

/**
 * Build the repository map: one pass over the path list (no content), then
 * reads of manifests, CODEOWNERS, symlink targets and a bounded set of hint candidates.
 * Deterministic: the same workspace, rules and scanner version give byte-identical JSON.
 */
export async function buildRepoMap(input: BuildRepoMapInput): Promise<RepoMap> {
  const { workspace } = input;
  const rules = input.rules;
  const contents = input.contents ?? new FileContents(workspace);
  const evidence = new EvidenceCollector();
  const warnings: MapWarning[] = [];
  const paths = workspace.paths();
  const risk = createRiskClassifier(rules);
  const census = takePathCensus(paths, workspace, rules, risk);
  const { importantFiles, ignoredSet, classOf, classification, riskPaths, riskTruncated } = census;

  // Manifests of test fixtures are counted, not read.
  if (census.fixtureManifests > 0)
    warnings.push({
      code: 'FIXTURE_MANIFESTS_SKIPPED',
      message: `${census.fixtureManifests} manifest(s) under test fixture directories (fixtures, testdata...) not parsed: test inputs, not modules`,
    });
  const manifests = await readManifests(census.manifestPaths, { workspace, contents, evidence, importantFiles, warnings });
  const ownership = await readOwnership(workspace, contents, evidence, importantFiles);

  const tree = buildTreeIndex(paths);
  const { modules, edges } = detectModules(manifests, tree);
  setModuleLanguages(modules, paths, ignoredSet);
  const build = inferBuildProfiles(modules, manifests, tree);

  const { hints, warnings: hintWarnings } = await buildNavigationHints({
    paths,
    isIgnored: (p) => ignoredSet.has(p),
    classOf: (p) => classOf.get(p) ?? rules.classify(p),
    manifests,
    modules,
    contents,
    evidence,
  });
  warnings.push(...hintWarnings);

  const symlinks = await readSymlinks(census.symlinkPaths, workspace, warnings);
  const largeFiles = largeFilesOf(paths, input, contents);
  const languages = languageProfiles(census.langCounts);
  if (riskTruncated) warnings.push({ code: 'RISK_PATHS_TRUNCATED', message: `more than ${MAX_RISK_PATHS} risky paths; queries classify the rest` });

  const map: RepoMap = {
    schemaVersion: 1,
    baseCommitSha: workspace.baseCommitSha,
    identity: {
      owner: input.owner,
      repo: input.repo,
      commit: workspace.baseCommitSha,
      scannerVersion: REPO_MAP_SCANNER_VERSION,
      policyDigest: input.policyDigest,
      workspaceDigest: await workspaceDigest(workspace),
    },
    filesystem: filesystemOf(paths, census, largeFiles, symlinks),
    manifests,
    modules,
    languages,
    build,
    ownership,
    dependencies: { modules: edges },
    classification: Object.fromEntries(PATH_CLASSES.map((c) => [c, classification[c].sort(compareStrings)])) as PathClassification,
    risk: { rules: risk.rules, paths: riskPaths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), truncated: riskTruncated },
    navigationHints: hints,
    evidence: evidence.list(),
    warnings,
  };
  return RepoMap.parse(map);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
