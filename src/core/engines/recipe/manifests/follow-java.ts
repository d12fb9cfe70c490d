import { scanPom, type Coordinates } from '../bump-maven.js';
import type { SpanEdit } from '../recipe-types.js';
import { JAVA_PACKAGE_ARTIFACTS, JAVA_UMBRELLA_ARTIFACTS } from './known-namespaces.js';
import { ancestors, eolOf, indentAt, inDir, lineAt, nearest, type FollowStep, type FollowThrough, type ManifestAccess } from './follow-types.js';

/** `a` is the package `b` or inside it. */
const under = (a: string, b: string) => a === b || a.startsWith(`${b}.`);

interface Need {
  pkg: string;
  /** Artifacts known to provide the package (the first is the one to add); empty when unknown. */
  artifacts: readonly string[];
  /** Artifacts of the old package this one replaces. */
  old: readonly string[];
}

const entryFor = (pkg: string) => JAVA_PACKAGE_ARTIFACTS.filter((e) => under(pkg, e.pkg)).sort((a, b) => b.pkg.length - a.pkg.length)[0];

/** The packages the migration now imports, with their known artifacts: the step's `to`, or the known packages under it that the changed files use. */
function needsOf(step: FollowStep, texts: readonly string[]): Need[] {
  const counterpart = (pkg: string) => entryFor(step.from + pkg.slice(step.to.length))?.artifacts ?? [];
  const direct = entryFor(step.to);
  if (direct || step.artifact)
    return [{ pkg: step.to, artifacts: step.artifact ? [step.artifact] : direct!.artifacts, old: entryFor(step.from)?.artifacts ?? [] }];
  const used = JAVA_PACKAGE_ARTIFACTS.filter((e) => under(e.pkg, step.to) && texts.some((t) => t.includes(`${e.pkg}.`)));
  if (used.length) return used.map((e) => ({ pkg: e.pkg, artifacts: e.artifacts, old: counterpart(e.pkg) }));
  return [{ pkg: step.to, artifacts: [], old: [] }];
}

const ga = (c: Coordinates) => `${c.groupId}:${c.artifactId}`;
const isProjectDependency = (c: Coordinates) => c.kind === 'dependency' && c.path[0] === 'dependencies' && c.path[1] === 'project';

/** A dependency provides the package: a known artifact, an umbrella API, or a groupId of two or more segments that prefixes it. */
function provides(c: Coordinates, need: Need): boolean {
  if (need.artifacts.includes(ga(c))) return true;
  if (JAVA_UMBRELLA_ARTIFACTS.some((u) => under(need.pkg, u.prefix) && u.artifacts.includes(ga(c)))) return true;
  return !!c.groupId && c.groupId.includes('.') && under(need.pkg, c.groupId);
}

/** The dependency element to add, indented like the pom's last project dependency. */
function insertDependency(text: string, deps: Coordinates[], artifact: string, version: string): SpanEdit | undefined {
  const last = deps[deps.length - 1];
  if (!last?.groupIdLeaf) return undefined;
  const [groupId, artifactId] = artifact.split(':');
  const eol = eolOf(text);
  const outer = indentAt(text, last.start);
  const inner = indentAt(text, last.groupIdLeaf.start);
  const block = [
    `${outer}<dependency>`,
    `${inner}<groupId>${groupId}</groupId>`,
    `${inner}<artifactId>${artifactId}</artifactId>`,
    `${inner}<version>${version}</version>`,
    `${outer}</dependency>`,
  ].join(eol);
  return { start: last.end, end: last.end, text: `${eol}${block}` };
}

/** Rewrite an old dependency's coordinates (and a literal or property version) to the new artifact. */
function replaceDependency(c: Coordinates, artifact: string, version: string): SpanEdit[] {
  const [groupId, artifactId] = artifact.split(':');
  const spans: SpanEdit[] = [];
  const leaf = (l: { start: number; end: number; text: string } | undefined, value: string) => {
    if (!l) return;
    const lead = /^\s*/.exec(l.text)![0].length;
    spans.push({ start: l.start + lead, end: l.start + lead + l.text.trim().length, text: value });
  };
  leaf(c.groupIdLeaf, groupId);
  leaf(c.artifactIdLeaf, artifactId);
  leaf(c.version, version);
  return spans;
}

/** Maven: poms from the module's own up the tree (its parents, by directory), nearest first. */
function pomChain(path: string, paths: ReadonlySet<string>): string[] {
  return ancestors(path)
    .map((d) => inDir(d, 'pom.xml'))
    .filter((p) => paths.has(p));
}

