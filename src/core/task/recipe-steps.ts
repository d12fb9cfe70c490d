import { z } from 'zod';
import { RepoGlob } from '../policy/repo-glob.js';
import { userRegexProblem } from '../util/user-regex.js';

/** Globs relative to the repository root; a plain directory means `dir/**`. */
export const PathGlobs = z.array(RepoGlob).min(1).max(200).describe('Globs relative to the repository root; a plain directory means dir/**.');

export const ReplaceStep = z
  .strictObject({
    recipe: z.literal('replace'),
    find: z.string().min(1),
    replace: z.string(),
    regex: z.boolean().default(false),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'flags may only contain i, m, s, u')
      .default(''),
    wordBoundary: z.union([z.literal('auto'), z.boolean()]).default('auto'),
    paths: PathGlobs.optional(),
  })
  .superRefine((step, ctx) => {
    // Refused up front, with the construct named, rather than when the recipe runs.
    const problem = step.regex ? userRegexProblem(step.find, step.flags) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', path: ['find'], message: `${problem.reason}: ${problem.message}`, params: { reason: problem.reason } });
  });

export const MigrateImportStep = z.strictObject({
  recipe: z.literal('migrate-import'),
  from: z.string().min(1),
  to: z.string().min(1),
  version: z
    .string()
    .regex(/^[A-Za-z0-9^~<>=!.+_-]+$/, 'a version such as 1.4.0, v1.4.0 or ^1.4.0')
    .max(100)
    .optional()
    .describe('Version of the dependency that provides the new imports; when given, a build that does not declare it gets it added.'),
  artifact: z
    .string()
    .regex(/^[A-Za-z0-9@][\w@./:~-]*$/, 'a dependency name: Maven groupId:artifactId, npm package, Python distribution or Go module path')
    .max(200)
    .optional()
    .describe(
      'The dependency that provides the new imports, when it cannot be told from the import path (Maven groupId:artifactId, npm package, Python distribution, Go module path).',
    ),
  paths: PathGlobs.optional(),
});

export const BumpDependencyStep = z.strictObject({
  recipe: z.literal('bump-dependency'),
  package: z.string().min(1),
  to: z.string().min(1),
  from: z.string().min(1).optional(),
  allowDowngrade: z.boolean().optional().describe('Apply the step where `to` orders before the declared version (refused otherwise).'),
  paths: PathGlobs.optional(),
});

export const RenameSymbolStep = z.strictObject({
  recipe: z.literal('rename-symbol'),
  from: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be an identifier'),
  to: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be an identifier'),
  kind: z
    .enum(['class', 'interface', 'function', 'method', 'field', 'variable', 'type'])
    .optional()
    .describe('Rename only occurrences that name a symbol of this kind (by syntactic role); without it, every identifier with the name.'),
  comments: z.boolean().optional().describe('Also rename whole-word mentions of the old name in comments and docstrings of the edited files (default false).'),
  paths: PathGlobs.optional(),
});

export const RemoveDependencyStep = z.strictObject({
  recipe: z.literal('remove-dependency'),
  package: z
    .string()
    .regex(/^[A-Za-z0-9@][\w@./~-]*$/, 'a dependency name: npm package, Python distribution or Go module path')
    .max(200)
    .describe('The dependency to drop from the manifests that declare it (package.json, requirements files, go.mod); lockfiles get the refresh command.'),
  paths: PathGlobs.optional(),
});

