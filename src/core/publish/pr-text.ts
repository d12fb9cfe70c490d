import type { PathClass } from '../paths/path-rules.js';
import { moduleForPath } from '../repomap/detect-modules.js';
import { recipeFor } from '../engines/recipe/registry.js';
import type { RecipeStep } from '../task/recipe-steps.js';
import { shortenAtWord } from '../util/shorten.js';
import { COMMIT_TYPES, SCOPE, type CommitType } from '../git/commit-message.js';

/** GitHub refuses a pull request title longer than this. */
export const MAX_TITLE = 256;

/** A module of the repository map, as discovery records it. */
export interface ModuleName {
  path: string;
  name: string;
  buildSystem?: string;
}

export interface PrTextInput {
  /** The issue title (App) or the CLI task's first line or heading, as the maintainer wrote it. */
  title: string;
  /** The task's recipe steps; none means the model made the change. */
  steps: readonly RecipeStep[];
  /** The files each step changed, index-aligned with `steps` (weighs mixed steps; types a `replace`). */
  stepPaths?: readonly (readonly string[])[];
  /** Every changed file. */
  changedPaths: readonly string[];
  modules: readonly ModuleName[];
  classify: (path: string) => PathClass;
}

export interface PrText {
  /** The PR title: the maintainer's title, never cut mid-word, never longer than GitHub allows. */
  title: string;
  type: CommitType;
  scope?: string;
  breaking: boolean;
  /** The commit subject after `type(scope): `; the commit formatter shortens it. */
  summary: string;
}

const CONVENTIONAL = new RegExp(`^(${COMMIT_TYPES.join('|')})(?:\\(([^()\\s]+)\\))?(!)?:\\s*(\\S.*)$`, 'i');

/** Words that say nothing about which dependency moved: such a title gets the Dependabot subject. */
const GENERIC_WORDS = new Set([
  'bump',
  'bumps',
  'update',
  'updates',
  'upgrade',
  'upgrades',
  'dependency',
  'dependencies',
  'deps',
  'dep',
  'version',
  'versions',
  'package',
  'packages',
  'the',
  'a',
  'all',
  'chore',
  'build',
]);

/** Title words that name a commit type, tried in this order (a fix that touches docs is still a fix). */
const TITLE_TYPES: [RegExp, CommitType][] = [
  [/\b(fix|fixes|fixed|fixing|bug|bugfix|crash|crashes|regression|broken|hotfix)\b/i, 'fix'],
  [/\b(add|adds|added|implement|implements|introduce|introduces|support|feature|feat|allow|allows|enable|enables)\b/i, 'feat'],
  [/\b(perf|performance|faster|speed\s+up|optimi[sz]e)\b/i, 'perf'],
  [/\b(refactor|refactors|rename|renames|move|moves|extract|simplify|restructure|clean\s*up|cleanup|migrate|replace|deprecated?)\b/i, 'refactor'],
  [/\b(docs?|documentation|readme|typos?|changelog)\b/i, 'docs'],
  [/\b(tests?|testing|coverage)\b/i, 'test'],
  [/\b(bump|upgrade|dependency|dependencies|deps)\b/i, 'build'],
  [/\b(ci|workflows?|pipeline)\b/i, 'ci'],
];

/**
 * The PR title and the commit's type, scope and subject, by one rule for the App and the CLI:
 * - The title is the maintainer's (for recipe tasks too); a title that already starts with a
 *   conventional prefix (`refactor(x): …`, `fix!: …`) is used as is, its type and scope adopted.
 * - Type by change kind (each recipe's commit type): dependency bumps `build(deps)` as Dependabot and Renovate write them,
 *   renames and import moves `refactor`, text replacements by what they touch (docs, ci, test,
 *   else `refactor` for source and `chore` otherwise), the model's change by the files it touched
 *   and then the title's words, `chore` when nothing says more. Mixed steps: the kind that changed
 *   the most files (the first step on a tie).
 * - Scope is the one nested module (its short name) containing every changed file; none at the
 *   repository root or when the change spans modules.
 * - The subject is the title; a generic title over one dependency bump (`Update dependencies`)
 *   gets `bump <pkg> from <a> to <b>`; an empty title a description of the steps.
 */