/**
 * Java: the build owning each changed file (nearest pom.xml and its parent poms, else the
 * nearest Gradle build) must declare an artifact that provides the new packages. With
 * `version` and a known artifact the old namespace's dependency is replaced in place, or the new
 * one added; otherwise notes name the manifest and the dependency to add. Dependencies still
 * on the old namespace's artifacts are flagged.
 */
export async function followJava(step: FollowStep, changed: readonly string[], access: ManifestAccess): Promise<FollowThrough> {
  const out: FollowThrough = { edits: [], notes: [] };
  if (staysInProject(step, access)) return out;
  const texts = (await Promise.all(changed.map((p) => access.read(p)))).filter((t): t is string => t !== undefined);
  const needs = needsOf(step, texts);
  const edits = new Map<string, SpanEdit[]>();
  for (const [owner, chain] of ownerChains(changed, new Set(access.paths))) {
    if (!owner) out.notes.push(`no pom.xml or Gradle build owns the changed Java files; the dependency for ${step.to} was not checked`);
    else if (!chain.length) await followGradle(step, owner, needs, access, out, edits);
    else {
      const poms = await readPoms(chain, access);
      const build: PomBuild = { step, access, out, edits, poms, siblings: await siblingDependencies(poms, chain, access) };
      for (const need of needs) followPomNeed(build, need);
    }
  }
  for (const [path, spans] of edits) out.edits.push({ path, spans });
  return out;
}

/** The new namespace is this repository's own, or a move inside one project's namespace (three shared segments, e.g. com.fasterxml.jackson) that stays within its artifacts. */
function staysInProject(step: FollowStep, access: ManifestAccess): boolean {
  const own = step.to.replace(/\./g, '/');
  if (access.paths.some((p) => p.endsWith('.java') && p.includes(`/${own}/`))) return true;
  const [from, to] = [step.from.split('.'), step.to.split('.')];
  return from.length >= 3 && to.length >= 3 && from.slice(0, 3).join('.') === to.slice(0, 3).join('.');
}

/** The build owning each changed file (its nearest pom, else its nearest Gradle build; '' for none) with the pom chain up to the root, by owner. */
function ownerChains(changed: readonly string[], paths: ReadonlySet<string>): [string, string[]][] {
  const chains = new Map<string, string[]>();
  for (const path of changed) {
    const chain = pomChain(path, paths);
    const key = chain[0] ?? nearest(path, 'build.gradle', paths) ?? nearest(path, 'build.gradle.kts', paths) ?? '';
    if (!chains.has(key)) chains.set(key, chain);
  }
  return [...chains].sort(([a], [b]) => (a < b ? -1 : 1));
}

interface Pom {
  path: string;
  text: string;
  coords: Coordinates[];
}

/** One Maven build being checked: its pom chain, the project dependencies its sibling modules bring, and where edits and notes go. */
interface PomBuild {
  step: FollowStep;
  access: ManifestAccess;
  out: FollowThrough;
  edits: Map<string, SpanEdit[]>;
  poms: Pom[];
  siblings: Coordinates[];
}

async function readPoms(chain: readonly string[], access: ManifestAccess): Promise<Pom[]> {
  const poms: Pom[] = [];
  for (const pom of chain) {
    const text = await access.read(pom);
    if (text !== undefined) poms.push({ path: pom, text, coords: scanPom(text).coordinates });
  }
  return poms;
}

/** A dependency on another module of this repository brings that module's dependencies (compile scope is transitive). */
async function siblingDependencies(poms: readonly Pom[], chain: readonly string[], access: ManifestAccess): Promise<Coordinates[]> {
  const siblings: Coordinates[] = [];
  for (const c of poms[0]?.coords.filter(isProjectDependency) ?? []) {
    const module = access.paths.find((p) => c.artifactId && (p === `${c.artifactId}/pom.xml` || p.endsWith(`/${c.artifactId}/pom.xml`)));
    const text = module && !chain.includes(module) ? await access.read(module) : undefined;
    if (text !== undefined) siblings.push(...scanPom(text).coordinates.filter(isProjectDependency));
  }
  return siblings;
}

/** One needed package in a Maven build: old artifacts replaced (or flagged), else the providing artifact added (or asked for). */
function followPomNeed(build: PomBuild, need: Need): void {
  const { step, poms, siblings } = build;
  const artifact = need.artifacts[0];
  const replacedThere = (c: Coordinates) => !!(step.version && artifact && need.old.includes(ga(c)));
  const viaSibling = siblings.some((c) => provides(c, need) || replacedThere(c));
  const olds = poms.flatMap((p) => p.coords.filter((c) => c.kind === 'dependency' && need.old.includes(ga(c))).map((c) => ({ pom: p, c })));
  replaceOldArtifacts(build, need, olds);
  // An old artifact named above already says what to do (replace it); no second note asks to add one.
  if (olds.length || viaSibling || poms.some((p) => p.coords.some((c) => isProjectDependency(c) && provides(c, need)))) return;
  if (poms[0]) declareNeed(build, need, poms[0]);
}

