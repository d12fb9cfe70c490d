import { resolveLinkTarget } from '../util/repo-path.js';
import type { ManifestDependency } from './manifest-schema.js';
import type { ParsedManifest } from './parse-util.js';

/** Longer requirement strings are not real ones; reading stops there (keeps every match bounded). */
const MAX_REQUIREMENT = 2000;

/** A PEP 508 requirement: the name as written, the version clause as written, its offset in the string. */
export interface Requirement {
  name: string;
  version?: string;
  /** Offset of `version` in the string given. */
  versionIndex?: number;
}

/**
 * A PEP 508 requirement string: `name`, `name[extras]`, `name>=1,<2`, `name (>=1.0)`,
 * `name @ https://…` (no version), each with optional `; markers`. Anything else (a bare URL, a
 * path, a wheel file name) is not a requirement.
 */
export function parseRequirement(spec: string): Requirement | undefined {
  const text = spec.slice(0, MAX_REQUIREMENT);
  const head = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\]\s*)?/.exec(text);
  if (!head) return undefined;
  const name = head[1];
  if (/\.(whl|zip|tar\.gz|tgz|tar\.bz2)$/i.test(name)) return undefined;
  const rest = text.slice(head[0].length);
  if (rest === '' || rest.startsWith(';') || rest.startsWith('@')) return { name };
  const clause = /^(\(\s*)?([<>=!~][^;)]*)/.exec(rest);
  if (!clause) return undefined;
  const version = clause[2].trim();
  if (!version) return { name };
  return { name, version, versionIndex: head[0].length + (clause[1]?.length ?? 0) };
}

/** `name[extras] (op version)` from a PEP 508 requirement string, as a dependency of `scope`. */
export function pep508(spec: string, scope: string): ManifestDependency | undefined {
  const req = parseRequirement(spec);
  if (!req) return undefined;
  return { name: req.name, ...(req.version ? { version: req.version } : {}), scope, kind: 'dependency' };
}

/** A dependency from a requirement string written on `line` of `path`: the version is on that line too. */
export function requirementAt(spec: string, scope: string, path: string, line: number | undefined): ManifestDependency | undefined {
  const dep = pep508(spec, scope);
  if (!dep) return undefined;
  return { ...dep, ...(line ? { line } : {}), ...(line && dep.version ? { versionAt: { path, line } } : {}) };
}

/** A repository path named in `manifestPath`'s directory; undefined for URLs and paths that leave the repository. */
export function includedPath(manifestPath: string, target: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) || target.includes('\\')) return undefined;
  const resolved = resolveLinkTarget(manifestPath, target);
  return resolved ? resolved : undefined;
}

/** One logical line of a requirements file: continuation lines joined, comments removed. */
interface LogicalLine {
  text: string;
  /** The physical line each joined piece starts on, with the piece's offset in `text`. */
  pieces: { offset: number; line: number }[];
}

function* logicalLines(text: string): Generator<LogicalLine> {
  let current: LogicalLine | undefined;
  const physical = text.split('\n');
  for (let i = 0; i < physical.length; i++) {
    const raw = physical[i].replace(/\r$/, '');
    const joined = current ?? { text: '', pieces: [] };
    joined.pieces.push({ offset: joined.text.length, line: i + 1 });
    // pip removes a comment (a `#` at the start or after a blank) before it joins lines.
    const hash = raw.search(/(^|[ \t])#/);
    const body = hash < 0 ? raw : raw.slice(0, hash);
    if (hash < 0 && body.endsWith('\\')) {
      joined.text += body.slice(0, -1);
      current = joined;
      continue;
    }
    joined.text += body;
    current = undefined;
    yield joined;
  }
  if (current) yield current;
}

function lineOf(logical: LogicalLine, offset: number): number {
  let line = logical.pieces[0].line;
  for (const piece of logical.pieces) if (piece.offset <= offset) line = piece.line;
  return line;
}

const INCLUDE = /^(?:-r|--requirement|-c|--constraint)(?:[ \t]*=[ \t]*|[ \t]+|(?=[^\s=-]))(\S+)/;
const EDITABLE = /^(?:-e|--editable)(?:[ \t]*=[ \t]*|[ \t]+)(\S+)/;

/** `-e ./local[extra]#egg=name`: a path dependency on a directory of the repository; a VCS URL names its project by `#egg=`. */
function editable(written: string, line: number): ManifestDependency | undefined {
  const target = written.slice(0, MAX_REQUIREMENT);
  const egg = /#egg=([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(target)?.[1];
  // A VCS checkout (`-e git+https://…#egg=botocore`) is the named project at no registry version.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target)) return egg ? { name: egg, scope: 'main', kind: 'dependency', line } : undefined;
  const dir = target.replace(/#.*$/, '').replace(/\[[^\]]*\]$/, '');
  // Without `#egg=` the directory's name stands for the project's (`-e .` keeps `.`).
  const last = dir.replace(/\/+$/, '').split('/').pop();
  const name = egg ?? (last && last !== '.' && last !== '..' ? last : dir);
  return { name, scope: 'main', kind: 'path', target: dir, line };
}

/**
 * requirements*.txt (pip's format): one requirement per logical line; `\` continues a line;
 * options (`--hash`, `-i`, `--no-binary`…) and bare URLs or paths are not requirements;
 * `-e ./dir` is a path dependency; `-r`/`-c` name other files, returned as `includes`
 * (repository paths resolved against this file's directory, as pip does).
 */
export function parseRequirements(text: string, path = ''): ParsedManifest {
  const dependencies: ManifestDependency[] = [];
  const includes: string[] = [];
  for (const logical of logicalLines(text)) {
    const body = logical.text.trim();
    if (!body) continue;
    const first = logical.pieces[0].line;
    if (body.startsWith('-')) {
      const include = INCLUDE.exec(body);
      const target = include ? includedPath(path, include[1]) : undefined;
      if (target && !includes.includes(target)) includes.push(target);
      const edit = EDITABLE.exec(body);
      const dep = edit ? editable(edit[1], first) : undefined;
      if (dep) dependencies.push(dep);
      continue;
    }
    // Per-requirement options (`--hash=…`, `--config-settings`) follow the requirement.
    const lead = logical.text.length - logical.text.trimStart().length;
    const option = body.search(/\s--?[A-Za-z]/);
    const spec = option < 0 ? body : body.slice(0, option);
    const req = parseRequirement(spec);
    if (!req) continue;
    const dep: ManifestDependency = { name: req.name, scope: 'main', kind: 'dependency', line: first };
    if (req.version) {
      dep.version = req.version;
      dep.versionAt = { path, line: lineOf(logical, lead + (req.versionIndex ?? 0)) };
    }
    dependencies.push(dep);
  }
  return includes.length ? { dependencies, includes } : { dependencies };
}
