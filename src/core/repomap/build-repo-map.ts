import { PATH_CLASSES, type PathClass, type PathRules } from '../paths/path-rules.js';
import { sha256Hex } from '../util/digest.js';
import { resolveLinkTarget } from '../util/repo-path.js';
import type { Workspace } from '../workspace/workspace.js';
import { inferBuildProfiles } from './build-profiles.js';
import { CODEOWNERS_LOCATIONS, parseCodeowners } from './codeowners.js';
import { buildTreeIndex, createModuleLocator, detectModules } from './detect-modules.js';
import { EvidenceCollector } from './evidence.js';
import { FileContents } from './file-contents.js';
import { ROOT_INSTRUCTION_FILES } from './instruction-files.js';
import { languageForPath } from './language-table.js';
import { manifestKindFor, parseManifest } from './manifest-parsers.js';
import { buildNavigationHints } from './navigation-hints.js';
import { ignoredDirOf, isBinaryByName, isUnderFixtureDir } from '../paths/path-classes.js';
import { REPO_MAP_SCANNER_VERSION, RepoMap, type LanguageProfile, type PathClassification, type ManifestRecord, type MapWarning, type OwnershipRule } from './repo-map-schema.js';
import { type RiskPath } from '../risk/risk-schema.js';
import { createRiskClassifier } from '../risk/risk-rules.js';

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

/** Risk entries kept in the map; beyond this the list is truncated (queries still classify any path). */
export const MAX_RISK_PATHS = 5000;

const IMPORTANT_ROOT = /^(README|LICENSE|CONTRIBUTING|SECURITY|CHANGELOG|NOTICE)(\.\w+)?$|^\.agent-policy\.yaml$|^Makefile$|^mvnw$|^gradlew$|^\.editorconfig$|^\.gitattributes$|^\.gitignore$|^\.nvmrc$|^\.tool-versions$|^docker-compose\.ya?ml$/;

/** A digest of the workspace view: the base tree plus every overlay change (path, mode, content). */
export async function workspaceDigest(workspace: Workspace): Promise<string> {
  const changes = workspace.changes();
  if (changes.length === 0) return `tree:${workspace.baseTreeSha}`;
  const parts: string[] = [workspace.baseTreeSha];
  for (const c of changes) parts.push(`${c.kind}:${c.path}:${c.mode ?? ''}:${c.kind === 'DELETED' ? '' : sha256Hex(await workspace.read(c.path))}`);
  return `sha256:${sha256Hex(parts.join('\n'))}`;
}

/**
 * Build the repository map: one pass over the path list (no content), then
 * reads of manifests, CODEOWNERS, symlink targets and a bounded set of hint candidates.
 * Deterministic: the same workspace, rules and scanner version give byte-identical JSON.
 */
