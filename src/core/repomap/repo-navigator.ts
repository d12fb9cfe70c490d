import { compileGlobs } from '../paths/glob.js';
import { defaultPathRules, type PathRules } from '../paths/path-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { ownersFor } from './codeowners.js';
import { moduleForPath } from './detect-modules.js';
import type { FileContents } from './file-contents.js';
import { baseName, dirName, extensionOf, ignoredDirOf } from './path-classes.js';
import type { ManifestRecord, ModuleRecord, NavigationHint, RepoMap, RiskLevel } from './repo-map-schema.js';
import { createRiskClassifier, type RiskClassifier } from './risk-rules.js';

export interface NavigationResult {
  path: string;
  score: number;
  reason: string;
  evidence: string[];
}

export interface NavigationResponse<Q> {
  query: Q;
  results: NavigationResult[];
}

export interface PathExplanation {
  path: string;
  exists: boolean;
  module?: { id: string; path: string; buildSystem: string };
  manifest?: string;
  role: 'source' | 'test' | 'resource' | 'manifest' | 'config' | 'docs' | 'generated' | 'ignored' | 'other';
  owners: string[];
  ownersRule?: string;
  risk?: { level: RiskLevel; reason: string };
  hints: NavigationHint[];
  evidence: string[];
}

const JAVA_LIKE = new Set(['java', 'kt', 'scala', 'groovy']);

/**
 * The query API over a map: agents and the planner ask these instead of listing
 * directories. Every answer has a score, a reason and evidence; content is read only when a
 * query needs it (related tests read a bounded set of test files of one module).
 */
export class RepoNavigator {
  private readonly risk: RiskClassifier;
  private readonly rules: PathRules;

  constructor(
    readonly map: RepoMap,
    readonly workspace: Workspace,
    private readonly contents?: FileContents,
    rules: PathRules = defaultPathRules(),
  ) {
    this.rules = rules;
    this.risk = createRiskClassifier(rules);
  }

  findFilesByPattern(pattern: string, limit = 50): NavigationResponse<{ type: 'find_files_by_pattern'; pattern: string; limit: number }> {
    // A bare name (`*.java`, `pom.xml`) is looked for at any depth.
    const match = compileGlobs([pattern.includes('/') ? pattern : `**/${pattern}`]);
    const results: NavigationResult[] = [];
    for (const path of this.workspace.paths()) {
      if (results.length >= limit) break;
      if (!match(path)) continue;
      const ignored = ignoredDirOf(path);
      results.push({ path, score: ignored ? 0.3 : 1, reason: ignored ? `matches ${pattern} (inside ${ignored.reason})` : `matches ${pattern}`, evidence: ['glob'] });
    }
    results.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    return { query: { type: 'find_files_by_pattern', pattern, limit }, results };
  }

  findEntrypoints(filter: { module?: string; framework?: string } = {}): NavigationResponse<{ type: 'find_entrypoints'; module?: string; framework?: string }> {
    const mod = filter.module ? this.map.modules.find((m) => m.id === filter.module || m.path === filter.module || m.name === filter.module) : undefined;
    const results = this.map.navigationHints
      .filter((h) => h.kind === 'entrypoint' || h.kind === 'api')
      .filter((h) => !filter.framework || h.framework === filter.framework)
      .filter((h) => !filter.module || (mod && moduleForPath(this.map.modules, h.path)?.id === mod.id))
      .map((h) => ({ path: h.path, score: h.confidence, reason: `${h.kind}: ${h.reason}`, evidence: h.evidenceRefs }))
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    return { query: { type: 'find_entrypoints', ...filter }, results };
  }