export const ConstrainDependencyStep = z.strictObject({
  recipe: z.literal('constrain-dependency'),
  package: z
    .string()
    .regex(/^[A-Za-z0-9@][\w@./:~-]*$/, 'a dependency name: Maven groupId:artifactId, npm package, Python distribution, crate')
    .max(200)
    .describe('The dependency whose declared constraint is set, in every manifest that declares it.'),
  range: z
    .string()
    .max(200)
    .regex(/^[\w.,<>=!~^*[\]() |+-]+$/, 'a version range such as <3, >=1.26,<3, ==2.31.0, ^1.2.0 or [1.0,2.0)')
    .regex(/[<>=!~^*[\]()|]/, 'a bare version is read differently by each ecosystem: write ==1.2.3 to pin it, <3 to cap, >=1.2,<3 for both')
    .describe(
      "The constraint, neutral (<3 caps, >=1.26,<3 bounds, ==2.31.0 or =2.31.0 pins; written in each manifest's own syntax) or in the ecosystem's own syntax (~=1.4, ^1.2.0, [1.0,2.0)), used as is where valid. A cap keeps the declared lower bound.",
    ),
  allowDowngrade: z.boolean().optional().describe('Apply the step where the range admits nothing at or above the declared minimum (refused otherwise).'),
  paths: PathGlobs.optional(),
});

/** One step of the task block: a deterministic recipe. Each recipe's engine side is in core/engines/recipe's registry. */
export const RecipeStep = z.discriminatedUnion('recipe', [
  ReplaceStep,
  MigrateImportStep,
  BumpDependencyStep,
  RenameSymbolStep,
  RemoveDependencyStep,
  ConstrainDependencyStep,
]);
export type RecipeStep = z.infer<typeof RecipeStep>;
export type ReplaceStep = z.infer<typeof ReplaceStep>;
export type MigrateImportStep = z.infer<typeof MigrateImportStep>;
export type BumpDependencyStep = z.infer<typeof BumpDependencyStep>;
export type RenameSymbolStep = z.infer<typeof RenameSymbolStep>;
export type RemoveDependencyStep = z.infer<typeof RemoveDependencyStep>;
export type ConstrainDependencyStep = z.infer<typeof ConstrainDependencyStep>;

export type RecipeName = RecipeStep['recipe'];
/** The step of one recipe. */
export type StepOf<N extends RecipeName> = Extract<RecipeStep, { recipe: N }>;

/**
 * Recipes whose every written token is an identifier their schema validates (rename-symbol's
 * `from` and `to`). A change made by these alone cannot put a command into a file CI executes,
 * so such a file weighs by its other signals (docs/trust-chain.md, "Files CI executes").
 */
export const IDENTIFIER_ONLY_RECIPES: readonly string[] = ['rename-symbol'];

/** The recipe names the task block accepts, read from the schema (the registry test checks they are the registered ones). */
export const RECIPE_NAMES: readonly RecipeName[] = RecipeStep.options.map((option) => option.shape.recipe.value);

/** A step parameter the target search looks for, by its key in the step. */
export interface SearchParameter {
  key: string;
  value: string;
}

/** What the task layer knows of a recipe: its step schema and which of its parameters name things to search for. */
export interface RecipeStepEntry<N extends RecipeName> {
  schema: z.ZodType<StepOf<N>, unknown>;
  searchParameters(step: StepOf<N>): SearchParameter[];
}

const fromTo = (step: { from: string; to: string }): SearchParameter[] => [
  { key: 'from', value: step.from },
  { key: 'to', value: step.to },
];

/** Each recipe's step entry; the registry in core/engines/recipe refers to these. */
export const RECIPE_STEPS: { readonly [N in RecipeName]: RecipeStepEntry<N> } = {
  replace: { schema: ReplaceStep, searchParameters: (step) => (step.regex ? [] : [{ key: 'find', value: step.find }]) },
  'migrate-import': { schema: MigrateImportStep, searchParameters: fromTo },
  'bump-dependency': { schema: BumpDependencyStep, searchParameters: (step) => [{ key: 'package', value: step.package }] },
  'rename-symbol': { schema: RenameSymbolStep, searchParameters: fromTo },
  'remove-dependency': { schema: RemoveDependencyStep, searchParameters: (step) => [{ key: 'package', value: step.package }] },
  'constrain-dependency': { schema: ConstrainDependencyStep, searchParameters: (step) => [{ key: 'package', value: step.package }] },
};

/** The parameters of a step the target search looks for, in order. */
export function stepSearchParameters<N extends RecipeName>(step: StepOf<N>): SearchParameter[] {
  return (RECIPE_STEPS[step.recipe as N] as RecipeStepEntry<N>).searchParameters(step);
}
