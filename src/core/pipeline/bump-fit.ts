import { versionSchemeOf } from '../engines/recipe/bump-dependency-recipe.js';
import { normalizePythonName } from '../engines/recipe/bump-ecosystems.js';
import { FORMATTER_PACKAGES } from '../engines/recipe/formatters/formatter-parity.js';
import { splitVersion } from '../engines/recipe/version-edit.js';
import type { ManifestDependency, ManifestKind } from '../manifests/manifest-schema.js';
import type { ProseReading } from '../prose/prose-reading.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import type { RecipeStep } from '../task/recipe-steps.js';
import { declaredAdmits, type VersionScheme } from '../versions/versions.js';

/**
 * Whether a version bump read from prose is the whole change the words ask for: the checks
 * grounding makes before (the version request against the declarations) and after the engine's
 * dry run (what the bump would leave behind). See docs/architecture.md, "Steps read from prose".
 */

export type BumpStep = Extract<RecipeStep, { recipe: 'bump-dependency' }>;

/** What the bump checks read: the map and the files' text. */
export interface BumpFitContext {
  map: Pick<RepoMap, 'manifests'>;
  read(path: string): Promise<string | undefined>;
}

const PYTHON_KINDS = new Set<ManifestKind>(['pyproject', 'requirements', 'setup-cfg', 'setup-py']);
export const JVM_KINDS = new Set<ManifestKind>(['maven', 'gradle-build', 'gradle-settings', 'gradle-script', 'gradle-catalog']);

/** How a manifest of this kind spells a name for comparison (PEP 503 for Python, `-`/`_` alike for Cargo). */
export function comparable(kind: ManifestKind, name: string): string {
  if (PYTHON_KINDS.has(kind)) return normalizePythonName(name);
  if (kind === 'cargo') return name.replace(/_/g, '-');
  return name;
}

/** A version key as Gradle's accessors and Renovate's group names spell it: `.`, `_` and `-` alike, any case. */
export const sameKey = (a: string, b: string): boolean => a.replace(/[._]/g, '-').toLowerCase() === b.replace(/[._]/g, '-').toLowerCase();

const quote = (text: string): string => `\`${text}\``;

/** The version without its operator or `v` (`^4.43.0` → `4.43.0`). */
export const bare = (version: string): string => splitVersion(version).bare.replace(/^v(?=\d)/, '');

export interface Declaration {
  path: string;
  kind: ManifestKind;
  scheme: VersionScheme;
  version: string;
  dep: ManifestDependency;
  site?: string;
  /** The version key it comes through (a catalog's `[versions]` entry, a property). */
  ref?: string;
}

const siteOf = (dep: ManifestDependency): string | undefined => (dep.versionAt ? `${dep.versionAt.path}:${dep.versionAt.line}` : undefined);

/** Where the manifests declare a package with a version, and how each ecosystem reads it. */
export function declarationsOf(pkg: string, map: Pick<RepoMap, 'manifests'>): Declaration[] {
  const out: Declaration[] = [];
  for (const manifest of map.manifests) {
    const scheme = versionSchemeOf(manifest.kind);
    if (!scheme) continue;
    for (const dep of manifest.dependencies) {
      const version = dep.resolvedVersion ?? dep.version;
      if (version && comparable(manifest.kind, dep.name) === comparable(manifest.kind, pkg)) {
        const site = siteOf(dep);
        out.push({
          path: manifest.path,
          kind: manifest.kind,
          scheme,
          version,
          dep,
          ...(site ? { site } : {}),
          ...(dep.versionRef ? { ref: dep.versionRef } : {}),
        });
      }
    }
  }
  return out;
}

/** The other packages whose version is written at the same place as this package's: a bump moves them too. */
function sharingSite(pkg: string, declared: readonly Declaration[], map: Pick<RepoMap, 'manifests'>): Map<string, string> {
  const sites = new Set(declared.map((d) => d.site).filter((s): s is string => s !== undefined));
  const others = new Map<string, string>();
  for (const manifest of map.manifests)
    for (const dep of manifest.dependencies) {
      const site = siteOf(dep);
      if (site && sites.has(site) && comparable(manifest.kind, dep.name) !== comparable(manifest.kind, pkg))
        others.set(dep.name, dep.resolvedVersion ?? dep.version ?? '');
    }
  return others;
}

