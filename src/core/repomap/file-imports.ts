import { extensionOf, dirName } from '../paths/path-classes.js';
import type { ModuleRecord } from './repo-map-schema.js';
import { resolveRelative } from './detect-modules.js';

/** The imports found so far: the first candidate of each import that is a file of the tree. */
class ImportSet {
  readonly out = new Set<string>();

  constructor(private readonly files: ReadonlySet<string>) {}

  /** Adds the first candidate that is a file; whether that added a file not found before. */
  tryFiles(candidates: string[]): boolean {
    const before = this.out.size;
    const hit = candidates.find((c) => this.files.has(c));
    if (hit) this.out.add(hit);
    return this.out.size > before;
  }
}

/** Relative specifiers of `import`, `export from`, `import()` and `require()`, with the extensions and index files a bundler tries. */
function scriptImports(path: string, text: string, found: ImportSet): void {
  for (const m of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm,
  )) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (!spec.startsWith('.')) continue;
    const base = resolveRelative(dirName(path) || '.', spec);
    if (!base) continue;
    const noExt = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
    found.tryFiles([base, ...['ts', 'tsx', 'js', 'jsx', 'mts', 'mjs'].map((e) => `${noExt}.${e}`), ...['ts', 'tsx', 'js'].map((e) => `${base}/index.${e}`)]);
  }
}

/** Java and Kotlin imports: the longest prefix of the name that is a class file under a source or test root. */
function jvmImports(text: string, modules: readonly ModuleRecord[], found: ImportSet): void {
  const roots = modules.flatMap((m) => [...m.sourceRoots, ...m.testRoots]);
  for (const m of text.matchAll(/^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;/gm)) {
    const parts = m[1].split('.');
    for (let n = parts.length; n > 0; n--) {
      const rel = parts.slice(0, n).join('/');
      if (found.tryFiles(roots.flatMap((r) => [`${r}/${rel}.java`, `${r}/${rel}.kt`]))) break;
    }
  }
}

/** Python imports: relative ones from the file's package, absolute ones under the repository root or a source root. */
function pythonImports(path: string, text: string, modules: readonly ModuleRecord[], found: ImportSet): void {
  const roots = ['', ...modules.flatMap((m) => m.sourceRoots.filter((r) => r !== '.'))];
  for (const m of text.matchAll(/^\s*(?:from\s+(\.*[\w.]*)\s+import|import\s+([\w.]+))/gm)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('.')) {
      const dots = /^\.+/.exec(spec)![0].length;
      let dir = dirName(path);
      for (let i = 1; i < dots; i++) dir = dirName(dir);
      const rel = [dir, spec.slice(dots).replace(/\./g, '/')].filter(Boolean).join('/');
      found.tryFiles([`${rel}.py`, `${rel}/__init__.py`]);
    } else {
      const rel = spec.replace(/\./g, '/');
      found.tryFiles(roots.flatMap((r) => [r ? `${r}/${rel}.py` : `${rel}.py`, r ? `${r}/${rel}/__init__.py` : `${rel}/__init__.py`]));
    }
  }
}

/** Go imports of packages of in-repository modules: every non-test file of the package's directory. */
function goImports(text: string, files: ReadonlySet<string>, modules: readonly ModuleRecord[], found: ImportSet): void {
  const goMods = modules.filter((m) => m.buildSystem === 'go' && m.name).sort((a, b) => (b.name?.length ?? 0) - (a.name?.length ?? 0));
  for (const m of text.matchAll(/"([\w.\-/]+)"/g)) {
    const spec = m[1];
    const mod = goMods.find((g) => spec === g.name || spec.startsWith(`${g.name}/`));
    if (!mod) continue;
    const dir = [mod.path === '.' ? '' : mod.path, spec.slice(mod.name!.length + 1)].filter(Boolean).join('/');
    for (const f of files) if (dirName(f) === dir && f.endsWith('.go') && !f.endsWith('_test.go')) found.out.add(f);
  }
}

/**
 * L1 of the dependency layer: file -> file imports, read syntactically from one file's text
 * and resolved against the tree (relative JS/TS specifiers, Java classes under source roots,
 * Python modules, Go packages of in-repository modules). Computed on demand, per file.
 */
export function resolveFileImports(path: string, text: string, files: ReadonlySet<string>, modules: readonly ModuleRecord[]): string[] {
  const ext = extensionOf(path);
  const found = new ImportSet(files);
  if (/^[cm]?[jt]sx?$/.test(ext)) scriptImports(path, text, found);
  else if (ext === 'java' || ext === 'kt') jvmImports(text, modules, found);
  else if (ext === 'py') pythonImports(path, text, modules, found);
  else if (ext === 'go') goImports(text, files, modules, found);
  found.out.delete(path);
  return [...found.out].sort();
}
