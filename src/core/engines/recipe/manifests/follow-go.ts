import type { SpanEdit } from '../recipe-types.js';
import { dirname, eolOf, nearest, type FollowStep, type FollowThrough, type ManifestAccess } from './follow-types.js';

interface GoRequire {
  path: string;
  version: string;
  /** Offset of the line's start. */
  lineStart: number;
  line: number;
  inBlock: number | undefined;
}

interface GoMod {
  module?: string;
  requires: GoRequire[];
  /** `require (` blocks: the offset of the `)` line and whether every entry is `// indirect`. */
  blocks: { close: number; indirectOnly: boolean }[];
}

/** The module path and requirements of a go.mod, with line offsets. */
export function readGoMod(text: string): GoMod {
  const out: GoMod = { requires: [], blocks: [] };
  let block: { close: number; indirectOnly: boolean } | undefined;
  let offset = 0;
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const trimmed = raw.trim();
    const module = /^module\s+("?)([^\s"]+)\1/.exec(trimmed);
    if (module) out.module = module[2];
    if (block) {
      if (trimmed.startsWith(')')) {
        block.close = offset;
        out.blocks.push(block);
        block = undefined;
      } else {
        const m = /^(\S+)\s+(\S+)/.exec(trimmed);
        if (m && !m[1].startsWith('//')) {
          out.requires.push({ path: m[1], version: m[2], lineStart: offset, line, inBlock: out.blocks.length });
          if (!trimmed.includes('// indirect')) block.indirectOnly = false;
        }
      }
    } else if (/^require\s*\(/.test(trimmed)) block = { close: -1, indirectOnly: true };
    else {
      const single = /^require\s+(\S+)\s+(\S+)/.exec(trimmed);
      if (single) out.requires.push({ path: single[1], version: single[2], lineStart: offset, line, inBlock: undefined });
    }
    offset += raw.length + 1;
  }
  return out;
}

/** `a` is the module path `b` or a package inside it. */
const under = (a: string, b: string) => a === b || a.startsWith(`${b}/`);

/**
 * The module that provides an import path, as far as the path alone tells: on the big code
 * hosts a module is `host/owner/repo` (plus a `/vN` major-version suffix); elsewhere the path itself.
 */
export function goModuleOf(importPath: string): string {
  const segments = importPath.split('/');
  const hosted = ['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org'].includes(segments[0]) || importPath.startsWith('golang.org/x/');
  if (!hosted || segments.length <= 3) return importPath;
  return segments.slice(0, /^v\d+$/.test(segments[3] ?? '') ? 4 : 3).join('/');
}

/** The span that marks one requirement `// indirect` (undefined when it is already). */
function markIndirect(text: string, require: GoRequire): SpanEdit | undefined {
  const newline = text.indexOf('\n', require.lineStart);
  const end = newline < 0 ? text.length : text[newline - 1] === '\r' ? newline - 1 : newline;
  const line = text.slice(require.lineStart, end);
  if (/\/\/\s*indirect\b/.test(line)) return undefined;
  const comment = line.indexOf('//');
  if (comment >= 0) return { start: require.lineStart + comment, end: require.lineStart + comment + 2, text: '// indirect;' };
  const trimmed = line.replace(/\s+$/, '');
  return { start: require.lineStart + trimmed.length, end, text: ' // indirect' };
}

/** Whether a Go file owned by `gomod` (not a nested module's) still names an import path under `module`. */
async function moduleImports(module: string, gomod: string, paths: ReadonlySet<string>, access: ManifestAccess): Promise<boolean> {
  for (const path of paths) {
    if (!path.endsWith('.go') || nearest(path, 'go.mod', paths) !== gomod) continue;
    const text = await access.read(path);
    if (text === undefined || text.includes(`"${module}"`) || text.includes(`"${module}/`)) return true;
  }
  return false;
}