  /** Tests for a source file: naming conventions in the module's test roots, then test files that mention the subject. */
  async findRelatedTests(path: string, limit = 10): Promise<NavigationResponse<{ type: 'find_related_tests'; path: string; limit: number }>> {
    const mod = moduleForPath(this.map.modules, path);
    const stem = stemOf(path);
    const ext = extensionOf(path);
    const names = testNamesFor(stem, ext);
    const rel = mod ? relativeToRoots(path, mod.sourceRoots) : undefined;
    const scored = new Map<string, NavigationResult>();
    const candidates = this.workspace.paths().filter((p) => p !== path && this.rules.isTest(p) && !ignoredDirOf(p) && (!mod || moduleForPath(this.map.modules, p)?.id === mod.id));
    for (const p of candidates) {
      if (!names.has(baseName(p))) continue;
      const samePackage = rel !== undefined && mod !== undefined && dirName(relativeToRoots(p, mod.testRoots) ?? '') === dirName(rel);
      const sameDir = dirName(p) === dirName(path);
      const evidence = ['test_name_match', ...(samePackage ? ['same_package'] : []), ...(sameDir ? ['same_directory'] : [])];
      scored.set(p, { path: p, score: samePackage || sameDir ? 0.91 : 0.75, reason: samePackage ? 'name match and same package' : sameDir ? 'name match in the same directory' : 'test name matches the file', evidence });
    }
    if (this.contents && stem) {
      const word = new RegExp(`\\b${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
      for (const p of candidates.slice(0, 500)) {
        if (scored.has(p)) continue;
        const text = await this.contents.text(p);
        if (text !== undefined && word.test(text)) scored.set(p, { path: p, score: 0.6, reason: `test mentions ${stem}`, evidence: ['content_reference'] });
      }
    }
    const results = [...scored.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
    return { query: { type: 'find_related_tests', path, limit }, results };
  }

  findManifestForPath(path: string): NavigationResponse<{ type: 'find_manifest_for_path'; path: string }> {
    const results: NavigationResult[] = [];
    let dir = dirName(path);
    for (;;) {
      const here = this.map.manifests.filter((m) => dirName(m.path) === dir && isBuildManifest(m));
      for (const m of here) results.push({ path: m.path, score: round(1 - 0.1 * results.length), reason: `${m.kind} of ${dir || 'the repository root'}${m.name ? ` (${m.name})` : ''}`, evidence: [m.evidenceRef] });
      if (dir === '') break;
      dir = dirName(dir);
    }
    return { query: { type: 'find_manifest_for_path', path }, results };
  }

  findModuleForPath(path: string): NavigationResponse<{ type: 'find_module_for_path'; path: string }> & { module?: ModuleRecord } {
    const mod = moduleForPath(this.map.modules, path);
    const results = mod ? [{ path: mod.path, score: 1, reason: `${mod.buildSystem} module ${mod.name ?? mod.id} owns the path (longest module prefix)`, evidence: mod.evidenceRefs }] : [];
    return { query: { type: 'find_module_for_path', path }, results, module: mod };
  }

  findRiskyPaths(changedPaths: string[]): NavigationResponse<{ type: 'find_risky_paths'; changedPaths: string[] }> {
    const score: Record<RiskLevel, number> = { low: 0.1, medium: 0.5, high: 0.8, blocked: 1 };
    const results: NavigationResult[] = [];
    for (const path of [...changedPaths].sort()) {
      const ignored = ignoredDirOf(path);
      const r = ignored && (ignored.reason === 'build output' || ignored.reason.includes('dependencies')) ? { level: 'blocked' as const, reason: ignored.reason, ruleId: 'default-ignored-dir' } : this.risk.classify(path);
      if (!r || r.level === 'low') continue;
      results.push({ path, score: score[r.level], reason: `${r.level}: ${r.reason}`, evidence: [r.ruleId] });
    }
    results.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    return { query: { type: 'find_risky_paths', changedPaths }, results };
  }

  explainPath(path: string): PathExplanation {
    const mod = moduleForPath(this.map.modules, path);
    const manifest = this.findManifestForPath(path).results[0];
    const owners = ownersFor(this.map.ownership.rules, path);
    const risk = this.findRiskyPaths([path]).results[0];
    const hints = this.map.navigationHints.filter((h) => h.path === path);
    const role = roleOf(path, mod, this.map.manifests, this.rules);
    const evidence = [...new Set([...(mod?.evidenceRefs ?? []), ...(manifest?.evidence ?? []), ...hints.flatMap((h) => h.evidenceRefs)])].sort();
    return {
      path,
      exists: this.workspace.entry(path) !== undefined,
      module: mod ? { id: mod.id, path: mod.path, buildSystem: mod.buildSystem } : undefined,
      manifest: manifest?.path,
      role,
      owners: owners.owners,
      ownersRule: owners.rule ? `${owners.rule.source}:${owners.rule.line} ${owners.rule.pattern}` : undefined,
      risk: risk ? { level: risk.reason.split(':')[0] as RiskLevel, reason: risk.reason.slice(risk.reason.indexOf(':') + 2) } : undefined,
      hints,
      evidence,
    };
  }
}

function isBuildManifest(m: ManifestRecord): boolean {
  return !['dockerfile', 'openapi', 'github-workflow', 'pnpm-workspace', 'gradle-settings', 'go.work'].includes(m.kind);
}

function stemOf(path: string): string {
  const name = baseName(path);
  return name.replace(/\.(test|spec)(?=\.)/, '').replace(/\.[^.]+$/, '');
}

function testNamesFor(stem: string, ext: string): Set<string> {
  const out = new Set<string>();
  if (JAVA_LIKE.has(ext)) for (const s of ['Test', 'Tests', 'IT', 'Spec']) out.add(`${stem}${s}.${ext}`), out.add(`Test${stem}.${ext}`);
  else if (ext === 'py') out.add(`test_${stem}.py`), out.add(`${stem}_test.py`);
  else if (ext === 'go') out.add(`${stem}_test.go`);
  else for (const kind of ['test', 'spec']) for (const e of ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs']) out.add(`${stem}.${kind}.${e}`);
  return out;
}

function relativeToRoots(path: string, roots: string[]): string | undefined {
  for (const r of roots) if (r === '.' || path.startsWith(`${r}/`)) return r === '.' ? path : path.slice(r.length + 1);
  return undefined;
}

function roleOf(path: string, mod: ModuleRecord | undefined, manifests: ManifestRecord[], rules: PathRules): PathExplanation['role'] {
  if (ignoredDirOf(path)) return 'ignored';
  if (rules.isGenerated(path)) return 'generated';
  if (manifests.some((m) => m.path === path)) return 'manifest';
  if (rules.isTest(path) || mod?.testRoots.some((r) => r !== '.' && !mod.sourceRoots.includes(r) && path.startsWith(`${r}/`))) return 'test';
  if (mod?.resourceRoots.some((r) => path.startsWith(`${r}/`))) return 'resource';
  if (/\.(ya?ml|properties|toml|ini|conf)$/.test(path)) return 'config';
  if (/\.(md|rst|adoc|txt)$/.test(path)) return 'docs';
  if (mod?.sourceRoots.some((r) => r === '.' || path.startsWith(`${r}/`))) return 'source';
  return 'other';
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
