import { lockfileKindOf, lockfilesForManifest } from '../policy/lockfiles.js';
import { dirName, isVendoredOrBuildOutput } from '../paths/path-classes.js';
import type { BuildSystem, ManifestRecord, ModuleEdge, ModuleRecord } from './repo-map-schema.js';

/** What module detection needs to know about the tree, computed once. */
export interface TreeIndex {
  files: ReadonlySet<string>;
  /** Every directory that holds at least one file (at any depth), without the root. */
  dirs: ReadonlySet<string>;
}

export function buildTreeIndex(paths: readonly string[]): TreeIndex {
  const dirs = new Set<string>();
  for (const p of paths) {
    let d = dirName(p);
    while (d && !dirs.has(d)) {
      dirs.add(d);
      d = dirName(d);
    }
  }
  return { files: new Set(paths), dirs };
}

const join = (dir: string, rel: string): string => (dir === '.' || dir === '' ? rel : `${dir}/${rel}`);
const moduleDir = (manifestPath: string): string => dirName(manifestPath) || '.';

/** Normalise `a/./b/../c` (relative to `from`) to a repository path; undefined when it leaves the root. */
export function resolveRelative(from: string, rel: string): string | undefined {
  const parts = from === '.' || from === '' ? [] : from.split('/');
  for (const seg of rel.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length === 0 ? '.' : parts.join('/');
}

/** Which JS package manager the repository uses, from its root files. */
export function jsPackageManager(tree: TreeIndex, rootPackage?: ManifestRecord): 'pnpm' | 'yarn' | 'npm' {
  const pm = rootPackage?.facts?.packageManager ?? '';
  // The tool behind each root lockfile is the first word of its refresh command.
  const lockedBy = lockfilesForManifest('package.json')
    .filter((name) => tree.files.has(name))
    .map((name) => lockfileKindOf(name)!.refresh.split(' ')[0]);
  if (lockedBy.includes('pnpm') || tree.files.has('pnpm-workspace.yaml') || pm.startsWith('pnpm')) return 'pnpm';
  if (lockedBy.includes('yarn') || pm.startsWith('yarn')) return 'yarn';
  return 'npm';
}

const PRIORITY: BuildSystem[] = ['maven', 'gradle', 'go', 'cargo', 'pnpm', 'yarn', 'npm', 'python', 'dotnet', 'composer', 'bundler'];

function buildSystemFor(m: ManifestRecord, jsPm: 'pnpm' | 'yarn' | 'npm'): BuildSystem | undefined {
  switch (m.kind) {
    case 'maven':
      return 'maven';
    case 'gradle-build':
      return 'gradle';
    case 'go.mod':
      return 'go';
    case 'cargo':
      return m.name || (m.members ?? []).length === 0 ? 'cargo' : undefined;
    case 'package.json':
      return jsPm;
    case 'pyproject':
    case 'requirements':
    case 'setup-py':
    case 'setup-cfg':
      return 'python';
    case 'csproj':
      return 'dotnet';
    case 'composer':
      return 'composer';
    case 'gemfile':
      return 'bundler';
    default:
      return undefined;
  }
}

function roots(tree: TreeIndex, dir: string, candidates: string[]): string[] {
  return candidates.map((c) => join(dir, c)).filter((p) => tree.dirs.has(p));
}

function conventionalRoots(tree: TreeIndex, dir: string, system: BuildSystem): Pick<ModuleRecord, 'sourceRoots' | 'testRoots' | 'resourceRoots'> {
  const self = dir === '.' ? '.' : dir;
  switch (system) {
    case 'maven':
    case 'gradle':
      return {
        sourceRoots: roots(tree, dir, ['src/main/java', 'src/main/kotlin', 'src/main/scala', 'src/main/groovy']),
        testRoots: roots(tree, dir, ['src/test/java', 'src/test/kotlin', 'src/test/scala', 'src/test/groovy', 'src/it/java', 'src/integrationTest/java']),
        resourceRoots: roots(tree, dir, ['src/main/resources', 'src/test/resources']),
      };
    case 'go':
      return { sourceRoots: [self], testRoots: [self], resourceRoots: [] };
    case 'cargo':
      return { sourceRoots: roots(tree, dir, ['src']), testRoots: roots(tree, dir, ['tests', 'benches']), resourceRoots: [] };
    case 'npm':
    case 'pnpm':
    case 'yarn': {
      const src = roots(tree, dir, ['src', 'lib']);
      const tests = roots(tree, dir, ['test', 'tests', '__tests__', 'spec']);
      return { sourceRoots: src.length ? src : [self], testRoots: tests.length ? tests : src.length ? src : [self], resourceRoots: [] };
    }
    case 'python': {
      const src = roots(tree, dir, ['src']);
      const pkgs = src.length
        ? src
        : [...tree.files]
            .filter((f) => f.endsWith('/__init__.py') && dirName(dirName(f)) === (dir === '.' ? '' : dir))
            .map((f) => dirName(f))
            .filter((d) => !/^(tests?|docs)$/.test(d.split('/').pop()!))
            .sort();
      return { sourceRoots: pkgs.length ? pkgs : [self], testRoots: roots(tree, dir, ['tests', 'test']), resourceRoots: [] };
    }
    default:
      return { sourceRoots: [self], testRoots: roots(tree, dir, ['test', 'tests']), resourceRoots: [] };
  }
}

type ModuleDraft = { system: BuildSystem; manifests: ManifestRecord[] };

/**
 * The module directories: each manifest with a build system opens (or joins) its directory's
 * module, the highest-priority system wins; manifests without a build system (Dockerfile,
 * openapi...) attach to the module of their directory when there is one.
 */
function moduleDrafts(usable: ManifestRecord[], jsPm: ReturnType<typeof jsPackageManager>): Map<string, ModuleDraft> {
  const byDir = new Map<string, ModuleDraft>();
  for (const m of usable) {
    const system = buildSystemFor(m, jsPm);
    const dir = moduleDir(m.path);
    const current = byDir.get(dir);
    if (!system) current?.manifests.push(m);
    else if (!current) byDir.set(dir, { system, manifests: [m] });
    else {
      current.manifests.push(m);
      if (PRIORITY.indexOf(system) < PRIORITY.indexOf(current.system)) current.system = system;
    }
  }
  for (const m of usable) {
    if (buildSystemFor(m, jsPm)) continue;
    const entry = byDir.get(moduleDir(m.path));
    if (entry && !entry.manifests.includes(m)) entry.manifests.push(m);
  }
  return byDir;
}

function moduleRecords(byDir: Map<string, ModuleDraft>, tree: TreeIndex, jsPm: ReturnType<typeof jsPackageManager>): ModuleRecord[] {
  const modules: ModuleRecord[] = [];
  for (const [dir, entry] of [...byDir].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const primary = entry.manifests.find((m) => buildSystemFor(m, jsPm) === entry.system)!;
    modules.push({
      id: `${entry.system}:${dir}`,
      path: dir,
      name: primary.name,
      buildSystem: entry.system,
      ...conventionalRoots(tree, dir, entry.system),
      manifests: entry.manifests.map((m) => m.path).sort(),
      dependsOn: [],
      evidenceRefs: [...new Set(entry.manifests.map((m) => m.evidenceRef))].sort(),
    });
  }
  return modules;
}

/** Modules by `family:name` and by directory, for resolving dependencies. */
interface ModuleLookup {
  byName: Map<string, ModuleRecord>;
  byPath: Map<string, ModuleRecord>;
}

type Dependency = ManifestRecord['dependencies'][number];

/** The module a dependency names: by path for path and project dependencies, else by name within the build family. */
function dependencyTarget(dep: Dependency, mod: ModuleRecord, lookup: ModuleLookup): ModuleRecord | undefined {
  if ((dep.kind === 'path' || dep.kind === 'project') && dep.target !== undefined) {
    const resolved = dep.kind === 'project' ? dep.target || '.' : resolveRelative(mod.path, dep.target.replace(/\/[^/]+\.csproj$/, ''));
    return resolved ? lookup.byPath.get(resolved) : undefined;
  }
  return lookup.byName.get(`${family(mod.buildSystem)}:${dep.name}`);
}

const VIA: Partial<Record<string, string>> = { workspace: 'workspace protocol', project: 'gradle project dependency', path: 'path dependency' };

/** `dependsOn` edges read from each module's manifests; parents and plugins are not dependencies. */
function moduleEdges(modules: ModuleRecord[], usable: ManifestRecord[]): ModuleEdge[] {
  const lookup: ModuleLookup = { byName: new Map(), byPath: new Map() };
  for (const mod of modules) {
    if (mod.name) lookup.byName.set(`${family(mod.buildSystem)}:${mod.name}`, mod);
    lookup.byPath.set(mod.path, mod);
  }
  const edges: ModuleEdge[] = [];
  for (const mod of modules) {
    for (const m of mod.manifests.map((p) => usable.find((u) => u.path === p)!)) {
      for (const dep of m.dependencies) {
        if (dep.kind === 'parent' || dep.kind === 'plugin') continue;
        const target = dependencyTarget(dep, mod, lookup);
        if (!target || target.id === mod.id) continue;
        const via = VIA[dep.kind] ?? `${m.kind} dependency`;
        edges.push({ from: mod.id, to: target.id, via: `${via}: ${dep.name}`, evidenceRef: m.evidenceRef });
      }
    }
  }
  return edges;
}

/**
 * Modules from manifests: one per directory (the highest-priority build system wins, the other
 * manifests of the directory are listed with it), with conventional roots that exist in the
 * tree and `dependsOn` edges read from the manifests (never from running a build).
 */
export function detectModules(manifests: ManifestRecord[], tree: TreeIndex): { modules: ModuleRecord[]; edges: ModuleEdge[] } {
  const usable = manifests.filter((m) => !isVendoredOrBuildOutput(m.path) && !m.parseError);
  const rootPackage = usable.find((m) => m.path === 'package.json');
  const jsPm = jsPackageManager(tree, rootPackage);
  const modules = moduleRecords(moduleDrafts(usable, jsPm), tree, jsPm);
  const unique = new Map<string, ModuleEdge>();
  for (const e of moduleEdges(modules, usable)) if (!unique.has(`${e.from}>${e.to}`)) unique.set(`${e.from}>${e.to}`, e);
  const sortedEdges = [...unique.values()].sort((a, b) => (a.from + a.to < b.from + b.to ? -1 : 1));
  for (const mod of modules)
    mod.dependsOn = sortedEdges
      .filter((e) => e.from === mod.id)
      .map((e) => e.to)
      .sort();
  return { modules, edges: sortedEdges };
}

function family(system: BuildSystem): string {
  return system === 'pnpm' || system === 'yarn' ? 'npm' : system;
}

/**
 * A fast `moduleForPath` for many lookups: walks up the path's directories in a map from
 * module directory to module (O(depth) per path instead of O(modules)).
 */
export function createModuleLocator(modules: readonly ModuleRecord[]): (path: string) => ModuleRecord | undefined {
  const byDir = new Map(modules.map((m) => [m.path === '.' ? '' : m.path, m]));
  return (path) => {
    if (byDir.has(path)) return byDir.get(path);
    let d = dirName(path);
    for (;;) {
      const hit = byDir.get(d);
      if (hit) return hit;
      if (d === '') return undefined;
      d = dirName(d);
    }
  };
}

/** The module owning a path: the one with the longest directory prefix. */
export function moduleForPath<M extends Pick<ModuleRecord, 'path'>>(modules: readonly M[], path: string): M | undefined {
  let best: M | undefined;
  for (const m of modules) {
    if (m.path === '.' || path === m.path || path.startsWith(`${m.path}/`)) {
      if (!best || (best.path === '.' ? 0 : best.path.length) < (m.path === '.' ? 0 : m.path.length)) best = m;
    }
  }
  return best;
}