export async function buildRepoMap(input: BuildRepoMapInput): Promise<RepoMap> {
  const { workspace } = input;
  const { rules } = input;
  const contents = input.contents ?? new FileContents(workspace);
  const evidence = new EvidenceCollector();
  const warnings: MapWarning[] = [];
  const paths = workspace.paths();
  const largeLimit = input.largeFileBytes ?? 1024 * 1024;
  const risk = createRiskClassifier(rules);

  const topLevel = new Set<string>();
  const ignored = new Map<string, { reason: string; files: number }>();
  const binaryFiles: string[] = [];
  const symlinkPaths: string[] = [];
  const submodules: string[] = [];
  const manifestPaths: string[] = [];
  const importantFiles: string[] = [];
  const langCounts = new Map<string, { type: string; files: number; confidence: number }>();
  const riskPaths: RiskPath[] = [];
  let riskTruncated = false;
  let fixtureManifests = 0;
  const ignoredSet = new Set<string>();
  const classOf = new Map<string, PathClass>();
  const classification = Object.fromEntries(PATH_CLASSES.map((c) => [c, [] as string[]])) as PathClassification;

  for (const path of paths) {
    const pathClass = rules.classify(path);
    classOf.set(path, pathClass);
    classification[pathClass].push(path);
    const slash = path.indexOf('/');
    if (slash > 0) topLevel.add(path.slice(0, slash));
    const entry = workspace.entry(path);
    if (entry?.mode === '120000') symlinkPaths.push(path);
    if (entry?.mode === '160000') submodules.push(path);
    const ign = ignoredDirOf(path);
    if (ign) {
      ignoredSet.add(path);
      const cur = ignored.get(ign.dir);
      if (cur) cur.files++;
      else ignored.set(ign.dir, { reason: ign.reason, files: 1 });
      continue;
    }
    if ((slash < 0 && IMPORTANT_ROOT.test(path)) || (ROOT_INSTRUCTION_FILES as readonly string[]).includes(path)) importantFiles.push(path);
    if (manifestKindFor(path)) {
      if (isUnderFixtureDir(path)) fixtureManifests++;
      else manifestPaths.push(path);
    }
    if (isBinaryByName(path)) binaryFiles.push(path);
    else if (entry?.mode !== '120000' && entry?.mode !== '160000') {
      const lang = languageForPath(path);
      if (lang) {
        const cur = langCounts.get(lang.language) ?? { type: lang.type, files: 0, confidence: 0 };
        cur.files++;
        cur.confidence += lang.confidence;
        langCounts.set(lang.language, cur);
      }
    }
    const r = risk.classify(path, pathClass);
    if (r && r.level !== 'low') {
      if (riskPaths.length < MAX_RISK_PATHS) riskPaths.push({ path, level: r.level, reason: r.reason, ruleId: r.ruleId, isDirectory: false });
      else riskTruncated = true;
    }
  }
  for (const [dir, info] of ignored) {
    if (info.reason === 'build output' || info.reason.includes('dependencies')) {
      riskPaths.push({ path: dir, level: 'blocked', reason: info.reason, ruleId: 'default-ignored-dir', isDirectory: true });
    }
  }

  // Manifests: read and parse, never executed. Those of test fixtures are counted, not read.
  if (fixtureManifests > 0) warnings.push({ code: 'FIXTURE_MANIFESTS_SKIPPED', message: `${fixtureManifests} manifest(s) under test fixture directories (fixtures, testdata...) not parsed: test inputs, not modules` });
  const manifests: ManifestRecord[] = [];
  for (const path of manifestPaths) {
    const kind = manifestKindFor(path)!;
    const text = await contents.text(path);
    const evidenceRef = evidence.fromBlob(path, 'manifest', `manifest/${kind}`, workspace.entry(path)?.oid);
    if (text === undefined) {
      manifests.push({ path, kind, dependencies: [], parseError: 'not readable as text', evidenceRef });
      warnings.push({ code: 'MANIFEST_UNREADABLE', message: `${path} is binary or too large`, path });
      continue;
    }
    const parsed = parseManifest(kind, text);
    manifests.push({ path, kind, ...parsed, evidenceRef });
    if (parsed.parseError) warnings.push({ code: 'MANIFEST_PARSE_ERROR', message: `${path}: ${parsed.parseError}`, path });
    if (path.indexOf('/') < 0 && !importantFiles.includes(path)) importantFiles.push(path);
  }

  // Ownership: the first CODEOWNERS GitHub would use.
  let ownershipSource: string | undefined;
  let ownershipRules: OwnershipRule[] = [];
  for (const loc of CODEOWNERS_LOCATIONS) {
    if (!workspace.entry(loc)) continue;
    const text = await contents.text(loc);
    if (text === undefined) continue;
    ownershipSource = loc;
    ownershipRules = parseCodeowners(text, loc);
    evidence.fromBlob(loc, 'ownership', 'codeowners', workspace.entry(loc)?.oid);
    if (!importantFiles.includes(loc)) importantFiles.push(loc);
    break;
  }

  const tree = buildTreeIndex(paths);
  const { modules, edges } = detectModules(manifests, tree);
  // Module language: the most common programming language among the files it owns.
  if (modules.length > 0) {
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
  const build = inferBuildProfiles(modules, manifests, tree);

  const { hints, warnings: hintWarnings } = await buildNavigationHints({ paths, isIgnored: (p) => ignoredSet.has(p), classOf: (p) => classOf.get(p) ?? rules.classify(p), manifests, modules, contents, evidence });
  warnings.push(...hintWarnings);

  const symlinks: { path: string; target: string; withinWorkspace: boolean }[] = [];
  for (const path of symlinkPaths) {
    let target = '';
    try {
      target = new TextDecoder().decode(await workspace.read(path));
    } catch {
      warnings.push({ code: 'SYMLINK_UNREADABLE', message: `cannot read symlink ${path}`, path });
    }
    symlinks.push({ path, target, withinWorkspace: target !== '' && resolveLinkTarget(path, target) !== undefined });
  }

  const largeFiles: { path: string; sizeBytes: number }[] = [];
  for (const path of paths) {
    const size = input.sizeOf?.(path) ?? contents.sizeOf(path);
    if (size !== undefined && size > largeLimit) largeFiles.push({ path, sizeBytes: size });
  }

  const total = [...langCounts.values()].reduce((n, l) => n + l.files, 0);
  const languages: LanguageProfile[] = [...langCounts]
    .map(([language, l]) => ({ language, type: l.type, files: l.files, share: round(l.files / Math.max(1, total)), confidence: round(l.confidence / l.files) }))
    .sort((a, b) => b.files - a.files || (a.language < b.language ? -1 : 1));
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
    filesystem: {
      fileCount: paths.length,
      topLevelDirs: [...topLevel].sort(),
      importantFiles: importantFiles.sort(),
      ignoredDirs: [...ignored].map(([path, i]) => ({ path, reason: i.reason, files: i.files })).sort((a, b) => (a.path < b.path ? -1 : 1)),
      largeFiles,
      binaryFiles,
      symlinks,
      submodules,
    },
    manifests,
    modules,
    languages,
    build,
    ownership: { source: ownershipSource, rules: ownershipRules },
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
