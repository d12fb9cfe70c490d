import type { ManifestDependency } from './manifest-schema.js';
import type { ParsedManifest } from './parse-util.js';

/** A go.mod line split at its `//` comment (a `//` inside a quoted path is text). */
function splitComment(line: string): { code: string; comment: string } {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === '`') quote = ch;
    else if (ch === '/' && line[i + 1] === '/') return { code: line.slice(0, i), comment: line.slice(i + 2).trim() };
  }
  return { code: line, comment: '' };
}

const unquote = (s: string): string => s.replace(/^["`]|["`]$/g, '');
const isLocalPath = (target: string): boolean => target.startsWith('./') || target.startsWith('../');

/** What the directives of one go.mod add up to. */
interface GoModWalk {
  path: string;
  name?: string;
  facts: Record<string, string>;
  dependencies: ManifestDependency[];
}

function addRequire(walk: GoModWalk, parts: string[], comment: string, line: number): void {
  if (parts.length < 2) throw new Error(`line ${line}: require needs a module path and a version`);
  // Go marks a requirement `// indirect` (possibly followed by `; more comment`).
  const indirect = /^indirect(;|$)/.test(comment);
  walk.dependencies.push({
    name: parts[0],
    version: parts[1],
    kind: 'dependency',
    line,
    versionAt: { path: walk.path, line },
    ...(indirect ? { indirect: true } : {}),
  });
}

/**
 * `replace old [v] => ./dir` is a local path dependency; `replace old [v] => new v1.2.3` puts the
 * replacement module in the build, so it is listed (scope `replace`) with the version a bump
 * edits. A replacement by an absolute path points outside the repository and is left out.
 */
function addReplace(walk: GoModWalk, parts: string[], line: number): void {
  const arrow = parts.indexOf('=>');
  const target = parts[arrow + 1];
  if (arrow < 1 || !target) throw new Error(`line ${line}: replace needs "old => new"`);
  if (isLocalPath(target)) walk.dependencies.push({ name: parts[0], kind: 'path', target, line });
  else if (parts[arrow + 2]) {
    walk.dependencies.push({ name: target, version: parts[arrow + 2], scope: 'replace', kind: 'dependency', line, versionAt: { path: walk.path, line } });
  }
}

/** One directive (on its own line or inside a block); exclude, retract, tool and the rest add nothing. */
function directive(walk: GoModWalk, verb: string, rest: string, comment: string, line: number): void {
  const parts = rest
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => (p === '=>' ? p : unquote(p)));
  if (parts.length === 0) return;
  if (verb === 'require') addRequire(walk, parts, comment, line);
  else if (verb === 'replace') addReplace(walk, parts, line);
  else if (verb === 'module') walk.name = parts[0];
  else if (verb === 'go' || verb === 'toolchain') walk.facts[verb] = parts[0];
}

/**
 * A go.mod's module path, `go`/`toolchain` facts and requirements, each with its line (a nested
 * module's go.mod is a manifest of its own: only this file's directives are read).
 */
export function parseGoMod(text: string, path: string): ParsedManifest {
  const walk: GoModWalk = { path, facts: {}, dependencies: [] };
  let block: { verb: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const { code, comment } = splitComment(raw);
    const trimmed = code.trim();
    if (!trimmed) return;
    if (block) {
      if (trimmed === ')') block = undefined;
      else directive(walk, block.verb, trimmed, comment, line);
      return;
    }
    const m = /^([A-Za-z]+)(.*)$/.exec(trimmed);
    if (!m) throw new Error(`line ${line}: not a go.mod directive`);
    if (m[2].trim() === '(') block = { verb: m[1], line };
    else directive(walk, m[1], m[2], comment, line);
  });
  if (block) throw new Error(`line ${block.line}: the ${block.verb} block is never closed`);
  if (!walk.name) throw new Error('go.mod has no module directive');
  return { name: walk.name, dependencies: walk.dependencies, facts: walk.facts };
}

export function parseGoWork(text: string): ParsedManifest {
  const src = text.replace(/\/\/.*$/gm, '');
  const members: string[] = [];
  for (const m of src.matchAll(/\buse\s*\(([^)]*)\)/g)) members.push(...m[1].split(/\s+/).filter(Boolean));
  for (const m of src.matchAll(/^\s*use\s+([^\s(]+)\s*$/gm)) members.push(m[1]);
  return { members: members.map((m) => m.replace(/^"|"$/g, '')), dependencies: [] };
}