export function prText(input: PrTextInput): PrText {
  const written = input.title.replace(/\s+/g, ' ').trim();
  const generated = describeSteps(input.steps);
  const title = shortenAtWord(written || generated, MAX_TITLE);
  const conventional = CONVENTIONAL.exec(written);
  if (conventional) {
    // The maintainer's scope is kept unless git tooling could not read it back.
    const scope = conventional[2] && SCOPE.test(conventional[2]) ? conventional[2] : undefined;
    return {
      title,
      type: conventional[1].toLowerCase() as CommitType,
      ...(scope ? { scope } : {}),
      breaking: conventional[3] === '!',
      summary: subjectOf(conventional[4]),
    };
  }
  const type = commitTypeOf(input, written);
  const dependencySteps = input.steps.filter((s) => recipeFor(s).dependency(s) !== undefined);
  const scope = type === 'build' && dependencySteps.length > 0 ? 'deps' : moduleScope(input.changedPaths, input.modules);
  const summary = isGeneric(written) && dependencySteps.length > 0 && dependencySteps.length === input.steps.length ? generated : written || generated;
  return { title, type, ...(scope ? { scope } : {}), breaking: false, summary: subjectOf(summary) };
}

/** A commit subject does not end with a full stop (the PR title keeps the maintainer's). */
function subjectOf(text: string): string {
  return text.replace(/(?<!\.)\.$/, '').trim() || text;
}

function isGeneric(title: string): boolean {
  const words = title
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.every((w) => GENERIC_WORDS.has(w));
}

function commitTypeOf(input: PrTextInput, title: string): CommitType {
  if (input.steps.length === 0) return pathType(input.changedPaths, input.classify) ?? titleType(title) ?? 'chore';
  const weight = new Map<CommitType, number>();
  input.steps.forEach((step, i) => {
    const paths = input.stepPaths?.[i] ?? input.changedPaths;
    const type = stepType(step, paths, input.classify);
    weight.set(type, (weight.get(type) ?? 0) + (input.stepPaths ? paths.length : 1));
  });
  let best: CommitType | undefined;
  for (const [type, w] of weight) if (best === undefined || w > weight.get(best)!) best = type;
  return best!;
}

function stepType(step: RecipeStep, paths: readonly string[], classify: PrTextInput['classify']): CommitType {
  const type = recipeFor(step).commitType;
  if (type !== 'by-paths') return type;
  return pathType(paths, classify) ?? (paths.some((p) => classify(p) === 'source') ? 'refactor' : 'chore');
}

/** `docs`, `ci` or `test` when every path is of that one class. */
function pathType(paths: readonly string[], classify: PrTextInput['classify']): CommitType | undefined {
  if (paths.length === 0) return undefined;
  const kinds = new Set(paths.map((p) => ({ docs: 'docs', history: 'docs', ci: 'ci', test: 'test' })[classify(p) as string] ?? 'other'));
  const [only] = kinds;
  return kinds.size === 1 && only !== 'other' ? (only as CommitType) : undefined;
}

function titleType(title: string): CommitType | undefined {
  return TITLE_TYPES.find(([pattern]) => pattern.test(title))?.[1];
}

/** The short name of the one nested module holding every path (`order-service`, not `services`). */
export function moduleScope(paths: readonly string[], modules: readonly ModuleName[]): string | undefined {
  if (paths.length === 0) return undefined;
  const owners = new Set(paths.map((p) => moduleForPath(modules, p)));
  if (owners.size !== 1) return undefined;
  const [owner] = owners;
  if (!owner || owner.path === '.' || owner.path === '') return undefined;
  return shortModuleName(owner);
}

/**
 * A module's name as a commit scope: Maven `group:artifactId` and Gradle `:project` keep the last
 * part, npm `@scope/pkg` the package, a Go module path its last element before a `/vN` suffix;
 * a module without a name its directory's last element.
 */
export function shortModuleName(module: ModuleName): string | undefined {
  let name = module.name && module.name !== module.path ? module.name : module.path.slice(module.path.lastIndexOf('/') + 1);
  if (name.includes(':')) name = name.slice(name.lastIndexOf(':') + 1);
  if (name.startsWith('@') && name.includes('/')) name = name.slice(name.indexOf('/') + 1);
  if (name.includes('/')) {
    const parts = name.split('/').filter(Boolean);
    if (parts.length > 1 && /^v\d+$/.test(parts[parts.length - 1])) parts.pop();
    name = parts[parts.length - 1] ?? '';
  }
  const clean = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return clean || undefined;
}

/** The steps in words, for a commit subject when the maintainer gave no usable title. */
export function describeSteps(steps: readonly RecipeStep[]): string {
  const [first] = steps;
  if (!first) return 'apply the requested change';
  if (steps.length === 1) return describeStep(first);
  const several = steps.every((s) => s.recipe === first.recipe) ? recipeFor(first).wording.several(steps) : undefined;
  return several ?? `apply ${steps.length} recipe steps`;
}

/** One step in words, as a reviewer reads it (no JSON). */
export function describeStep(step: RecipeStep): string {
  return recipeFor(step).wording.step(step);
}