function replaceOldArtifacts(build: PomBuild, need: Need, olds: { pom: Pom; c: Coordinates }[]): void {
  const { step, access, out, edits } = build;
  const artifact = need.artifacts[0];
  const replaceable = step.version && artifact ? olds.filter(({ pom }) => !access.cannotEdit(pom.path)) : [];
  for (const { pom, c } of olds) {
    const at = `${pom.path}:${lineAt(pom.text, c.start)}`;
    if (replaceable.some((r) => r.c === c) && artifact && step.version) {
      if (edits.get(pom.path)?.some((s) => s.start === c.groupIdLeaf?.start)) continue;
      edits.set(pom.path, [...(edits.get(pom.path) ?? []), ...replaceDependency(c, artifact, step.version)]);
      out.notes.push(`${at}: replaced ${ga(c)} (the old namespace's API) with ${artifact}:${step.version}`);
    } else
      out.notes.push(`${at} still depends on ${ga(c)}, the artifact of ${step.from}; replace it with ${artifact ?? `the artifact that provides ${need.pkg}`}`);
  }
}

/** The build declares nothing that provides the package: add the artifact with `version`, else say what to add. */
function declareNeed(build: PomBuild, need: Need, target: Pom): void {
  const { step, access, out, edits } = build;
  const artifact = need.artifacts[0];
  const dependency = artifact
    ? `<dependency><groupId>${artifact.split(':')[0]}</groupId><artifactId>${artifact.split(':')[1]}</artifactId><version>${step.version ?? '…'}</version></dependency>`
    : undefined;
  const why = step.version ? access.cannotEdit(target.path) : undefined;
  const insert =
    step.version && artifact && !why ? insertDependency(target.text, target.coords.filter(isProjectDependency), artifact, step.version) : undefined;
  if (insert) {
    edits.set(target.path, [...(edits.get(target.path) ?? []), insert]);
    out.notes.push(`${target.path}: added the dependency ${artifact}:${step.version} for ${need.pkg}`);
  } else if (dependency)
    out.notes.push(`${target.path} declares no dependency that provides ${need.pkg} (it may come transitively); ${why ? `${why}; ` : ''}add ${dependency}`);
  else
    out.notes.push(
      `${target.path} declares no dependency whose groupId prefixes ${need.pkg}, and the artifact is not known; if it does not come transitively, add the artifact that provides it (the step's \`artifact\` and \`version\` add it)`,
    );
}

const GRADLE_COORDINATE = /(["'])([\w.-]+):([\w.-]+)(?::([^"'\s$]+))?\1/g;

/** Gradle: declared when a coordinate string names a providing artifact; an old coordinate is rewritten in place with `version`. */
async function followGradle(
  step: FollowStep,
  build: string,
  needs: Need[],
  access: ManifestAccess,
  out: FollowThrough,
  edits: Map<string, SpanEdit[]>,
): Promise<void> {
  const text = await access.read(build);
  if (text === undefined) return;
  const coords = [...text.matchAll(GRADLE_COORDINATE)].map((m) => ({
    groupId: m[2],
    artifactId: m[3],
    version: m[4],
    start: m.index + 1,
    end: m.index + m[0].length - 1,
  }));
  for (const need of needs) {
    const artifact = need.artifacts[0];
    const asCoordinates = (c: (typeof coords)[number]) =>
      ({ kind: 'dependency', groupId: c.groupId, artifactId: c.artifactId, path: [], start: c.start, end: c.end }) as Coordinates;
    const olds = coords.filter((c) => need.old.includes(`${c.groupId}:${c.artifactId}`));
    for (const c of olds) {
      const at = `${build}:${lineAt(text, c.start)}`;
      if (step.version && artifact && !access.cannotEdit(build)) {
        edits.set(build, [...(edits.get(build) ?? []), { start: c.start, end: c.end, text: `${artifact}:${step.version}` }]);
        out.notes.push(`${at}: replaced ${c.groupId}:${c.artifactId} (the old namespace's API) with ${artifact}:${step.version}`);
      } else out.notes.push(`${at} still depends on ${c.groupId}:${c.artifactId}, the artifact of ${step.from}`);
    }
    if ((step.version && artifact && olds.length) || coords.some((c) => provides(asCoordinates(c), need))) continue;
    out.notes.push(
      `${build} declares no dependency that provides ${need.pkg} (it may come transitively); add ${artifact ? `implementation("${artifact}:${step.version ?? '<version>'}")` : 'the artifact that provides it'}`,
    );
  }
}
