import { jsonStringValues, type JsonStringValue } from '../../../syntax/json-scan.js';
import type { SpanEdit } from '../recipe-types.js';
import { NODE_BUILTINS } from './known-namespaces.js';
import { ancestors, eolOf, indentAt, inDir, isSorted, lineAt, nearest, type FollowStep, type FollowThrough, type ManifestAccess } from './follow-types.js';

const SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The npm package an import specifier names (`@scope/name/sub` -> `@scope/name`); undefined for relative paths and Node built-ins. */
export function npmPackageOf(specifier: string): string | undefined {
  if (/^[./]/.test(specifier) || specifier.startsWith('node:')) return undefined;
  const segments = specifier.split('/');
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0];
  return NODE_BUILTINS.has(name) ? undefined : name;
}

const entriesOf = (values: JsonStringValue[], section: string) => values.filter((v) => v.path.length === 2 && v.path[0] === section);

/** Insert `"name": "version"` into a section: in order when the section is sorted, else after `after` or last; keys and indentation as its siblings. */
function addEntry(text: string, entries: JsonStringValue[], name: string, version: string, after?: string): SpanEdit | undefined {
  if (!entries.length) return undefined;
  const eol = eolOf(text);
  const keyStart = (v: JsonStringValue) => text.lastIndexOf('"', text.lastIndexOf(':', v.start) - 1) - v.path[1].length - 1;
  const indent = indentAt(text, entries[0].start);
  const line = `"${name}": "${version}"`;
  const next = isSorted(entries, (v) => v.path[1]) ? entries.find((v) => v.path[1] > name) : undefined;
  if (next) {
    const at = keyStart(next);
    return { start: at, end: at, text: `${line},${eol}${indent}` };
  }
  const anchor = entries.find((v) => v.path[1] === after) ?? entries[entries.length - 1];
  const close = anchor.end + 1;
  const isLast = anchor === entries[entries.length - 1];
  return isLast ? { start: close, end: close, text: `,${eol}${indent}${line}` } : { start: close + 1, end: close + 1, text: `${eol}${indent}${line},` };
}

/**
 * TS/JS: the package of the new specifier must be declared by the nearest package.json or one
 * above it (a workspace root); with `version` it is added to the section that held the old
 * package (or `dependencies`), in order when that section is sorted. The old package still
 * declared is flagged.
 */
export async function followNpm(step: FollowStep, changed: readonly string[], access: ManifestAccess): Promise<FollowThrough> {
  const out: FollowThrough = { edits: [], notes: [] };
  const pkg = step.artifact ?? npmPackageOf(step.to);
  const oldPkg = npmPackageOf(step.from);
  if (!pkg || pkg === oldPkg) return out;
  const paths = new Set(access.paths);
  const owners = new Set(changed.map((p) => nearest(p, 'package.json', paths) ?? ''));
  for (const manifest of [...owners].sort()) {
    if (!manifest) out.notes.push(`no package.json owns the changed files; the dependency on ${pkg} was not checked`);
    else await followManifest(step, manifest, { pkg, oldPkg }, access, out);
  }
  return out;
}

/** One owning package.json: the old package flagged, the new one added with `version` unless it or a workspace root above declares it. */
async function followManifest(
  step: FollowStep,
  manifest: string,
  names: { pkg: string; oldPkg: string | undefined },
  access: ManifestAccess,
  out: FollowThrough,
): Promise<void> {
  const { pkg, oldPkg } = names;
  const text = await access.read(manifest);
  const values = text === undefined ? undefined : jsonStringValues(text);
  if (text === undefined || !values) return;
  const old = values.find((v) => v.path.length === 2 && SECTIONS.includes(v.path[0]) && v.path[1] === oldPkg);
  if (old) out.notes.push(`${manifest}:${lineAt(text, old.start)} still declares ${oldPkg}; remove it once nothing imports it`);
  if (await declaredAbove(manifest, text, pkg, access)) return;
  const section = old?.path[0] ?? 'dependencies';
  const why = step.version ? access.cannotEdit(manifest) : undefined;
  const span = step.version && !why ? addEntry(text, entriesOf(values, section), pkg, step.version, oldPkg) : undefined;
  if (span) {
    out.edits.push({ path: manifest, spans: [span] });
    out.dependency = pkg;
    out.notes.push(`${manifest}: added "${pkg}": "${step.version}" to ${section}`);
  } else out.notes.push(`${manifest} does not declare ${pkg}${why ? ` and ${why}` : ''}; add "${pkg}": "${step.version ?? '<version>'}" to ${section}`);
}

/** The manifest or a package.json above it (a workspace root) declares the package, or is it. */
async function declaredAbove(manifest: string, text: string, pkg: string, access: ManifestAccess): Promise<boolean> {
  let declared = false;
  for (const dir of ancestors(manifest)) {
    const above = dir === ancestors(manifest)[0] ? text : await access.read(inDir(dir, 'package.json'));
    const found = above === undefined ? undefined : jsonStringValues(above);
    if (
      found?.some(
        (v) => (v.path.length === 2 && SECTIONS.includes(v.path[0]) && v.path[1] === pkg) || (v.path.length === 1 && v.path[0] === 'name' && v.value === pkg),
      )
    )
      declared = true;
  }
  return declared;
}
