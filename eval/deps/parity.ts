import { textTable } from '../text-table.js';
/**
 * Dependency parity: the repository map's manifest reader held against Renovate's extraction
 * (`renovate --platform=local --dry-run=extract`). Pure: it reads a Renovate JSON log's
 * `Extracted dependencies` record and the map's manifests, and counts. `npm run eval:deps` runs it.
 */

/** One dependency as Renovate's extraction logs it (the fields the comparison reads). */
export interface RenovateDep {
  depName?: string;
  packageName?: string;
  currentValue?: string;
  depType?: string;
  skipReason?: string;
  datasource?: string;
}

export interface RenovatePackageFile {
  packageFile: string;
  deps: RenovateDep[];
}

/** Renovate's `packageFiles`: package files by manager. */
export type RenovateExtraction = Record<string, RenovatePackageFile[]>;

/** The part of a map manifest the comparison reads (a `ManifestRecord` fits). */
export interface MapManifest {
  path: string;
  kind: string;
  parseError?: string;
  dependencies: ReadonlyArray<{
    name: string;
    version?: string;
    resolvedVersion?: string;
    scope?: string;
    kind: string;
    target?: string;
    /** A catalog entry's alias as written (`androidx-compose-material3`). */
    alias?: string;
    versionAt?: { path: string; line: number };
  }>;
}
type MapDep = MapManifest['dependencies'][number];

/** Renovate managers draftsman claims, with the manifest kinds that hold their dependencies. */
export const CLAIMED_MANAGERS: Readonly<Record<string, readonly string[]>> = {
  npm: ['package.json'],
  maven: ['maven'],
  gradle: ['gradle-build', 'gradle-settings', 'gradle-script', 'gradle-catalog', 'gradle-properties'],
  gomod: ['go.mod'],
  pep621: ['pyproject'],
  poetry: ['pyproject'],
  'setup-cfg': ['setup-cfg'],
  pip_setup: ['setup-py'],
  pip_requirements: ['requirements'],
  cargo: ['cargo'],
};

/** The goal printed beside each manager's recall. */
export const RECALL_GOAL = 0.98;

/** A class of Renovate dependencies draftsman does not claim: left out of recall, and always counted in the report. */
export interface Exclusion {
  id: string;
  manager: string;
  reason: string;
  applies(dep: RenovateDep, packageFile: string): boolean;
}

const depTypeIn =
  (...types: string[]) =>
  (dep: RenovateDep): boolean =>
    types.includes(dep.depType ?? '');

export const EXCLUSIONS: readonly Exclusion[] = [
  { id: 'npm-engines', manager: 'npm', reason: 'engines (runtime constraints, not dependencies)', applies: depTypeIn('engines') },
  { id: 'npm-package-manager', manager: 'npm', reason: 'packageManager field', applies: depTypeIn('packageManager') },
  { id: 'npm-volta', manager: 'npm', reason: 'volta tool pins', applies: depTypeIn('volta') },
  {
    id: 'npm-overrides',
    manager: 'npm',
    reason: 'overrides / resolutions / pnpm.overrides (pins of transitive dependencies)',
    applies: depTypeIn('overrides', 'resolutions', 'pnpm.overrides'),
  },
  {
    id: 'npm-pnpm-catalog',
    manager: 'npm',
    reason: 'pnpm-workspace.yaml catalogs (the pnpm-workspace kind holds members only)',
    applies: (dep, file) => /(^|\/)pnpm-workspace\.yaml$/.test(file) || (dep.depType ?? '').startsWith('pnpm.catalog'),
  },
  { id: 'gomod-golang', manager: 'gomod', reason: 'go directive (language version)', applies: depTypeIn('golang') },
  { id: 'gomod-toolchain', manager: 'gomod', reason: 'toolchain directive', applies: depTypeIn('toolchain') },
  { id: 'pep621-python', manager: 'pep621', reason: 'requires-python (interpreter constraint)', applies: depTypeIn('requires-python') },
  {
    id: 'poetry-python',
    manager: 'poetry',
    reason: 'python entry of Poetry dependencies (interpreter constraint)',
    applies: (dep) => dep.depName === 'python',
  },
  {
    id: 'maven-non-pom',
    manager: 'maven',
    reason: '.mvn/extensions.xml and settings.xml (no manifest kind reads them)',
    applies: (_dep, file) => /(^|\/)\.mvn\/extensions\.xml$|(^|\/)settings\.xml$/.test(file),
  },
  {
    id: 'gradle-kotlin-source',
    manager: 'gradle',
    reason: 'Kotlin sources (buildSrc/**/*.kt) and versions.props/versions.lock (no manifest kind reads them)',
    applies: (_dep, file) => /\.kt$|(^|\/)versions\.(props|lock)$/.test(file),
  },
];