/** npm's `"private": true`: Dependabot treats the package as an application and raises its ranges. */
async function isPrivatePackage(path: string, ctx: Pick<BumpFitContext, 'read'>): Promise<boolean> {
  const text = await ctx.read(path);
  if (text === undefined || text.length > 1024 * 1024) return false;
  try {
    return (JSON.parse(text) as { private?: unknown }).private === true;
  } catch {
    return false;
  }
}

/**
 * Dependabot's "from" is the version the lockfile resolved. Where every declaration is a range
 * that already admits the new version, Dependabot's default versioning strategy decides: an
 * application (an npm root package marked private) gets its ranges raised to the new version,
 * a library keeps them and only its lockfile changes (recipes never edit lockfiles).
 */
async function rangeAdmits(reading: ProseReading, step: BumpStep, declared: readonly Declaration[], ctx: BumpFitContext): Promise<string | undefined> {
  if (!reading.from) return undefined;
  const from = bare(reading.from);
  const exact = declared.some((d) => bare(d.version) === from);
  if (!exact && declared.every((d) => declaredAdmits(d.scheme, d.version, step.to, { bareIsCaret: d.path.endsWith('Cargo.toml') }))) {
    const dir = step.paths?.[0];
    const raised =
      reading.wordingSource === 'dependabot' &&
      declared.every((d) => d.kind === 'package.json') &&
      (await isPrivatePackage(dir ? `${dir}/package.json` : 'package.json', ctx));
    if (raised) return undefined;
    return `the declared ${declared.map((d) => quote(d.version)).join(', ')} already admits ${step.to}: only the lockfile changes, and recipes never edit lockfiles`;
  }
  if (!exact && !declared.some((d) => declaredAdmits(d.scheme, d.version, from)))
    return `the words say from ${quote(reading.from)}, but ${declared.map((d) => `${d.path} declares ${quote(d.version)}`).join(', ')}`;
  return undefined;
}

/**
 * Why a version request does not fit the declarations, or undefined when it does:
 * - a major alone (`to v7`) or, where versions are semver, a partial version (`to 0.12`) names
 *   no release;
 * - Dependabot's `from` against the declared ranges (`rangeAdmits`);
 * - a version written once for several packages (a catalog's `[versions]` key, a pom property)
 *   moves them all, which the words do not ask unless they name the key or every package it sets.
 * `declared` is `declarationsOf(step.package)`; `requested` holds the packages the same issue asks
 * to move, and to which version.
 */
export async function versionMisfit(
  reading: ProseReading,
  step: BumpStep,
  declared: readonly Declaration[],
  ctx: BumpFitContext,
  requested: ReadonlyMap<string, string>,
): Promise<string | undefined> {
  const named = typeof reading.step.package === 'string' ? reading.step.package : step.package;
  if (/^v?\d+$/.test(step.to)) return `names only the major version (${quote(step.to)}): which release?`;
  if (declared.some((d) => d.scheme === 'semver' || d.scheme === 'go') && !/^v?\d+\.\d+\.\d+/.test(step.to))
    return `${quote(step.to)} is not a full version where the package is declared (${declared[0].path}): which release?`;
  if (declared.length > 0) {
    const misfit = await rangeAdmits(reading, step, declared, ctx);
    if (misfit) return misfit;
  }
  // Words that name the version key itself (`coil`, `kotlinxCoroutines`) ask for everything it sets.
  if (declared.some((d) => d.ref !== undefined && sameKey(d.ref, named))) return undefined;
  const others = [...sharingSite(step.package, declared, ctx.map).keys()].filter((name) => requested.get(name) !== step.to);
  if (others.length > 0)
    return `its version is written once for ${others.sort().slice(0, 5).map(quote).join(', ')} too: a bump moves them all, which the words do not ask`;
  return undefined;
}

/** Lines read after a plugin's declaration to find its `<configuration>`. */
const MAX_PLUGIN_LINES = 200;

const majorOf = (version: string): string | undefined => /^(\d+)\./.exec(bare(version))?.[1];
const minorOf = (version: string): string | undefined => /^\d+\.(\d+)/.exec(bare(version))?.[1];

/** A major update, or a minor one below 1.0: the kind semver says may change what a package needs. */
function breaking(from: string, to: string): boolean {
  const [a, b] = [majorOf(from), majorOf(to)];
  if (a === undefined || b === undefined) return false;
  return a !== b || (a === '0' && minorOf(from) !== minorOf(to));
}

