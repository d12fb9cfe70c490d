import { dryRunStep, recipeCandidates, type DryRun } from '../engines/recipe/recipe-candidates.js';
import { recipeFor } from '../engines/recipe/registry.js';
import { renderAgentBlock } from '../phases/analysis-report.js';
import type { ProseReading } from '../prose/prose-reading.js';
import { readProse } from '../prose/read-prose.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import { RecipeStep } from '../task/recipe-steps.js';
import { bare, bumpLeftovers, comparable, declarationsOf, JVM_KINDS, sameKey, versionMisfit, type BumpStep, type Declaration } from './bump-fit.js';
import type { InferredReading, InferredSteps } from './inferred-steps.js';

/** What grounding reads: the map's manifests, the editable files and their text, the syntax engine. */
export interface GroundingContext {
  map: Pick<RepoMap, 'manifests'>;
  /** The files a step may change (editable under the policy and the task scope). */
  editable: string[];
  read(path: string): Promise<string | undefined>;
  isLockfile(path: string): boolean;
  syntax: TreeSyntaxService;
}

/** Readings grounded per issue; a grouped update past this is better split. */
const MAX_GROUNDED_READINGS = 30;
/** Candidate files asked for notes when a step changes nothing (a downgrade, a version that differs). */
const MAX_NOTE_FILES = 50;

type PackageFit = { package: string; renamed: boolean } | { why: string };

/**
 * The package a reading names, spelled as the manifests spell it: the same name (PEP 503 for
 * Python), or, for a bare artifact id (`jackson-databind`), the one Maven or Gradle coordinate
 * that ends in it. Two coordinates ending in it are two readings: nothing runs.
 */
export function fitPackage(pkg: string, map: Pick<RepoMap, 'manifests'>): PackageFit {
  const coordinates = new Set<string>();
  for (const manifest of map.manifests) {
    for (const dep of manifest.dependencies) {
      if (comparable(manifest.kind, dep.name) === comparable(manifest.kind, pkg)) return { package: pkg, renamed: false };
      if (JVM_KINDS.has(manifest.kind) && !pkg.includes(':') && dep.name.endsWith(`:${pkg}`)) coordinates.add(dep.name);
    }
  }
  if (coordinates.size === 1) return { package: [...coordinates][0], renamed: true };
  // Renovate names a group by the catalog's version key (`square.okio`, `kotlinxCoroutines`): the packages that key sets.
  const keyed = new Set<string>();
  for (const manifest of map.manifests)
    if (manifest.kind === 'gradle-catalog')
      for (const dep of manifest.dependencies) if (dep.versionRef !== undefined && sameKey(dep.versionRef, pkg)) keyed.add(dep.name);
  if (keyed.size > 0) return { package: [...keyed].sort()[0], renamed: true };
  if (coordinates.size > 1)
    return {
      why: `\`${pkg}\` could be ${[...coordinates]
        .sort()
        .slice(0, 5)
        .map((c) => `\`${c}\``)
        .join(' or ')}: name the one to change`,
    };
  return { why: `\`${pkg}\` is not declared in any manifest of the repository` };
}

const quote = (text: string): string => `\`${text}\``;

/** Why a step the schema accepts changes no file: the recipe's own notes, or what it looked for. */
async function whyNothing(step: RecipeStep, run: DryRun, ctx: GroundingContext): Promise<string> {
  const recipe = recipeFor(step);
  const notes = new Set(run.leftAlone.map((l) => `${l.path}: ${l.why}`));
  if (notes.size === 0) {
    for (const path of recipeCandidates(step, ctx.editable, ctx.isLockfile).slice(0, MAX_NOTE_FILES)) {
      const text = await ctx.read(path);
      if (text === undefined) continue;
      for (const note of recipe.applyToFile(step, { path, text }, { syntax: ctx.syntax })?.notes ?? []) notes.add(`${path}: ${note}`);
      if (notes.size >= 3) break;
    }
  }
  if (notes.size > 0) return [...notes].slice(0, 3).join('; ');
  switch (step.recipe) {
    case 'replace':
      return `${quote(step.find)} does not occur in any file the task may change`;
    case 'migrate-import':
      return `no file imports ${quote(step.from)}`;
    case 'rename-symbol':
      return `${quote(step.from)} is not used in any file the task may change`;
    default:
      return `no manifest the task may change declares ${quote(recipe.targetTerm(step))} where the recipe can edit it`;
  }
}