/** Renovate's extraction out of its JSON log (`LOG_FORMAT=json`): the `Extracted dependencies` record. */
export function extractionFromLog(log: string): RenovateExtraction {
  for (const line of log.split('\n')) {
    if (!line.includes('"Extracted dependencies"')) continue;
    const record = JSON.parse(line) as { msg?: string; packageFiles?: RenovateExtraction };
    if (record.msg === 'Extracted dependencies' && record.packageFiles) return record.packageFiles;
  }
  throw new Error('the Renovate log has no "Extracted dependencies" record (was it run with --dry-run=extract and LOG_FORMAT=json?)');
}

const PYTHON_MANAGERS = new Set(['pep621', 'poetry', 'setup-cfg', 'pip_setup', 'pip_requirements']);

/** PEP 503: lower case, runs of `-`, `_`, `.` as one `-`; extras (`[security]`) dropped. */
export function pep503(name: string): string {
  return name
    .replace(/\[[^\]]*\]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-_.]+/g, '-');
}

/** A dependency name in the form both sides are compared in, per manager. */
export function normaliseName(manager: string, name: string): string {
  if (PYTHON_MANAGERS.has(manager)) return pep503(name);
  // Maven and Gradle: `group:artifact`, whitespace around the colon is a writing accident.
  if (manager === 'maven' || manager === 'gradle') return name.replace(/\s*:\s*/g, ':').trim();
  // go.mod local replace targets (`../`, `./x/`): Renovate names them by the path as written.
  if (manager === 'gomod' && name.startsWith('.')) return name.trim().replace(/(.)\/+$/, '$1');
  return name.trim();
}

export interface Miss {
  manager: string;
  packageFile: string;
  name: string;
  depType?: string;
  currentValue?: string;
  /** Why it did not match: no map manifest at that path, the manifest did not parse, or no dependency of that name. */
  reason: 'no-manifest' | 'parse-error' | 'name-absent';
}

export interface VersionDisagreement {
  manager: string;
  packageFile: string;
  name: string;
  renovate?: string;
  draftsman?: string;
  klass: string;
}

export interface Extra {
  path: string;
  kind: string;
  name: string;
  depKind: string;
  scope?: string;
  /**
   * `unextracted-file`: Renovate extracted nothing from this file; `second-declaration`: the name
   * matched elsewhere in the repository (a catalog entry used in a script); `no-version`: Renovate
   * leaves out what has no version to bump (managed by a BOM or parent); `absent`: none of these.
   */
  reason: 'unextracted-file' | 'second-declaration' | 'no-version' | 'absent';
}

export interface ManagerCount {
  renovate: number;
  excluded: number;
  counted: number;
  matched: number;
}

export interface RepoParity {
  repo: string;
  commit: string;
  managers: Record<string, ManagerCount>;
  exclusions: Record<string, number>;
  unclaimed: Record<string, { files: number; deps: number }>;
  misses: Miss[];
  versions: VersionDisagreement[];
  extras: Extra[];
  /** Package files Renovate read that the map leaves out on purpose (under a test-fixture or ignored directory). */
  leftOutFiles: string[];
}

export interface CompareOptions {
  /** Whether the map leaves a path out on purpose (the census counts manifests under fixture and ignored directories without reading them). */
  leftOut?: (path: string) => boolean;
}

/** The exclusion id of package files the map leaves out on purpose. */
export const LEFT_OUT_BY_MAP = 'map-left-out-path';

interface Candidate {
  dep: MapDep;
  manifest: MapManifest;
}

