import { compileGlobs } from '../paths/glob.js';
import type { PathRules } from '../paths/path-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { ownersFor } from './codeowners.js';
import { moduleForPath } from './detect-modules.js';
import { FileContents } from './file-contents.js';
import { resolveFileImports } from './file-imports.js';
import { baseName, dirName, extensionOf, ignoredDirOf } from '../paths/path-classes.js';
import type { ManifestRecord, ModuleRecord, NavigationHint, RepoMap } from './repo-map-schema.js';
import type { RiskLevel } from '../risk/risk-schema.js';
import { createRiskClassifier, type RiskClassifier } from '../risk/risk-rules.js';
import type { SymbolIndex } from './symbol-index.js';
import { escapeRegExp } from '../util/escape-regexp.js';

export interface NavigationResult {
  path: string;
  score: number;
  reason: string;
  evidence: string[];
}

export interface NavigationResponse<Q> {
  query: Q;
  results: NavigationResult[];
  /** Set when a bound (files or bytes read) stopped the query before it looked everywhere. */
  truncated?: string;
}

/** What a content query may do: bytes of text read, and files that match (parsed next). */
export const NAVIGATION_READ_LIMITS = { bytes: 32 * 1024 * 1024, matches: 200 } as const;

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
    private readonly contents: FileContents | undefined,
    rules: PathRules,
  ) {
    this.rules = rules;
    this.risk = createRiskClassifier(rules);
    this.text = contents ?? new FileContents(workspace);
  }

  private readonly text: FileContents;

  findFilesByPattern(pattern: string, limit = 50): NavigationResponse<{ type: 'find_files_by_pattern'; pattern: string; limit: number }> {
    // A bare name (`*.java`, `pom.xml`) is looked for at any depth.
    const match = compileGlobs([pattern.includes('/') ? pattern : `**/${pattern}`]);
    const results: NavigationResult[] = [];
    for (const path of this.workspace.paths()) {
      if (results.length >= limit) break;
      if (!match(path)) continue;
      const ignored = ignoredDirOf(path);
      results.push({
        path,
        score: ignored ? 0.3 : 1,
        reason: ignored ? `matches ${pattern} (inside ${ignored.reason})` : `matches ${pattern}`,
        evidence: ['glob'],
      });
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
    const candidates = this.workspace
      .paths()
      .filter((p) => p !== path && this.rules.isTest(p) && !ignoredDirOf(p) && (!mod || moduleForPath(this.map.modules, p)?.id === mod.id));
    for (const p of candidates) {
      if (!names.has(baseName(p))) continue;
      const samePackage = rel !== undefined && mod !== undefined && dirName(relativeToRoots(p, mod.testRoots) ?? '') === dirName(rel);
      const sameDir = dirName(p) === dirName(path);
      const evidence = ['test_name_match', ...(samePackage ? ['same_package'] : []), ...(sameDir ? ['same_directory'] : [])];
      scored.set(p, {
        path: p,
        score: samePackage || sameDir ? 0.91 : 0.75,
        reason: samePackage ? 'name match and same package' : sameDir ? 'name match in the same directory' : 'test name matches the file',
        evidence,
      });
    }
    if (this.contents && stem) {
      const word = new RegExp(`\\b${escapeRegExp(stem)}\\b`);
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
      for (const m of here)
        results.push({
          path: m.path,
          score: round(1 - 0.1 * results.length),
          reason: `${m.kind} of ${dir || 'the repository root'}${m.name ? ` (${m.name})` : ''}`,
          evidence: [m.evidenceRef],
        });
      if (dir === '') break;
      dir = dirName(dir);
    }
    return { query: { type: 'find_manifest_for_path', path }, results };
  }

  findModuleForPath(path: string): NavigationResponse<{ type: 'find_module_for_path'; path: string }> & { module?: ModuleRecord } {
    const mod = moduleForPath(this.map.modules, path);
    const results = mod
      ? [
          {
            path: mod.path,
            score: 1,
            reason: `${mod.buildSystem} module ${mod.name ?? mod.id} owns the path (longest module prefix)`,
            evidence: mod.evidenceRefs,
          },
        ]
      : [];
    return { query: { type: 'find_module_for_path', path }, results, module: mod };
  }

  findRiskyPaths(changedPaths: string[]): NavigationResponse<{ type: 'find_risky_paths'; changedPaths: string[] }> {
    const score: Record<RiskLevel, number> = { low: 0.1, medium: 0.5, high: 0.8, blocked: 1 };
    const results: NavigationResult[] = [];
    for (const path of [...changedPaths].sort()) {
      const ignored = ignoredDirOf(path);
      const r =
        ignored && (ignored.reason === 'build output' || ignored.reason.includes('dependencies'))
          ? { level: 'blocked' as const, reason: ignored.reason, ruleId: 'default-ignored-dir' }
          : this.risk.classify(path);
      if (!r || r.level === 'low') continue;
      results.push({ path, score: score[r.level], reason: `${r.level}: ${r.reason}`, evidence: [r.ruleId] });
    }
    results.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    return { query: { type: 'find_risky_paths', changedPaths }, results };
  }

  /**
   * Where `name` is defined (`Type.member` narrows to members of `Type`): files whose text names
   * it are tagged, in a bounded set, files named after it first; definitions rank above the
   * references that follow them. Evidence is `path:line` of each tag.
   */
  async findDefinitions(name: string, symbols: SymbolIndex, limit = 20): Promise<NavigationResponse<{ type: 'find_definition'; name: string; limit: number }>> {
    const query = { type: 'find_definition' as const, name, limit };
    const dot = name.lastIndexOf('.');
    const [scope, member] = dot > 0 ? [name.slice(0, dot).split('.').pop()!, name.slice(dot + 1)] : [undefined, name];
    if (!/^[\w$]+$/.test(member)) return { query, results: [] };
    // `member` is word characters and `$` only, so `$` is the one character to escape.
    const word = new RegExp(`(?<![\\w$])${member.replace(/\$/g, '\\$')}(?![\\w$])`);
    const lower = member.toLowerCase();
    const candidates = this.workspace
      .paths()
      .filter((p) => !ignoredDirOf(p) && (symbols.supports(p) || this.rules.classify(p) === 'source'))
      .sort((a, b) => Number(stemOf(b).toLowerCase() === lower) - Number(stemOf(a).toLowerCase() === lower));
    const { files, truncated } = await this.readBounded(candidates, (text) => word.test(text));
    const definitions: NavigationResult[] = [];
    const references: NavigationResult[] = [];
    // Languages without a parser: a definition keyword before the name, ranked below parsed ones.
    const declared = new RegExp(
      `\\b(?:def|function|func|fn|class|struct|interface|enum|trait|type|module|sub|object|record)\\s+(?:[\\w$]+\\.)?${member.replace(/\$/g, '\\$')}(?![\\w$])`,
    );
    for (const path of files.filter((p) => !symbols.supports(p))) {
      const lines = ((await this.text.text(path)) ?? '').split('\n');
      lines.forEach((line, i) => {
        if (!declared.test(line)) return;
        definitions.push({
          path,
          score: this.rules.isTest(path) ? 0.6 : 0.7,
          reason: `looks like a definition at line ${i + 1} (no parser for this language): ${line.trim().slice(0, 200)}`,
          evidence: [`${path}:${i + 1}`, 'text_pattern:definition'],
        });
      });
    }
    for (const { path, tag } of await symbols.definitions(
      member,
      files.filter((p) => symbols.supports(p)),
    )) {
      if (scope && tag.scope !== scope) continue;
      const test = this.rules.isTest(path);
      definitions.push({
        path,
        score: test ? 0.8 : 1,
        reason: `${tag.symbolKind ?? 'symbol'} ${tag.scope ? `${tag.scope}.` : ''}${tag.name} defined at line ${tag.line}: ${tag.snippet}`,
        evidence: [`${path}:${tag.line}`, 'symbol_index:definition'],
      });
    }
    if (definitions.length < limit) {
      for (const { path, tag } of await symbols.references(
        member,
        files.filter((p) => symbols.supports(p)),
      )) {
        if (scope && tag.kind !== 'import' && tag.receiver !== undefined && tag.receiver !== scope) continue;
        references.push({
          path,
          score: 0.4,
          reason: `${tag.kind} at line ${tag.line}: ${tag.snippet}`,
          evidence: [`${path}:${tag.line}`, `symbol_index:${tag.kind}`],
        });
      }
    }
    const results = [...definitions.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)), ...references].slice(0, limit);
    return { query, results, ...(truncated ? { truncated } : {}) };
  }

  /**
   * Files that import `path` (relative JS/TS specifiers, Java/Kotlin classes, Python modules, Go
   * packages), resolved as the map resolves imports; files that do not mention the module's
   * name are not parsed. Evidence is the importing line.
   */
  async findImporters(path: string, limit = 20): Promise<NavigationResponse<{ type: 'find_importers'; path: string; limit: number }>> {
    const query = { type: 'find_importers' as const, path, limit };
    const family = importFamily(path);
    if (!family || this.workspace.entry(path) === undefined) return { query, results: [] };
    const stem = stemOf(path);
    const needle = family === 'go' || stem === 'index' || stem === '__init__' ? baseName(dirName(path)) : stem;
    const all = this.workspace.paths();
    const files = new Set(all);
    const candidates = all.filter((p) => p !== path && importFamily(p) === family && !ignoredDirOf(p));
    const { files: mentioning, truncated } = await this.readBounded(candidates, (text) => needle !== '' && text.includes(needle));
    const results: NavigationResult[] = [];
    for (const p of mentioning) {
      if (results.length >= limit) break;
      const text = (await this.text.text(p)) ?? '';
      if (!resolveFileImports(p, text, files, this.map.modules).includes(path)) continue;
      const lines = text.split('\n');
      const at = lines.findIndex((l) => l.includes(needle) && /\b(import|from|require|export)\b/.test(l));
      const line = at >= 0 ? at + 1 : 1;
      results.push({
        path: p,
        score: 1,
        reason: `imports it at line ${line}: ${(lines[line - 1] ?? '').trim().slice(0, 200)}`,
        evidence: [`${p}:${line}`, 'file_imports'],
      });
    }
    return { query, results, ...(truncated ? { truncated } : {}) };
  }

  /** Owners of a path by CODEOWNERS (the last matching rule wins); evidence is the rule's file and line. */
  findOwners(path: string): NavigationResponse<{ type: 'find_owners'; path: string }> & { owners: string[] } {
    const { owners, rule } = ownersFor(this.map.ownership.rules, path);
    const results = rule
      ? [
          {
            path,
            score: 1,
            reason: owners.length > 0 ? `owned by ${owners.join(' ')} (rule ${rule.pattern}, the last match)` : `explicitly unowned (rule ${rule.pattern})`,
            evidence: [`${rule.source}:${rule.line}`],
          },
        ]
      : [];
    return { query: { type: 'find_owners', path }, results, owners };
  }

  /**
   * The candidates whose text passes `keep`, in order: reading stops at the byte bound, and
   * keeping stops at the match bound (what is kept is parsed next, the costly part).
   */
  private async readBounded(candidates: readonly string[], keep: (text: string) => boolean): Promise<{ files: string[]; truncated?: string }> {
    const files: string[] = [];
    let bytes = 0;
    for (let i = 0; i < candidates.length; i++) {
      if (bytes >= NAVIGATION_READ_LIMITS.bytes)
        return { files, truncated: `stopped after reading ${i} of ${candidates.length} files (${bytes} bytes); narrow the query` };
      if (files.length >= NAVIGATION_READ_LIMITS.matches)
        return { files, truncated: `more than ${NAVIGATION_READ_LIMITS.matches} files mention it; only the first were examined` };
      const text = await this.text.text(candidates[i]);
      if (text === undefined) continue;
      bytes += text.length;
      if (keep(text)) files.push(candidates[i]);
    }
    return { files };
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

/** Languages whose imports `resolveFileImports` resolves, grouped by what may import what. */
function importFamily(path: string): 'js' | 'jvm' | 'py' | 'go' | undefined {
  const ext = extensionOf(path);
  if (/^[cm]?[jt]sx?$/.test(ext)) return 'js';
  if (ext === 'java' || ext === 'kt') return 'jvm';
  if (ext === 'py') return 'py';
  if (ext === 'go') return 'go';
  return undefined;
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
  if (JAVA_LIKE.has(ext)) for (const s of ['Test', 'Tests', 'IT', 'Spec']) (out.add(`${stem}${s}.${ext}`), out.add(`Test${stem}.${ext}`));
  else if (ext === 'py') (out.add(`test_${stem}.py`), out.add(`${stem}_test.py`));
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