/** The span that adds `path version` to go.mod: into the first direct require block (sorted when it is), else as a line of its own. */
function addRequire(text: string, mod: GoMod, path: string, version: string): SpanEdit {
  const eol = eolOf(text);
  const blockIndex = mod.blocks.findIndex((b) => !b.indirectOnly);
  if (blockIndex >= 0) {
    const entries = mod.requires.filter((r) => r.inBlock === blockIndex);
    const sorted = entries.every((r, i) => i === 0 || entries[i - 1].path <= r.path);
    const indent = entries.length ? /^[ \t]*/.exec(text.slice(entries[0].lineStart))![0] : '\t';
    const before = sorted ? entries.find((r) => r.path > path) : undefined;
    const at = before ? before.lineStart : mod.blocks[blockIndex].close;
    return { start: at, end: at, text: `${indent}${path} ${version}${eol}` };
  }
  const last = mod.requires.filter((r) => r.inBlock === undefined).pop();
  if (last) {
    const end = text.indexOf('\n', last.lineStart);
    const at = end < 0 ? text.length : end + 1;
    return { start: at, end: at, text: `${end < 0 ? eol : ''}require ${path} ${version}${eol}` };
  }
  const tail = text.endsWith('\n') ? '' : eol;
  return { start: text.length, end: text.length, text: `${tail}${eol}require ${path} ${version}${eol}` };
}

/**
 * Go: the nearest go.mod of each changed file must require the module of the new import path
 * (the module itself and the standard library need nothing). With `version` the requirement is
 * added; otherwise the note names the go.mod and the line. A requirement on the old module is flagged.
 */
export async function followGo(step: FollowStep, changed: readonly string[], access: ManifestAccess): Promise<FollowThrough> {
  const out: FollowThrough = { edits: [], notes: [] };
  if (!step.to.split('/')[0].includes('.')) return out;
  const paths = new Set(access.paths);
  const owners = new Set(changed.map((p) => nearest(p, 'go.mod', paths) ?? ''));
  for (const gomod of [...owners].sort()) {
    if (!gomod) {
      out.notes.push(`no go.mod owns the changed Go files; the requirement on ${step.to} was not checked`);
      continue;
    }
    const text = await access.read(gomod);
    if (text === undefined) continue;
    const mod = readGoMod(text);
    if (mod.module && under(step.to, mod.module)) continue;
    const spans: SpanEdit[] = [];
    const old = mod.requires.find((r) => under(step.from, r.path) && !under(step.to, r.path));
    if (old) {
      // With a version the go.mod is being edited anyway: drop the old requirement as `go mod tidy`
      // would, when no Go file of this module still imports from it.
      if (step.version && !access.cannotEdit(gomod) && !(await moduleImports(old.path, gomod, paths, access))) {
        // A dependency may still need it: it is marked indirect, as `go mod tidy` would keep it, and tidy decides.
        const mark = markIndirect(text, old);
        if (mark) spans.push(mark);
        out.notes.push(
          `${gomod}: require ${old.path} ${old.version} is now \`// indirect\` (nothing in the module imports it); \`go mod tidy\` drops it unless a dependency needs it`,
        );
      } else out.notes.push(`${gomod}:${old.line} still requires ${old.path} ${old.version}; \`go mod tidy\` drops it once nothing imports it`);
    }
    const flush = () => {
      if (spans.length) out.edits.push({ path: gomod, spans });
    };
    if (mod.requires.some((r) => under(step.to, r.path))) {
      flush();
      continue;
    }
    const module = step.artifact ?? goModuleOf(step.to);
    const dir = dirname(gomod);
    if (step.version) {
      const version = /^v/.test(step.version) ? step.version : `v${step.version}`;
      const why = access.cannotEdit(gomod);
      if (!why) {
        spans.push(addRequire(text, mod, module, version));
        out.dependency = module;
        out.notes.push(`${gomod}: added require ${module} ${version} for the new import ${step.to}`);
      } else out.notes.push(`${gomod} does not require ${module} and ${why}; add: require ${module} ${version}`);
      flush();
      continue;
    }
    flush();
    out.notes.push(
      `${gomod} does not require ${module}, so the change does not build: add \`require ${module} <version>\` (or run \`go get ${module}\`${dir ? ` in ${dir}` : ''})`,
    );
  }
  return out;
}