function renovateNames(manager: string, dep: RenovateDep): string[] {
  const names = [dep.depName, dep.packageName].filter((n): n is string => typeof n === 'string' && n.length > 0);
  return [...new Set(names.map((n) => normaliseName(manager, n)))];
}

/** The map's dependencies a Renovate package file can match: declared in that file, or with their version written there. */
function candidatesFor(manager: string, packageFile: string, manifests: readonly MapManifest[]): Candidate[] {
  const kinds = CLAIMED_MANAGERS[manager] ?? [];
  const out: Candidate[] = [];
  for (const manifest of manifests) {
    if (!kinds.includes(manifest.kind)) continue;
    for (const dep of manifest.dependencies) if (manifest.path === packageFile || dep.versionAt?.path === packageFile) out.push({ dep, manifest });
  }
  // A dependency declared in the package file itself pairs before one whose version merely lives there.
  return [...out.filter((c) => c.manifest.path === packageFile), ...out.filter((c) => c.manifest.path !== packageFile)];
}

/**
 * The names a map dependency answers to. A go.mod local replace is named by the module it replaces
 * in the map and by its target path in Renovate: it pairs by the target, and never with a require.
 */
function mapKeys(manager: string, dep: MapDep & { target?: string }): string[] {
  if (manager === 'gomod' && dep.kind === 'path') return dep.target ? [normaliseName(manager, dep.target)] : [];
  // Renovate names a catalog entry it cannot look up (no version: a BOM manages it) by its alias.
  if (manager === 'gradle' && dep.alias) return [normaliseName(manager, dep.name), normaliseName(manager, dep.alias)];
  return [normaliseName(manager, dep.name)];
}

const sameType = (r: RenovateDep, d: MapDep): boolean => (r.depType ?? '').toLowerCase() === (d.scope ?? '').toLowerCase();

/**
 * Version text compared without whitespace and quotes (`>= 1.0` and `>=1.0` agree), and for
 * Python without PEP 508's optional parentheses (`tomli (>=2,<3)`); Maven ranges keep theirs.
 */