/** A rename is one reading only when the name is defined exactly once. */
async function definitionsOf(name: string, files: readonly string[], ctx: GroundingContext): Promise<number> {
  let count = 0;
  for (const path of files) {
    const text = await ctx.read(path);
    if (text === undefined || ctx.syntax.languageFor(path) === undefined) continue;
    count += ctx.syntax.extractTags(path, text).filter((t) => t.kind === 'definition' && t.name === name).length;
  }
  return count;
}

/** Renovate's "to ^0.28.0" is a bump that keeps the declared operator: read as bump-dependency to the version. */
function asBump(step: Record<string, unknown>): Record<string, unknown> {
  const range = typeof step.range === 'string' ? /^[\^~]\s*(v?\d+\.\d+\.\d+[\w.+-]*)$/.exec(step.range.trim()) : null;
  if (step.recipe !== 'constrain-dependency' || !range) return step;
  const { range: _range, ...rest } = step;
  return { ...rest, recipe: 'bump-dependency', to: range[1].replace(/^v/, '') };
}

/**
 * The editable files the step could change, narrowed to those whose text names what it looks for
 * (a rename's identifier, a literal replace's text, the old import), so the engine parses only
 * those: a rename in a 10k-file repository reads every Java file once, and parses the few that use it.
 */
async function mentioning(step: RecipeStep, ctx: GroundingContext): Promise<string[]> {
  const needle =
    step.recipe === 'rename-symbol' || step.recipe === 'migrate-import' ? step.from : step.recipe === 'replace' && !step.regex ? step.find : undefined;
  if (needle === undefined) return ctx.editable;
  const out: string[] = [];
  for (const path of recipeCandidates(step, ctx.editable, ctx.isLockfile)) if ((await ctx.read(path))?.includes(needle)) out.push(path);
  return out;
}

/** Files read to find whether a domain is new; past this a domain not yet seen counts as new. */
const MAX_DOMAIN_FILES = 20_000;

/**
 * Hosts the steps write (a replace's new URLs) that no editable file contains yet: a link the
 * issue's words bring in is named for the reviewer, never trusted silently.
 */
async function newDomains(steps: readonly RecipeStep[], ctx: GroundingContext): Promise<string[]> {
  const hosts = new Set<string>();
  for (const step of steps)
    if (step.recipe === 'replace') for (const m of step.replace.matchAll(/\bhttps?:\/\/([A-Za-z0-9.-]{1,253})/g)) hosts.add(m[1].toLowerCase());
  if (hosts.size === 0) return [];
  const unseen = new Set(hosts);
  for (const path of ctx.editable.slice(0, MAX_DOMAIN_FILES)) {
    const text = (await ctx.read(path))?.toLowerCase();
    if (text) for (const host of [...unseen]) if (text.includes(host)) unseen.delete(host);
    if (unseen.size === 0) break;
  }
  return [...unseen].sort();
}

/** Each reading's package spelled as the manifests spell it (undefined for a step that names none). */
function fitsOf(readings: readonly ProseReading[], map: Pick<RepoMap, 'manifests'>): (PackageFit | undefined)[] {
  return readings.map((reading) => {
    const { package: pkg } = asBump({ ...reading.step });
    return typeof pkg === 'string' ? fitPackage(pkg, map) : undefined;
  });
}

/** The packages the issue asks to move, spelled as the manifests spell them, and to which version. */
function requestedVersions(readings: readonly ProseReading[], fits: readonly (PackageFit | undefined)[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, reading] of readings.entries()) {
    const { recipe, to } = asBump({ ...reading.step });
    const fit = fits[i];
    if (recipe === 'bump-dependency' && typeof to === 'string' && fit && 'package' in fit) out.set(fit.package, to);
  }
  return out;
}

/** Dependabot's `from` names the declarations it moves: where others declare another version, only those at `from` change. */
function narrowedToFrom(step: BumpStep, reading: ProseReading, declared: readonly Declaration[]): BumpStep {
  if (!reading.from || step.from !== undefined) return step;
  const from = bare(reading.from);
  const mixed = declared.some((d) => bare(d.version) !== from) && declared.some((d) => bare(d.version) === from);
  return mixed ? { ...step, from } : step;
}

type Grounded = { step: RecipeStep; files: string[]; why?: string } | { why: string };

