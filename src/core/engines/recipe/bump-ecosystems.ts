import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import type { TextBump } from './bump-gradle.js';
import { jsonStringValues } from '../../syntax/json-scan.js';
import { bumpedVersion } from './version-edit.js';

const NPM_SECTIONS = new Set(['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']);

/** package.json: the package's entry in the four dependency sections; `^`/`~` are kept. Protocol specs (workspace:, file:, git, URLs, tags) are left alone. */
export function bumpNpm(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const values = jsonStringValues(text);
  if (!values) {
    out.notes.push('not valid JSON; left alone');
    return out;
  }
  for (const v of values) {
    if (v.path.length !== 2 || !NPM_SECTIONS.has(v.path[0]) || v.path[1] !== step.package) continue;
    if (!/^\s*(\^|~|>=|<=|>|<|=)?\s*v?\d/.test(v.value)) {
      out.notes.push(`${v.path[0]}.${step.package} is "${v.value}", not a version; left alone`);
      continue;
    }
    // Escapes are not expected in version strings; refuse to rewrite a value whose text differs from its JSON value.
    if (text.slice(v.start, v.end) !== v.value) continue;
    const next = bumpedVersion(v.value, step.to, step.from, {
      scheme: 'semver',
      mismatches: { label: `${v.path[0]}.${step.package}`, out: (out.mismatches ??= []) },
    });
    if (next !== undefined) out.spans.push({ start: v.start, end: v.end, text: next });
  }
  return out;
}

/** go.mod: `require path version` lines, single or in a block (comments such as `// indirect` are kept). */
export function bumpGoMod(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  let inRequire = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    let body: RegExpExecArray | null = null;
    if (inRequire) {
      if (trimmed.startsWith(')')) inRequire = false;
      else body = /^(\s*)(\S+)(\s+)(\S+)/.exec(line);
    } else if (/^require\s*\(\s*(\/\/.*)?$/.test(trimmed)) inRequire = true;
    else {
      const single = /^(\s*require\s+)(\S+)(\s+)(\S+)/.exec(line);
      if (single) body = single;
    }
    if (body && body[2] === step.package) {
      const start = offset + body[1].length + body[2].length + body[3].length;
      const next = bumpedVersion(body[4], step.to.startsWith('v') ? step.to : `v${step.to}`, step.from, {
        scheme: 'go',
        mismatches: { label: step.package, out: (out.mismatches ??= []) },
      });
      if (next !== undefined) out.spans.push({ start, end: start + body[4].length, text: next });
    }
    offset += line.length + 1;
  }
  return out;
}

/** PEP 503: names compare case-insensitively with runs of `-`, `_`, `.` as one `-`. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

const REQUIREMENT = /^(\s*)([A-Za-z0-9][A-Za-z0-9._-]*)(\s*\[[^\]]*\])?(\s*)((?:===|==|~=|>=|<=|!=|>|<)\s*)([^\s,;#\\"']+)([^;#"']*)/;

/** One PEP 508 requirement string at `base`: edits the version when there is exactly one version clause. */
export function bumpRequirement(out: TextBump, requirement: string, base: number, step: BumpDependencyStep): void {
  const m = REQUIREMENT.exec(requirement);
  if (!m || normalizePythonName(m[2]) !== normalizePythonName(step.package)) return;
  if (m[7].includes(',')) {
    out.notes.push(`${step.package}: "${requirement.trim()}" has several version clauses; left alone`);
    return;
  }
  const start = base + m[1].length + m[2].length + (m[3]?.length ?? 0) + m[4].length + m[5].length;
  const target = /^(===|==|~=|>=|<=|!=|>|<)/.test(step.to) ? step.to.replace(/^(===|==|~=|>=|<=|!=|>|<)\s*/, '') : step.to;
  const next = bumpedVersion(m[6], target, step.from, {
    scheme: 'pep440',
    declared: `${m[5]}${m[6]}`.trim(),
    mismatches: { label: step.package, out: (out.mismatches ??= []) },
  });
  if (next !== undefined) out.spans.push({ start, end: start + m[6].length, text: next });
}

