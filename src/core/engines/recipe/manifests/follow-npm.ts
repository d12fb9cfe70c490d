import { jsonStringValues, type JsonStringValue } from '../../../syntax/json-scan.js';
import type { SpanEdit } from '../recipe-types.js';
import { removeNpm } from '../recipes/remove-dependency/remove-declarations.js';
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

/** At most this many source files are read to decide that nothing imports the old package any more. */
const MAX_SCANNED_SOURCES = 5_000;
const JS_SOURCE = /\.(m|c)?(j|t)sx?$/;

/** Whether a JS/TS file this package.json owns (not a nested package's) still imports `pkg` or a path inside it. */
async function packageImported(pkg: string, manifest: string, access: ManifestAccess): Promise<boolean> {
  const paths = new Set(access.paths);
  const quoted = [`'${pkg}'`, `"${pkg}"`, `'${pkg}/`, `"${pkg}/`, `\`${pkg}\``, `\`${pkg}/`];
  const owned = [...paths].filter((path) => JS_SOURCE.test(path) && !path.includes('node_modules/') && nearest(path, 'package.json', paths) === manifest);
  // Beyond this many files the package is taken as still imported: it stays, and the note says so.
  if (owned.length > MAX_SCANNED_SOURCES) return true;
  for (const path of owned) {
    const text = await access.read(path);
    if (text === undefined || quoted.some((q) => text.includes(q))) return true;
  }
  return false;
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
  const why = step.version ? access.cannotEdit(manifest) : undefined;
  const section = old?.path[0] ?? 'dependencies';
  if (!(await declaredAbove(manifest, text, pkg, access))) {
    const span = step.version && !why ? addEntry(text, entriesOf(values, section), pkg, step.version, oldPkg) : undefined;
    if (span) {
      out.edits.push({ path: manifest, spans: [span] });
      out.dependency = pkg;
      out.notes.push(`${manifest}: added "${pkg}": "${step.version}" to ${section}`);
    } else out.notes.push(`${manifest} does not declare ${pkg}${why ? ` and ${why}` : ''}; add "${pkg}": "${step.version ?? '<version>'}" to ${section}`);
  }
  if (!old || !oldPkg) return;
  // With a version the manifest is edited anyway: the old package goes, as `npm uninstall` would,
  // when no file this manifest owns still imports it (removed from the text as the addition left it).
  const removable = removeNpm(text, { recipe: 'remove-dependency', package: oldPkg }).spans.length > 0;
  if (step.version && !why && removable && !(await packageImported(oldPkg, manifest, access))) {
    out.edits.push({ path: manifest, then: (current) => removeNpm(current, { recipe: 'remove-dependency', package: oldPkg }).spans });
    out.notes.push(`${manifest}: removed ${oldPkg}; nothing it owns imports it any more`);
  } else out.notes.push(`${manifest}:${lineAt(text, old.start)} still declares ${oldPkg}; remove it once nothing imports it`);
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
