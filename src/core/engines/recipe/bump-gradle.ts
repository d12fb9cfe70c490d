import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import type { SpanEdit } from './recipe-types.js';
import { bumpedVersion } from './version-edit.js';
import { escapeRegExp } from '../../util/escape-regexp.js';

export interface TextBump {
  spans: SpanEdit[];
  notes: string[];
  /** Declarations of the package left alone because they do not match the step's `from` (said when no file matches). */
  mismatches?: string[];
}

/** Push an edit of the version found at `start` in `text` (value without quotes). */
function pushVersion(out: TextBump, value: string, start: number, step: BumpDependencyStep): void {
  if (/^\$|\$\{/.test(value)) {
    out.notes.push(`${step.package}: version "${value}" is a variable; left alone`);
    return;
  }
  const next = bumpedVersion(value, step.to, step.from, { scheme: 'maven', mismatches: { label: step.package, out: (out.mismatches ??= []) } });
  if (next !== undefined) out.spans.push({ start, end: start + value.length, text: next });
}

/**
 * Gradle build scripts (Groovy and Kotlin DSL): `group:name:version` dependency strings, map
 * notation `group: 'g', name: 'n', version: 'v'`, and plugins `id 'x' version 'v'` / `id("x") version "v"`.
 */
export function bumpGradle(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const pkg = escapeRegExp(step.package);
  if (step.package.includes(':')) {
    const coordinate = new RegExp(`(["'])${pkg}:([^"':@\\s]+)((?::[^"'@\\s]*)?(?:@[^"'\\s]*)?)\\1`, 'g');
    for (let m = coordinate.exec(text); m; m = coordinate.exec(text)) {
      pushVersion(out, m[2], m.index + 1 + step.package.length + 1, step);
    }
    const [group, name] = step.package.split(':');
    const mapNotation = new RegExp(
      `group\\s*[:=]\\s*(["'])${escapeRegExp(group)}\\1\\s*,\\s*name\\s*[:=]\\s*(["'])${escapeRegExp(name)}\\2\\s*,\\s*version\\s*[:=]\\s*(["'])([^"']+)\\3`,
      'g',
    );
    for (let m = mapNotation.exec(text); m; m = mapNotation.exec(text)) {
      const valueStart = m.index + m[0].length - 1 - m[4].length;
      pushVersion(out, m[4], valueStart, step);
    }
  } else {
    const plugin = new RegExp(`\\bid\\s*\\(?\\s*(["'])${pkg}\\1\\s*\\)?\\s*version\\s*\\(?\\s*(["'])([^"']+)\\2`, 'g');
    for (let m = plugin.exec(text); m; m = plugin.exec(text)) {
      const valueStart = m.index + m[0].length - 1 - m[3].length;
      pushVersion(out, m[3], valueStart, step);
    }
  }
  return out;
}

/**
 * A Gradle version catalog (`libs.versions.toml`): `[libraries]` entries by `module` or
 * `group`+`name` or a `"g:n:v"` string, `[plugins]` by `id`; a `version.ref` edits the `[versions]` entry.
 */
export function bumpGradleCatalog(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const refs = new Set<string>();
  const versions = new Map<string, { value: string; start: number }>();
  let section = '';
  let offset = 0;
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]/.exec(line);
    if (header) section = header[1].trim();
    else if (section === 'versions') {
      const m = /^\s*([\w.-]+)\s*=\s*"([^"]*)"/.exec(line);
      if (m) versions.set(m[1], { value: m[2], start: offset + line.indexOf('"', line.indexOf('=')) + 1 });
    } else if (section === 'libraries' || section === 'plugins') bumpCatalogEntry(out, refs, section, line, offset, step);
    offset += line.length + 1;
  }
  for (const ref of refs) {
    const v = versions.get(ref);
    if (v) pushVersion(out, v.value, v.start, step);
    else out.notes.push(`${step.package}: version.ref "${ref}" is not in [versions]`);
  }
  return out;
}

/** Whether a `[libraries]` line (by `module`, or `group` and `name`) or a `[plugins]` line (by `id`) is the package's. */
function catalogEntryNames(section: 'libraries' | 'plugins', line: string, pkg: string): boolean {
  if (section === 'plugins') return !pkg.includes(':') && new RegExp(`\\bid\\s*=\\s*"${escapeRegExp(pkg)}"`).test(line);
  if (!pkg.includes(':')) return false;
  const [group, name] = pkg.split(':');
  return (
    new RegExp(`\\bmodule\\s*=\\s*"${escapeRegExp(pkg)}"`).test(line) ||
    (new RegExp(`\\bgroup\\s*=\\s*"${escapeRegExp(group)}"`).test(line) && new RegExp(`\\bname\\s*=\\s*"${escapeRegExp(name ?? '')}"`).test(line))
  );
}

/** One catalog entry line: a `"g:n:v"` string or a literal version is edited in place; a `version.ref` is collected. */
function bumpCatalogEntry(out: TextBump, refs: Set<string>, section: 'libraries' | 'plugins', line: string, offset: number, step: BumpDependencyStep): void {
  const short = section === 'libraries' && new RegExp(`=\\s*"${escapeRegExp(step.package)}:([^"]+)"`).exec(line);
  if (short) return pushVersion(out, short[1], offset + short.index + short[0].length - 1 - short[1].length, step);
  if (!catalogEntryNames(section, line, step.package)) return;
  const ref = /\bversion\.ref\s*=\s*"([^"]+)"/.exec(line) ?? /\bversion\s*=\s*\{\s*ref\s*=\s*"([^"]+)"/.exec(line);
  const literal = /\bversion\s*=\s*"([^"]+)"/.exec(line);
  if (ref) refs.add(ref[1]);
  else if (literal) pushVersion(out, literal[1], offset + literal.index + literal[0].length - 1 - literal[1].length, step);
}