/** A Maven plugin that changes major version where the pom configures it: its settings may have been renamed. */
async function pluginSettings(step: BumpStep, declared: readonly Declaration[], ctx: BumpFitContext): Promise<string | undefined> {
  for (const d of declared) {
    const major = majorOf(d.version);
    if (d.kind !== 'maven' || d.dep.kind !== 'plugin' || d.dep.line === undefined || major === undefined || major === majorOf(step.to)) continue;
    const lines = ((await ctx.read(d.path)) ?? '').split('\n').slice(d.dep.line - 1, d.dep.line - 1 + MAX_PLUGIN_LINES);
    const end = lines.findIndex((l) => l.includes('</plugin>'));
    const at = lines.slice(0, end < 0 ? lines.length : end).findIndex((l) => l.includes('<configuration'));
    if (at >= 0)
      return `${quote(step.package)} goes from ${d.version} to ${step.to}, a new major version, and ${d.path}:${d.dep.line + at} configures it: its settings may have changed, which the words do not say how to follow`;
  }
  return undefined;
}

/** pip-compile-multi writes `# SHA1:<hash of the input>` atop the file it compiles: editing the input needs it recompiled. */
async function hashedCompile(changed: ReadonlySet<string>, ctx: BumpFitContext): Promise<string | undefined> {
  for (const path of changed) {
    if (!path.endsWith('.in')) continue;
    const compiled = `${path.slice(0, -3)}.txt`;
    const head = (await ctx.read(compiled))?.split('\n', 5) ?? [];
    if (head.some((l) => l.startsWith('# SHA1:')))
      return `${compiled} is compiled from ${path} and carries its hash (\`# SHA1:\`): changing ${path} needs pip-compile-multi to run, which no recipe does`;
  }
  return undefined;
}

/** The pins of a pip-compile output that are there for one package alone (`# via mypy`). */
function pinnedOnlyFor(text: string, pkg: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const pin = /^([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?==/.exec(lines[i]);
    if (!pin) continue;
    const via: string[] = [];
    for (let j = i + 1; j < lines.length && /^\s+#/.test(lines[j]); j++) {
      const item = /^\s+#\s+(?:via\s+)?([^\s#][^\s]*)\s*$/.exec(lines[j]);
      if (item && item[1] !== 'via') via.push(item[1]);
    }
    if (via.length === 1 && normalizePythonName(via[0]) === normalizePythonName(pkg)) out.push(pin[1]);
  }
  return out;
}

/**
 * A breaking-class update of a package pinned in a pip-compile output where other pins are there
 * for it alone: the new version may need other packages, which only pip-compile settles.
 */
async function compiledDependents(step: BumpStep, declared: readonly Declaration[], ctx: BumpFitContext): Promise<string | undefined> {
  for (const d of declared) {
    if (d.kind !== 'requirements' || !breaking(d.version, step.to)) continue;
    const text = (await ctx.read(d.path)) ?? '';
    if (!text.split('\n', 10).some((l) => l.includes('autogenerated by pip-compile'))) continue;
    const dependents = pinnedOnlyFor(text, step.package);
    if (dependents.length > 0)
      return `${d.path} is compiled by pip-compile and pins ${dependents.slice(0, 3).map(quote).join(', ')} for ${quote(step.package)} alone: ${bare(d.version)} → ${step.to} may change what it needs, which only pip-compile settles`;
  }
  return undefined;
}

/**
 * Why the bump's dry run is not the whole change the words ask for, or undefined: a formatter
 * (its new version may reformat files), a plugin's settings across a major version, a compiled
 * requirements file the bump cannot keep true.
 */
export async function bumpLeftovers(
  step: BumpStep,
  declared: readonly Declaration[],
  changedFiles: readonly string[],
  ctx: BumpFitContext,
): Promise<string | undefined> {
  const changed = new Set(changedFiles);
  if (declared.some((d) => FORMATTER_PACKAGES.has(comparable(d.kind, step.package))))
    return `${quote(step.package)} formats the repository's files: its new version may format them differently, and a recipe changes only the version`;
  return (await pluginSettings(step, declared, ctx)) ?? (await hashedCompile(changed, ctx)) ?? (await compiledDependents(step, declared, ctx));
}
