import { dirName } from '../paths/path-classes.js';
import { MAX_SCRIPT_CHARS, substituteReference } from './gradle-script-text.js';
import { GRADLE_SCRIPT_KINDS } from './manifest-kinds.js';
import type { ManifestDependency, ManifestRecord, VersionSite } from './manifest-schema.js';
import type { ParsedManifest } from './parse-util.js';

/** `key=value`, `key: value` or `key value`; a key may hold `\`-escaped separators. */
const PROPERTY = /^((?:[^=:\s\\]|\\.){1,300})[ \t]*[=:]?[ \t]*(.*)$/;

const unescape = (s: string): string => s.replace(/\\(.)/g, '$1');

/** Whether a line ends in an odd number of backslashes (the value continues on the next line). */
function continues(line: string): boolean {
  let n = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

/** gradle.properties (Java properties format): every property with the line its key is written on. */
export function parseGradleProperties(text: string): ParsedManifest {
  if (text.length > MAX_SCRIPT_CHARS) throw new Error(`longer than ${MAX_SCRIPT_CHARS} characters; not read`);
  const properties: Record<string, string> = {};
  const propertyLines: Record<string, number> = {};
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  for (let i = 0; i < lines.length; i++) {
    const first = i;
    let logical = lines[i].trimStart();
    if (logical === '' || logical[0] === '#' || logical[0] === '!') continue;
    while (continues(logical) && i + 1 < lines.length) logical = logical.slice(0, -1) + lines[++i].trimStart();
    const m = PROPERTY.exec(logical);
    if (!m) continue;
    const key = unescape(m[1]);
    properties[key] = unescape(m[2]).trimEnd();
    propertyLines[key] = first + 1;
  }
  return { properties, propertyLines, dependencies: [] };
}

interface Found {
  value: string;
  at: VersionSite;
}

function ownProperty(m: ManifestRecord, name: string): Found | undefined {
  if (!m.properties || !Object.hasOwn(m.properties, name)) return undefined;
  const line = m.propertyLines && Object.hasOwn(m.propertyLines, name) ? m.propertyLines[name] : undefined;
  return line ? { value: m.properties[name], at: { path: m.path, line } } : undefined;
}

/**
 * `$kotlinVersion`-style references a script leaves unresolved, followed to the nearest
 * gradle.properties or ancestor build script `ext` property: the script's directory first, then
 * each parent up to the root (a subproject sees its own gradle.properties and the root's, and
 * the `ext` properties of the builds above it).
 */
export function resolveGradleProperties(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  const byDir = new Map<string, ManifestRecord[]>();
  for (const m of manifests) {
    if (m.parseError || !m.properties || (m.kind !== 'gradle-properties' && m.kind !== 'gradle-build')) continue;
    const list = byDir.get(dirName(m.path)) ?? [];
    list.push(m);
    // A build script's own ext properties shadow gradle.properties of its directory.
    list.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'gradle-build' ? -1 : 1));
    byDir.set(dirName(m.path), list);
  }
  if (byDir.size === 0) return [...manifests];
  const lookup = (name: string, scriptPath: string): Found | undefined => {
    for (let dir = dirName(scriptPath); ; dir = dirName(dir)) {
      for (const source of byDir.get(dir) ?? []) {
        const found = source.path === scriptPath ? undefined : ownProperty(source, name);
        if (found) return found;
      }
      if (dir === '') return undefined;
    }
  };
  return manifests.map((m) => {
    if (!GRADLE_SCRIPT_KINDS.has(m.kind)) return m;
    const dependencies = m.dependencies.map((dep): ManifestDependency => {
      if (dep.versionRef === undefined || dep.resolvedVersion !== undefined || dep.versionAt) return dep;
      const found = lookup(dep.versionRef, m.path);
      if (!found) return dep;
      return { ...dep, resolvedVersion: dep.version ? substituteReference(dep.version, found.value) : found.value, versionAt: found.at };
    });
    return { ...m, dependencies };
  });
}