function squash(v: string | undefined, manager: string): string | undefined {
  if (v === undefined) return undefined;
  const bare = v.replace(/[\s'"]/g, '');
  return PYTHON_MANAGERS.has(manager) ? bare.replace(/[()]/g, '') : bare;
}

/**
 * Why the map's version text differs from Renovate's `currentValue` in each class seen on the
 * repositories measured: what the map keeps on purpose. A class not listed here is printed as
 * not yet explained.
 */
export const VERSION_CLASS_EXPLANATIONS: Readonly<Record<string, string>> = {
  'npm-alias-prefix-kept':
    'package.json writes `"react-fake-client": "npm:react@^19.2.8"`; the map keeps the spec as written (the bump recipe leaves an alias alone, since its key is not the package), Renovate splits out the package and its range',
  'map-has-none':
    'a direct reference (`poetry-core @ git+https://…`) or a second declaration without a version in the same file: the map records no version where none is written; Renovate reports the URL as the value or pairs the other declaration',
  'renovate-unresolved-reference':
    'Renovate leaves `${project.parent.version}` (and other project properties) as written; the map resolves it to the version the parent pom declares',
  'renovate-has-none':
    'the same name declared twice in one file (an extra and a dependency group): Renovate reports one declaration without its range, the map reports each with its own',
};

export function versionClass(renovate: string | undefined, draftsman: string | undefined, manager = ''): string | undefined {
  const r = squash(renovate, manager);
  const d = squash(draftsman, manager);
  if (r === d || (!r && !d)) return undefined;
  if (!r) return 'renovate-has-none';
  if (!d) return 'map-has-none';
  if (/^npm:/.test(d) && !/^npm:/.test(r)) return 'npm-alias-prefix-kept';
  if (/\$\{|\$[A-Za-z_]|^libs\.|^versions\./.test(d)) return 'map-unresolved-reference';
  if (/\$\{|\$[A-Za-z_]/.test(r)) return 'renovate-unresolved-reference';
  if (d.includes(r) || r.includes(d)) return 'one-contains-the-other';
  return 'different';
}

function classifyMiss(packageFile: string, manifests: readonly MapManifest[], kinds: readonly string[]): Miss['reason'] {
  const at = manifests.find((m) => m.path === packageFile && kinds.includes(m.kind));
  if (!at) return 'no-manifest';
  return at.parseError ? 'parse-error' : 'name-absent';
}

interface ManagerResult {
  count: ManagerCount;
  misses: Miss[];
  versions: VersionDisagreement[];
  used: Set<MapDep>;
  names: Set<string>;
}

function compareManager(
  manager: string,
  files: readonly RenovatePackageFile[],
  manifests: readonly MapManifest[],
  exclusions: Record<string, number>,
): ManagerResult {
  const res: ManagerResult = { count: { renovate: 0, excluded: 0, counted: 0, matched: 0 }, misses: [], versions: [], used: new Set(), names: new Set() };
  const kinds = CLAIMED_MANAGERS[manager];
  for (const file of files) {
    const candidates = candidatesFor(manager, file.packageFile, manifests);
    const pending: RenovateDep[] = [];
    for (const dep of file.deps) {
      res.count.renovate++;
      const rule = EXCLUSIONS.find((e) => e.manager === manager && e.applies(dep, file.packageFile));
      if (rule) {
        res.count.excluded++;
        exclusions[rule.id] = (exclusions[rule.id] ?? 0) + 1;
        continue;
      }
      res.count.counted++;
      pending.push(dep);
    }
    // Two passes: a name declared twice in one file (npm dependencies and peerDependencies) pairs by type first.
    const unmatched = matchPass(manager, file.packageFile, pending, candidates, res, true);
    for (const dep of matchPass(manager, file.packageFile, unmatched, candidates, res, false)) {
      res.misses.push({
        manager,
        packageFile: file.packageFile,
        name: dep.depName ?? dep.packageName ?? '(unnamed)',
        depType: dep.depType,
        currentValue: dep.currentValue,
        reason: classifyMiss(file.packageFile, manifests, kinds),
      });
    }
  }
  return res;
}

function matchPass(
  manager: string,
  packageFile: string,
  deps: readonly RenovateDep[],
  candidates: readonly Candidate[],
  res: ManagerResult,
  typed: boolean,
): RenovateDep[] {
  const left: RenovateDep[] = [];
  for (const dep of deps) {
    const names = renovateNames(manager, dep);
    const hit = candidates.find((c) => !res.used.has(c.dep) && mapKeys(manager, c.dep).some((k) => names.includes(k)) && (!typed || sameType(dep, c.dep)));
    if (!hit) {
      left.push(dep);
      continue;
    }
    res.used.add(hit.dep);
    for (const n of names) res.names.add(n);
    res.count.matched++;
    const ours = hit.dep.resolvedVersion ?? hit.dep.version;
    const klass = versionClass(dep.currentValue, ours, manager);
    if (klass) res.versions.push({ manager, packageFile, name: dep.depName ?? hit.dep.name, renovate: dep.currentValue, draftsman: ours, klass });
  }
  return left;
}

/** Compares one repository's Renovate extraction with the map's manifests. */
export function compareRepo(
  repo: string,
  commit: string,
  extraction: RenovateExtraction,
  manifests: readonly MapManifest[],
  options: CompareOptions = {},
): RepoParity {
  const out: RepoParity = { repo, commit, managers: {}, exclusions: {}, unclaimed: {}, misses: [], versions: [], extras: [], leftOutFiles: [] };
  const usedByKind = new Map<string, { used: Set<MapDep>; names: Set<string>; files: Set<string> }>();
  for (const [manager, files] of Object.entries(extraction)) {
    if (!CLAIMED_MANAGERS[manager]) {
      out.unclaimed[manager] = { files: files.length, deps: files.reduce((n, f) => n + f.deps.length, 0) };
      continue;
    }
    const read = files.filter((f) => !options.leftOut?.(f.packageFile));
    const left = files.filter((f) => !read.includes(f));
    const leftDeps = left.reduce((n, f) => n + f.deps.length, 0);
    out.leftOutFiles.push(...left.map((f) => f.packageFile));
    if (leftDeps) out.exclusions[LEFT_OUT_BY_MAP] = (out.exclusions[LEFT_OUT_BY_MAP] ?? 0) + leftDeps;
    const r = compareManager(manager, read, manifests, out.exclusions);
    r.count.renovate += leftDeps;
    r.count.excluded += leftDeps;
    out.managers[manager] = r.count;
    out.misses.push(...r.misses);
    out.versions.push(...r.versions);
    for (const kind of CLAIMED_MANAGERS[manager]) {
      const slot = usedByKind.get(kind) ?? { used: new Set<MapDep>(), names: new Set<string>(), files: new Set<string>() };
      for (const d of r.used) slot.used.add(d);
      for (const n of r.names) slot.names.add(`${manager}\u0000${n}`);
      for (const f of files) slot.files.add(f.packageFile);
      usedByKind.set(kind, slot);
    }
  }
  out.extras = extrasOf(manifests, usedByKind);
  return out;
}

function extrasOf(manifests: readonly MapManifest[], usedByKind: Map<string, { used: Set<MapDep>; names: Set<string>; files: Set<string> }>): Extra[] {
  const extras: Extra[] = [];
  const managersOf = (kind: string): string[] => Object.keys(CLAIMED_MANAGERS).filter((m) => CLAIMED_MANAGERS[m].includes(kind));
  for (const manifest of manifests) {
    const managers = managersOf(manifest.kind);
    if (managers.length === 0) continue;
    const slot = usedByKind.get(manifest.kind);
    for (const dep of manifest.dependencies) {
      if (slot?.used.has(dep)) continue;
      const known = managers.some((m) => slot?.names.has(`${m}\u0000${normaliseName(m, dep.name)}`));
      const reason: Extra['reason'] = known
        ? 'second-declaration'
        : !slot?.files.has(manifest.path)
          ? 'unextracted-file'
          : dep.version === undefined && dep.resolvedVersion === undefined
            ? 'no-version'
            : 'absent';
      extras.push({ path: manifest.path, kind: manifest.kind, name: dep.name, depKind: dep.kind, scope: dep.scope, reason });
    }
  }
  return extras;
}

export interface ParityTotals {
  managers: Record<string, ManagerCount & { recall: number }>;
  exclusions: Record<string, number>;
  unclaimed: Record<string, { files: number; deps: number }>;
}

/** Sums over repositories; recall = matched / counted (1 when Renovate found nothing to count). */
export function totalsOf(repos: readonly RepoParity[]): ParityTotals {
  const managers: ParityTotals['managers'] = {};
  const exclusions: Record<string, number> = {};
  const unclaimed: ParityTotals['unclaimed'] = {};
  for (const r of repos) {
    for (const [m, c] of Object.entries(r.managers)) {
      const t = (managers[m] ??= { renovate: 0, excluded: 0, counted: 0, matched: 0, recall: 1 });
      t.renovate += c.renovate;
      t.excluded += c.excluded;
      t.counted += c.counted;
      t.matched += c.matched;
    }
    for (const [id, n] of Object.entries(r.exclusions)) exclusions[id] = (exclusions[id] ?? 0) + n;
    for (const [m, u] of Object.entries(r.unclaimed)) {
      const t = (unclaimed[m] ??= { files: 0, deps: 0 });
      t.files += u.files;
      t.deps += u.deps;
    }
  }
  for (const t of Object.values(managers)) t.recall = t.counted === 0 ? 1 : t.matched / t.counted;
  return { managers, exclusions, unclaimed };
}

const table = (head: string[], rows: string[][]): string => textTable(head, rows, (i) => i > 0);

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function groupCount<T>(items: readonly T[], key: (t: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const it of items) groups.set(key(it), [...(groups.get(key(it)) ?? []), it]);
  return [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

/** The parity report: the per-manager table, exclusions, misses, version disagreements and extras by class, with examples. */
export function formatParity(repos: readonly RepoParity[], options: { examples?: number } = {}): string {
  const n = options.examples ?? 4;
  const totals = totalsOf(repos);
  const rows = Object.entries(totals.managers)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([m, t]) => [
      m,
      String(t.renovate),
      String(t.excluded),
      String(t.counted),
      String(t.matched),
      pct(t.recall),
      t.recall >= RECALL_GOAL ? 'met' : `below ${pct(RECALL_GOAL)}`,
    ]);
  const out = [
    `dependency parity with Renovate over ${repos.length} repositories (${repos.map((r) => `${r.repo}@${r.commit.slice(0, 8)}`).join(', ')})`,
    table(['manager', 'renovate', 'excluded', 'counted', 'matched', 'recall', 'goal ≥98%'], rows),
  ];
  const perRepo = repos.flatMap((r) =>
    Object.entries(r.managers).map(([m, c]) => [r.repo, m, String(c.counted), String(c.matched), pct(c.counted ? c.matched / c.counted : 1)]),
  );
  out.push('', 'per repository:', table(['repository', 'manager', 'counted', 'matched', 'recall'], perRepo));
  out.push('', 'excluded from recall (not claimed by the map):');
  for (const e of EXCLUSIONS) out.push(`  ${e.manager} ${e.id}: ${totals.exclusions[e.id] ?? 0} — ${e.reason}`);
  const leftOut = repos.flatMap((r) => r.leftOutFiles.map((f) => `${r.repo}:${f}`));
  out.push(
    `  any ${LEFT_OUT_BY_MAP}: ${totals.exclusions[LEFT_OUT_BY_MAP] ?? 0} in ${leftOut.length} files — under test-fixture or ignored directories, which the map counts but does not read${leftOut.length ? ` (${leftOut.slice(0, n).join('; ')})` : ''}`,
  );
  const unclaimed = Object.entries(totals.unclaimed).sort((a, b) => b[1].deps - a[1].deps);
  out.push(`other Renovate managers (not claimed): ${unclaimed.map(([m, u]) => `${m} ${u.deps} deps in ${u.files} files`).join(', ') || 'none'}`);
  const misses = repos.flatMap((r) => r.misses.map((m) => ({ ...m, repo: r.repo })));
  out.push('', `misses (${misses.length}) by manager, reason and Renovate dep type:`);
  for (const [key, group] of groupCount(misses, (m) => `${m.manager} ${m.reason} depType=${m.depType ?? '-'}`))
    out.push(
      `  ${group.length}  ${key}: ${group
        .slice(0, n)
        .map((m) => `${m.repo}:${m.packageFile} ${m.name}`)
        .join('; ')}`,
    );
  const versions = repos.flatMap((r) => r.versions.map((v) => ({ ...v, repo: r.repo })));
  out.push('', `version disagreements (${versions.length}) by manager and class (Renovate currentValue vs map resolvedVersion ?? version):`);
  for (const [key, group] of groupCount(versions, (v) => `${v.manager} ${v.klass}`))
    out.push(
      `  ${group.length}  ${key}: ${group
        .slice(0, n)
        .map((v) => `${v.repo}:${v.packageFile} ${v.name} ${v.renovate ?? '∅'} vs ${v.draftsman ?? '∅'}`)
        .join('; ')}`,
    );
  const classes = new Set(versions.map((v) => v.klass));
  const explained = Object.entries(VERSION_CLASS_EXPLANATIONS).filter(([klass]) => classes.has(klass));
  if (explained.length) out.push('why each class differs:', ...explained.map(([klass, why]) => `  ${klass}: ${why}`));
  const unexplained = [...classes].filter((klass) => !(klass in VERSION_CLASS_EXPLANATIONS));
  if (unexplained.length) out.push(`  not yet explained: ${unexplained.join(', ')}`);
  const extras = repos.flatMap((r) => r.extras.map((e) => ({ ...e, repo: r.repo })));
  out.push('', `extras (${extras.length}): map dependencies Renovate does not report, by kind, reason and dependency kind:`);
  for (const [key, group] of groupCount(extras, (e) => `${e.kind} ${e.reason} ${e.depKind}`))
    out.push(
      `  ${group.length}  ${key}: ${group
        .slice(0, n)
        .map((e) => `${e.repo}:${e.path} ${e.name}${e.scope ? ` (${e.scope})` : ''}`)
        .join('; ')}`,
    );
  return `${out.join('\n')}\n`;
}