/** One reading against the repository: the schema, the package's spelling, then the engine's dry run. */
async function groundReading(
  reading: ProseReading,
  fit: PackageFit | undefined,
  ctx: GroundingContext,
  requested: ReadonlyMap<string, string>,
): Promise<Grounded> {
  if (reading.action) return { why: 'a GitHub Actions reference: no recipe edits the `uses:` lines of workflows' };
  const asRead = asBump({ ...reading.step });
  let renamed: string | undefined;
  if (typeof asRead.package === 'string' && fit) {
    if ('why' in fit) return fit;
    if (fit.renamed) renamed = `\`${asRead.package}\` is \`${fit.package}\` in the manifests`;
    asRead.package = fit.package;
  }
  const parsed = RecipeStep.safeParse(asRead);
  if (!parsed.success) return { why: `not a valid step: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'step'}: ${i.message}`).join('; ')}` };
  let step = parsed.data;
  const declared = step.recipe === 'bump-dependency' ? declarationsOf(step.package, ctx.map) : [];
  const misfit = step.recipe === 'bump-dependency' ? await versionMisfit(reading, step, declared, ctx, requested) : undefined;
  if (misfit) return { why: misfit };
  if (step.recipe === 'bump-dependency') step = narrowedToFrom(step, reading, declared);
  const run = await dryRunStep(step, await mentioning(step, ctx), ctx.read, { syntax: ctx.syntax }, ctx.isLockfile);
  if (run.files.length === 0) return { why: await whyNothing(step, run, ctx) };
  const files = run.files.map((f) => f.path);
  const leftover = step.recipe === 'bump-dependency' ? await bumpLeftovers(step, declared, files, ctx) : undefined;
  if (leftover) return { why: leftover };

  if (step.recipe === 'rename-symbol') {
    const defined = await definitionsOf(step.from, files, ctx);
    if (defined !== 1)
      return { why: defined === 0 ? `${quote(step.from)} is not defined in the repository` : `${quote(step.from)} is defined in ${defined} places` };
  }
  return { step, files, ...(renamed ? { why: renamed } : {}) };
}

/**
 * The steps an issue's words ask for, each confirmed by the repository before anything runs
 * (docs/architecture.md, "Steps read from prose"): the package is declared where a recipe can
 * edit it, the text to replace occurs, the old import is imported, a renamed symbol is defined
 * exactly once, the version is not a downgrade (the recipe engine's own dry run says so). What
 * is not confirmed is listed with why, never run on a guess.
 */
export async function groundProse(
  text: { title: string; body: string },
  ctx: GroundingContext,
  options: { mode: 'run' | 'suggest'; outsider?: string },
): Promise<InferredSteps> {
  const read = readProse(text);
  const readings: InferredReading[] = [];
  const steps: RecipeStep[] = [];
  const seen = new Set<string>();
  const checked = read.readings.slice(0, MAX_GROUNDED_READINGS);
  const fits = fitsOf(checked, ctx.map);
  const requested = requestedVersions(checked, fits);
  for (const [i, reading] of checked.entries()) {
    const grounded = await groundReading(reading, fits[i], ctx, requested);
    const base = { text: reading.text, source: reading.source, ...(reading.wordingSource ? { wordingSource: reading.wordingSource } : {}) };
    if ('step' in grounded) {
      const key = JSON.stringify(grounded.step);
      if (!seen.has(key)) steps.push(grounded.step);
      seen.add(key);
      readings.push({ ...base, step: grounded.step, grounded: true, files: grounded.files, ...(grounded.why ? { why: grounded.why } : {}) });
    } else readings.push({ ...base, step: reading.step, grounded: false, why: grounded.why, files: [] });
  }
  // A person's list that asks for more than the steps read: the steps are not the whole change.
  if (read.beyond.length > 0) {
    const more = read.beyond.map((b) => `“${b.text}”`).join(', ');
    for (const [i, r] of readings.entries())
      if (r.grounded) readings[i] = { ...r, grounded: false, files: [], why: `the words also ask for ${more}, which no step reads` };
    steps.length = 0;
  }
  const unread = [
    ...read.unread,
    ...read.beyond,
    ...read.readings.slice(MAX_GROUNDED_READINGS).map((r) => ({ text: r.text, why: `not checked: only the first ${MAX_GROUNDED_READINGS} requests are` })),
  ];
  return {
    mode: options.mode,
    steps,
    newDomains: await newDomains(steps, ctx),
    ...(steps.length > 0 ? { block: renderAgentBlock({ steps }).join('\n') } : {}),
    readings,
    unread,
    ...(options.outsider ? { outsider: options.outsider } : {}),
  };
}
