import { normalizePythonName } from '../bump-ecosystems.js';
import { manifestKindFor } from '../../../manifests/manifest-kinds.js';
import type { SpanEdit } from '../recipe-types.js';
import { PYTHON_DISTRIBUTIONS, PYTHON_STDLIB } from './known-namespaces.js';
import { ancestors, dirname, eolOf, isSorted, type FollowStep, type FollowThrough, type ManifestAccess } from './follow-types.js';

const PYTHON_KINDS = new Set(['requirements', 'pyproject', 'setup-py', 'setup-cfg']);

/** The distribution that provides an import (`yaml` -> PyYAML); undefined for the standard library. */
export function pythonDistributionOf(module: string): string | undefined {
  const segments = module.split('.');
  for (let n = segments.length; n > 0; n--) {
    const known = PYTHON_DISTRIBUTIONS[segments.slice(0, n).join('.')];
    if (known) return known;
  }
  return PYTHON_STDLIB.has(segments[0]) ? undefined : segments[0];
}

const NAME = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(?:[<>=!~;(@]|$)/;

/** Requirement names a Python manifest declares: each line and each quoted string that reads as a PEP 508 requirement. */
function declaredNames(text: string): Set<string> {
  const out = new Set<string>();
  const add = (s: string) => {
    const m = NAME.exec(s);
    if (m) out.add(normalizePythonName(m[1]));
  };
  for (const line of text.split('\n')) if (!/^\s*[#-]/.test(line)) add(line.replace(/\s+#.*$/, ''));
  for (const m of text.matchAll(/(["'])([^"'\n]+)\1/g)) add(m[2]);
  return out;
}

/** A `name==version` line for requirements.txt: in order when the file's requirements are sorted, else at the end. */
function addRequirementLine(text: string, dist: string, version: string): SpanEdit {
  const eol = eolOf(text);
  const lines: { name: string; offset: number }[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line);
    if (m) lines.push({ name: m[1], offset });
    offset += line.length + 1;
  }
  const operator = /^\s*[\w.-]+\s*(\[[^\]]*\])?\s*(>=|~=)/m.exec(text)?.[2] ?? '==';
  const entry = `${dist}${operator}${version}`;
  const next = isSorted(lines, (l) => l.name) ? lines.find((l) => l.name.toLowerCase() > dist.toLowerCase()) : undefined;
  if (next) return { start: next.offset, end: next.offset, text: `${entry}${eol}` };
  return { start: text.length, end: text.length, text: `${text === '' || text.endsWith('\n') ? '' : eol}${entry}${eol}` };
}

/** A requirement string in pyproject's `[project] dependencies = [...]` (one entry per line), after its siblings or in order when they are sorted. */
function addPyprojectDependency(text: string, dist: string, version: string): SpanEdit | undefined {
  const project = /^\[project\][^\n]*\n/m.exec(text);
  if (!project) return undefined;
  const open = /^dependencies\s*=\s*\[[ \t]*\r?\n/m.exec(text.slice(project.index + project[0].length).split(/^\[/m)[0]);
  if (!open) return undefined;
  const eol = eolOf(text);
  const start = project.index + project[0].length + open.index + open[0].length;
  const entries: { name: string; offset: number; line: string }[] = [];
  let offset = start;
  for (const line of text.slice(start).split('\n')) {
    if (/^\s*\]/.test(line)) break;
    const m = /^\s*(["'])([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line);
    if (m) entries.push({ name: m[2], offset, line: line.replace(/\r$/, '') });
    else if (line.trim() && !line.trim().startsWith('#')) return undefined;
    offset += line.length + 1;
  }
  if (!entries.length) return undefined;
  const [indent, quote] = [/^\s*/.exec(entries[0].line)![0], /^\s*(["'])/.exec(entries[0].line)![1]];
  const operator = entries.filter((e) => e.line.includes('>=')).length >= entries.filter((e) => e.line.includes('==')).length ? '>=' : '==';
  const entry = `${indent}${quote}${dist}${operator}${version}${quote},`;
  const next = isSorted(entries, (e) => e.name) ? entries.find((e) => e.name.toLowerCase() > dist.toLowerCase()) : undefined;
  if (next) return { start: next.offset, end: next.offset, text: `${entry}${eol}` };
  const last = entries[entries.length - 1];
  const comma = /,\s*(#.*)?$/.test(last.line) ? '' : ',';
  const at = last.offset + last.line.replace(/\s*(#.*)?$/, '').length;
  return { start: at, end: at, text: `${comma}${eol}${entry.replace(/,$/, comma ? '' : ',')}` };
}

/**
 * Python: the project owning each changed file (the nearest directory up the tree with
 * requirements files, pyproject.toml, setup.py or setup.cfg) must declare the distribution of
 * the new module. With `version` it is added to requirements.txt when the project has one;
 * otherwise the note names the manifest and the requirement. The old distribution is flagged.
 */
export async function followPython(step: FollowStep, changed: readonly string[], access: ManifestAccess): Promise<FollowThrough> {
  const out: FollowThrough = { edits: [], notes: [] };
  const dist = step.artifact ?? pythonDistributionOf(step.to);
  const oldDist = pythonDistributionOf(step.from);
  if (!dist || (oldDist && normalizePythonName(dist) === normalizePythonName(oldDist))) return out;
  const top = step.to.split('.')[0];
  if (access.paths.some((p) => p === `${top}/__init__.py` || p.endsWith(`/${top}/__init__.py`) || p === `${top}.py`)) return out;
  const projects = owningProjects(changed, access.paths);
  if (!projects.size) out.notes.push(`no requirements file, pyproject.toml, setup.py or setup.cfg owns the changed files; ${dist} was not checked`);
  for (const manifests of projects.values()) await followProject(step, manifests, { dist, oldDist }, access, out);
  return out;
}

/** The project of each changed file (the nearest directory with Python manifests, or a `requirements/` directory of them), with its manifests. */
function owningProjects(changed: readonly string[], paths: readonly string[]): Map<string, string[]> {
  const manifestsIn = (dir: string) =>
    paths.filter((p) => PYTHON_KINDS.has(manifestKindFor(p) ?? '') && (dirname(p) === dir || dirname(p) === (dir ? `${dir}/requirements` : 'requirements')));
  const projects = new Map<string, string[]>();
  for (const path of changed) {
    const dir = ancestors(path).find((d) => manifestsIn(d).length > 0);
    if (dir !== undefined && !projects.has(dir)) projects.set(dir, manifestsIn(dir).sort());
  }
  return projects;
}

/** One project: the old distribution flagged; unless declared, the new one added with `version` (requirements.txt, else pyproject.toml) or asked for. */
async function followProject(
  step: FollowStep,
  manifests: string[],
  names: { dist: string; oldDist: string | undefined },
  access: ManifestAccess,
  out: FollowThrough,
): Promise<void> {
  const { dist, oldDist } = names;
  const texts = new Map<string, string>();
  for (const m of manifests) {
    const text = await access.read(m);
    if (text !== undefined) texts.set(m, text);
  }
  const declaring = (name: string) => [...texts].filter(([, t]) => declaredNames(t).has(normalizePythonName(name))).map(([p]) => p);
  if (oldDist) for (const p of declaring(oldDist)) out.notes.push(`${p} still declares ${oldDist}; remove it once nothing imports ${step.from}`);
  if (declaring(dist).length) return;
  // Runtime requirements only: a dev or test requirements file is not where a module's import is declared.
  const requirements = manifests.find((m) => /(^|\/)requirements(\/(base|main|prod|production|common))?\.txt$/.test(m));
  const pyproject = manifests.find((m) => m.endsWith('pyproject.toml'));
  const target = requirements ?? pyproject ?? manifests[0];
  const why = step.version ? access.cannotEdit(target) : undefined;
  const span =
    !step.version || why
      ? undefined
      : requirements
        ? addRequirementLine(texts.get(requirements) ?? '', dist, step.version)
        : pyproject
          ? addPyprojectDependency(texts.get(pyproject) ?? '', dist, step.version)
          : undefined;
  if (span) {
    out.edits.push({ path: target, spans: [span] });
    out.dependency = dist;
    out.notes.push(`${target}: added ${dist} ${step.version} for the new import ${step.to}`);
  } else
    out.notes.push(
      `${manifests.join(', ')} ${manifests.length > 1 ? 'do' : 'does'} not declare ${dist}${why ? `; ${target} ${why}` : ''}; add "${dist}${step.version ? `==${step.version}` : ''}" to ${target}`,
    );
}
