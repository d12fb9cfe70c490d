import { extensionOf, dirName } from '../paths/path-classes.js';
import type { ModuleRecord } from './repo-map-schema.js';
import { resolveRelative } from './detect-modules.js';

/**
 * L1 of the dependency layer: file -> file imports, read syntactically from one file's text
 * and resolved against the tree (relative JS/TS specifiers, Java classes under source roots,
 * Python modules, Go packages of in-repository modules). Computed on demand, per file.
 */
export function resolveFileImports(path: string, text: string, files: ReadonlySet<string>, modules: readonly ModuleRecord[]): string[] {
  const ext = extensionOf(path);
  const out = new Set<string>();
  const tryFiles = (candidates: string[]): void => {
    const hit = candidates.find((c) => files.has(c));
    if (hit) out.add(hit);
  };
  if (/^[cm]?[jt]sx?$/.test(ext)) {
    for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
      if (!spec.startsWith('.')) continue;
      const base = resolveRelative(dirName(path) || '.', spec);
      if (!base) continue;
      const noExt = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
      tryFiles([base, ...['ts', 'tsx', 'js', 'jsx', 'mts', 'mjs'].map((e) => `${noExt}.${e}`), ...['ts', 'tsx', 'js'].map((e) => `${base}/index.${e}`)]);
    }
  } else if (ext === 'java' || ext === 'kt') {
    const roots = modules.flatMap((m) => [...m.sourceRoots, ...m.testRoots]);
    for (const m of text.matchAll(/^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;/gm)) {
      const parts = m[1].split('.');
      for (let n = parts.length; n > 0; n--) {
        const rel = parts.slice(0, n).join('/');
        const before = out.size;
        tryFiles(roots.flatMap((r) => [`${r}/${rel}.java`, `${r}/${rel}.kt`]));
        if (out.size > before) break;
      }
    }
  } else if (ext === 'py') {
    const roots = ['', ...modules.flatMap((m) => m.sourceRoots.filter((r) => r !== '.'))];
    for (const m of text.matchAll(/^\s*(?:from\s+(\.*[\w.]*)\s+import|import\s+([\w.]+))/gm)) {
      const spec = m[1] ?? m[2];
      let rel: string | undefined;
      if (spec.startsWith('.')) {
        const dots = /^\.+/.exec(spec)![0].length;
        let dir = dirName(path);
        for (let i = 1; i < dots; i++) dir = dirName(dir);
        rel = [dir, spec.slice(dots).replace(/\./g, '/')].filter(Boolean).join('/');
        tryFiles([`${rel}.py`, `${rel}/__init__.py`]);
      } else {
        rel = spec.replace(/\./g, '/');
        tryFiles(roots.flatMap((r) => [r ? `${r}/${rel}.py` : `${rel}.py`, r ? `${r}/${rel}/__init__.py` : `${rel}/__init__.py`]));
      }
    }
  } else if (ext === 'go') {
    const goMods = modules.filter((m) => m.buildSystem === 'go' && m.name).sort((a, b) => (b.name?.length ?? 0) - (a.name?.length ?? 0));
    for (const m of text.matchAll(/"([\w.\-/]+)"/g)) {
      const spec = m[1];
      const mod = goMods.find((g) => spec === g.name || spec.startsWith(`${g.name}/`));
      if (!mod) continue;
      const dir = [mod.path === '.' ? '' : mod.path, spec.slice(mod.name!.length + 1)].filter(Boolean).join('/');
      for (const f of files) if (dirName(f) === dir && f.endsWith('.go') && !f.endsWith('_test.go')) out.add(f);
    }
  }
  out.delete(path);
  return [...out].sort();
}
