import { isMap, isScalar, parseDocument } from 'yaml';
import type { ManifestDependency } from './manifest-schema.js';
import { jsonStringValues } from '../syntax/json-scan.js';
import { asArray, lineIndex, record, str, type ParsedManifest } from './parse-util.js';

const DEPENDENCY_SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
/** Version pins of transitive packages: npm `overrides`, Yarn `resolutions`, pnpm's `pnpm.overrides` (key path, scope). */
const OVERRIDE_SECTIONS: [string[], string][] = [
  [['overrides'], 'overrides'],
  [['resolutions'], 'resolutions'],
  [['pnpm', 'overrides'], 'pnpm.overrides'],
];

/** The line of every string value by its key path (`dependencies\0react`); empty when the scanner cannot follow the text. */
function valueLines(text: string): Map<string, number> {
  const lineOf = lineIndex(text);
  const lines = new Map<string, number>();
  for (const v of jsonStringValues(text) ?? []) lines.set(v.path.join('\0'), lineOf(v.start));
  return lines;
}

/**
 * The package an override key pins: `**\/foo`, `parent/foo` and `parent>foo` select `foo` under
 * another package, `foo@<2` a range of it (string steps only: keys are short but untrusted).
 */
export function overriddenPackage(key: string): string {
  const afterParent = key.slice(key.lastIndexOf('>') + 1).trim();
  const segments = afterParent.split('/');
  const last = segments[segments.length - 1];
  const scoped = segments.length > 1 && segments[segments.length - 2].startsWith('@') ? `${segments[segments.length - 2]}/${last}` : last;
  const at = scoped.indexOf('@', 1);
  return at > 0 ? scoped.slice(0, at) : scoped;
}

function declared(json: Record<string, unknown>, path: string, lines: Map<string, number>): ManifestDependency[] {
  const out: ManifestDependency[] = [];
  for (const scope of DEPENDENCY_SECTIONS) {
    for (const [name, version] of Object.entries(record(json[scope]))) {
      const v = str(version) ?? '';
      const kind = v.startsWith('workspace:') ? 'workspace' : v.startsWith('file:') || v.startsWith('link:') ? 'path' : 'dependency';
      const line = lines.get(`${scope}\0${name}`);
      out.push({
        name,
        version: v,
        scope,
        kind,
        ...(kind === 'path' ? { target: v.replace(/^(file|link):/, '') } : {}),
        ...(line !== undefined ? { line } : {}),
        // A workspace or path reference is not a version a bump edits; pnpm's `catalog:` takes it from pnpm-workspace.yaml.
        ...(v.startsWith('catalog:') ? { versionRef: v } : line !== undefined && kind === 'dependency' && v !== '' ? { versionAt: { path, line } } : {}),
      });
    }
  }
  return out;
}

/**
 * The top-level string values of the override sections (a nested override object is left out).
 * npm's `$name` takes the version of the direct dependency `name`: that is where a bump edits it.
 */
function overrides(json: Record<string, unknown>, path: string, lines: Map<string, number>, direct: ManifestDependency[]): ManifestDependency[] {
  const out: ManifestDependency[] = [];
  for (const [keyPath, scope] of OVERRIDE_SECTIONS) {
    const section = keyPath.reduce<Record<string, unknown>>((at, key) => record(at[key]), json);
    for (const [key, version] of Object.entries(section)) {
      if (typeof version !== 'string') continue;
      const line = lines.get([...keyPath, key].join('\0'));
      const dep: ManifestDependency = { name: overriddenPackage(key), version, scope, kind: 'dependency', ...(line !== undefined ? { line } : {}) };
      if (version.startsWith('$')) {
        const ref = direct.find((d) => d.name === version.slice(1) && d.kind === 'dependency');
        dep.versionRef = version.slice(1);
        if (ref?.version) dep.resolvedVersion = ref.version;
        if (ref?.versionAt) dep.versionAt = ref.versionAt;
      } else if (line !== undefined && version !== '') dep.versionAt = { path, line };
      out.push(dep);
    }
  }
  return out;
}

/** A package.json's dependencies by section (with their lines), overrides, workspaces, scripts and entry points. */
export function parsePackageJson(text: string, path: string): ParsedManifest {
  const json = record(JSON.parse(text));
  const lines = valueLines(text);
  const direct = declared(json, path, lines);
  const dependencies = [...direct, ...overrides(json, path, lines, direct)];
  const ws = json.workspaces;
  const members = Array.isArray(ws) ? ws.map(String) : Array.isArray(record(ws).packages) ? (record(ws).packages as unknown[]).map(String) : undefined;
  const facts: Record<string, string> = {};
  const main = str(json.main) ?? str(json.module);
  if (main) facts.main = main;
  const bin = typeof json.bin === 'string' ? json.bin : Object.values(record(json.bin)).map(String)[0];
  if (bin) facts.bin = bin;
  if (str(json.packageManager)) facts.packageManager = str(json.packageManager)!;
  return {
    name: str(json.name),
    version: str(json.version),
    members,
    dependencies,
    scripts: Object.fromEntries(
      Object.entries(record(json.scripts))
        .filter(([, command]) => typeof command === 'string')
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, command]) => [name, String(command).slice(0, 300)]),
    ),
    facts,
  };
}

/** One catalog map of pnpm-workspace.yaml (`catalog:` or a named one under `catalogs:`), each entry with its line. */
function catalogEntries(map: unknown, scope: string, path: string, lineOf: (offset: number) => number): ManifestDependency[] {
  if (!isMap(map)) return [];
  const out: ManifestDependency[] = [];
  for (const item of map.items) {
    const name = isScalar(item.key) ? str(item.key.value) : undefined;
    const version = isScalar(item.value) ? str(item.value.value) : undefined;
    if (!name || version === undefined) continue;
    const line = item.value && isScalar(item.value) && item.value.range ? lineOf(item.value.range[0]) : undefined;
    out.push({ name, version, scope, kind: 'dependency', ...(line !== undefined ? { line, versionAt: { path, line } } : {}) });
  }
  return out;
}

/** pnpm-workspace.yaml: the member globs, and the versions of its catalogs (`catalog:` references in package.json use them). */
export function parsePnpmWorkspace(text: string, path: string): ParsedManifest {
  const yamlDoc = parseDocument(text);
  if (yamlDoc.errors.length > 0) throw new Error(yamlDoc.errors[0].message);
  const doc = record(yamlDoc.toJS());
  const lineOf = lineIndex(text);
  const dependencies = catalogEntries(yamlDoc.get('catalog'), 'catalog', path, lineOf);
  const named = yamlDoc.get('catalogs');
  if (isMap(named)) {
    for (const item of named.items) if (isScalar(item.key)) dependencies.push(...catalogEntries(item.value, `catalog:${String(item.key.value)}`, path, lineOf));
  }
  return { members: asArray(doc.packages as string[]).map(String), dependencies };
}