/** Each requirement line of a requirements file with its offset (comments and `-r`/`--option` lines skipped). */
export function requirementLines(text: string, visit: (requirement: string, base: number) => void): void {
  let offset = 0;
  for (const line of text.split('\n')) {
    if (!/^\s*(#|-)/.test(line)) visit(line, offset);
    offset += line.length + 1;
  }
}

/** requirements*.txt: one requirement per line; the operator is kept. */
export function bumpRequirements(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  requirementLines(text, (line, offset) => bumpRequirement(out, line, offset, step));
  return out;
}

/** The `key = "v"` / `key = { version = "v" }` line form shared by Cargo and Poetry tables. */
export function bumpKeyedVersion(
  out: TextBump,
  line: string,
  offset: number,
  keyMatches: (key: string) => boolean,
  step: BumpDependencyStep,
  bareIsCaret: boolean,
): void {
  const m = /^(\s*)("?)([A-Za-z0-9_.-]+)\2(\s*=\s*)/.exec(line);
  if (!m || !keyMatches(m[3])) return;
  const rest = line.slice(m[0].length);
  const plain = /^"([^"]*)"/.exec(rest);
  const inline = /^\{[^}]*?\bversion\s*=\s*"([^"]*)"/.exec(rest);
  const hit = plain ?? inline;
  if (!hit) return;
  const start = offset + m[0].length + hit.index + hit[0].length - 1 - hit[1].length;
  const next = bumpedVersion(hit[1], step.to, step.from, { scheme: 'semver', bareIsCaret, mismatches: { label: step.package, out: (out.mismatches ??= []) } });
  if (next !== undefined) out.spans.push({ start, end: start + hit[1].length, text: next });
}

/** A table-per-dependency form: `[dependencies.serde]` then `version = "1"`. */
export function bumpTableVersion(out: TextBump, line: string, offset: number, step: BumpDependencyStep, bareIsCaret: boolean): void {
  const m = /^(\s*version\s*=\s*")([^"]*)"/.exec(line);
  if (!m) return;
  const next = bumpedVersion(m[2], step.to, step.from, { scheme: 'semver', bareIsCaret, mismatches: { label: step.package, out: (out.mismatches ??= []) } });
  if (next !== undefined) out.spans.push({ start: offset + m[1].length, end: offset + m[1].length + m[2].length, text: next });
}

/** Lines of a TOML file with the current table header. */
export function* tomlLines(text: string): Generator<{ line: string; offset: number; table: string }> {
  let table = '';
  let offset = 0;
  for (const line of text.split('\n')) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?\r?$/.exec(line);
    if (header) table = header[1].replace(/\s+/g, '').replace(/"/g, '').replace(/'/g, '');
    else yield { line, offset, table };
    offset += line.length + 1;
  }
}

/** Cargo.toml: `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, target and workspace tables. */
export function bumpCargo(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const same = (key: string) => key.replace(/_/g, '-') === step.package.replace(/_/g, '-');
  for (const { line, offset, table } of tomlLines(text)) {
    if (/(^|\.)(dev-|build-)?dependencies$/.test(table)) bumpKeyedVersion(out, line, offset, same, step, true);
    else {
      const m = /(^|\.)(dev-|build-)?dependencies\.([^.]+)$/.exec(table);
      if (m && same(m[3])) bumpTableVersion(out, line, offset, step, true);
    }
  }
  return out;
}

/** pyproject.toml: PEP 621/735 requirement strings anywhere, and Poetry dependency tables. */
export function bumpPyproject(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  const same = (key: string) => normalizePythonName(key) === normalizePythonName(step.package);
  for (const { line, offset, table } of tomlLines(text)) {
    if (/^tool\.poetry\.(.*\.)?(dev-)?dependencies$/.test(table)) {
      bumpKeyedVersion(out, line, offset, same, step, false);
      continue;
    }
    const poetryTable = /^tool\.poetry\.(.*\.)?dependencies\.([^.]+)$/.exec(table);
    if (poetryTable && same(poetryTable[2])) {
      bumpTableVersion(out, line, offset, step, false);
      continue;
    }
    const strings = /"([^"\\]*)"|'([^'\\]*)'/g;
    for (let m = strings.exec(line); m; m = strings.exec(line)) {
      const content = m[1] ?? m[2];
      bumpRequirement(out, content, offset + m.index + 1, step);
    }
  }
  return out;
}
