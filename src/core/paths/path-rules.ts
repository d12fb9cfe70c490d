import {
  ALWAYS_FORBIDDEN_PATHS,
  DEFAULT_CI_EXECUTED_PATTERNS,
  DEFAULT_CI_PATTERNS,
  DEFAULT_HISTORY_PATTERNS,
  DEFAULT_INFRA_PATTERNS,
  DEFAULT_TEST_PATTERNS,
  DEFAULT_VENDORED_PATTERNS,
  defaultPolicy,
  type AgentPolicy,
  type RiskRule,
} from '../policy/agent-policy.js';
import { extensionOf, isBinaryByName } from './path-classes.js';
import { normalizeRepoPath } from '../util/repo-path.js';
import { compileGlobs, pathParts } from './glob.js';

/** What a file of the repository is, decided from its path alone. */
export const PATH_CLASSES = ['vendored', 'lockfile', 'generated', 'ci', 'test', 'history', 'infra', 'docs', 'binary', 'config', 'source', 'other'] as const;
export type PathClass = (typeof PATH_CLASSES)[number];

export type EditBlock = 'FORBIDDEN' | 'OUTSIDE_ALLOWED_PATHS' | 'LOCKFILE' | 'GENERATED';

/**
 * Every question about a repository path, answered from one policy compiled once. Paths are
 * normalised first; one that could escape the workspace (absolute, `..`, NUL, backslash, `.git`)
 * throws PathError instead of getting a yes or no.
 */
export interface PathRules {
  /** The policy's `forbiddenPaths`, plus `.agent-policy.yaml` and `.github/workflows/**` always. */
  isForbidden(path: string): boolean;
  /** Under `.github/workflows/` (in any case): the App has no `workflows` permission. */
  isWorkflow(path: string): boolean;
  requiresApproval(path: string): boolean;
  /** In `agent.allowedPaths`; everything is allowed when the list is absent. */
  isAllowed(path: string): boolean;
  isLockfile(path: string): boolean;
  isGenerated(path: string): boolean;
  isVendored(path: string): boolean;
  isTest(path: string): boolean;
  /** Changelogs, release notes and the like. */
  isHistory(path: string): boolean;
  isCi(path: string): boolean;
  /** A file CI executes when it builds a pushed branch (`DEFAULT_CI_EXECUTED_PATTERNS`, CI configuration included). */
  isCiExecuted(path: string): boolean;
  isInfra(path: string): boolean;
  /** Prose written to be read: documentation extensions (`.md`, `.rst`, `.txt`...) or under a `doc/`, `docs/` directory. */
  isDoc(path: string): boolean;
  /** Configuration by extension or well-known name (`.yml`, `.properties`, `.env*`, `Makefile`, `.npmrc`...). */
  isConfig(path: string): boolean;
  /** Source code by extension, whatever else the path is (a test, generated, vendored). */
  isSource(path: string): boolean;
  /** The highest-level policy risk rule matching the path (the first of equals), if any. */
  riskFor(path: string): RiskRule | undefined;
  /** Why an edit of `path` is refused, or undefined when it may be edited. */
  editBlock(path: string): EditBlock | undefined;
  classify(path: string): PathClass;
  readonly allowLockfiles: boolean;
  readonly allowGenerated: boolean;
}

const LEVEL_ORDER = { LOW: 0, MEDIUM: 1, HIGH: 2 } as const;

/** Anything `normalizeRepoPath` would change or refuse; other paths (nearly all) skip it. */
const NEEDS_NORMALISING = /^$|^\/|^[A-Za-z]:|\/\/|\/$|\\|\u0000|(?:^|\/)\.{1,2}(?:\/|$)|(?:^|\/)\.git(?:\/|$)/i;

function normalise(path: string): string {
  return NEEDS_NORMALISING.test(path) ? normalizeRepoPath(path) : path;
}

const DOC_EXTENSIONS = new Set(['md', 'markdown', 'mdx', 'rst', 'adoc', 'asciidoc', 'txt']);
const CONFIG_EXTENSIONS = new Set([
  'yml',
  'yaml',
  'json',
  'jsonc',
  'json5',
  'toml',
  'ini',
  'cfg',
  'conf',
  'properties',
  'xml',
  'env',
  'tfvars',
  'editorconfig',
  'gitattributes',
  'gitignore',
]);
const SOURCE_EXTENSIONS = new Set([
  'java',
  'kt',
  'kts',
  'scala',
  'groovy',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'mts',
  'cts',
  'py',
  'go',
  'rs',
  'rb',
  'php',
  'cs',
  'fs',
  'c',
  'cc',
  'cpp',
  'cxx',
  'h',
  'hh',
  'hpp',
  'swift',
  'm',
  'mm',
  'sql',
  'sh',
  'bash',
  'ps1',
  'lua',
  'pl',
  'r',
  'dart',
  'ex',
  'exs',
  'erl',
  'clj',
  'vue',
  'svelte',
  'css',
  'scss',
  'sass',
  'less',
  'html',
  'htm',
  'proto',
  'graphql',
  'gql',
]);
const DOC_DIR = /(^|\/)docs?\//i;
/** Well-known configuration names, `.env` files (`.env.local`, `.env.production`) among them. */
const CONFIG_NAME =
  /(^|\/)(Makefile|GNUmakefile|Rakefile|Gemfile|Pipfile|Procfile|Brewfile|mvnw|gradlew|\.[\w.-]*rc|\.env(\.[^/]*)?|\.tool-versions|\.(git|docker|npm|eslint|prettier)ignore|\.gitattributes|\.gitmodules|\.editorconfig|CODEOWNERS)$/;

/** The name-only kinds, over an already normalised path. */
const isDocName = (path: string) => DOC_EXTENSIONS.has(extensionOf(path)) || DOC_DIR.test(path);
const isConfigName = (path: string) => CONFIG_EXTENSIONS.has(extensionOf(path)) || CONFIG_NAME.test(path);
const isSourceName = (path: string) => SOURCE_EXTENSIONS.has(extensionOf(path));

function extensionClass(path: string): PathClass {
  if (isDocName(path)) return 'docs';
  if (isBinaryByName(path)) return 'binary';
  if (isConfigName(path)) return 'config';
  if (isSourceName(path)) return 'source';
  return 'other';
}

/**
 * A matcher for `forbiddenPaths` with the always-forbidden paths added, so no caller and no
 * policy can drop them. Both ignore case: `Secrets/prod.yml` is what `secrets/**` forbids (a
 * checkout on a case-insensitive file system is the same file). Over already normalised paths.
 */
export function forbiddenMatcher(forbiddenPaths: readonly string[]): (path: string) => boolean {
  const always = compileGlobs(ALWAYS_FORBIDDEN_PATHS, { nocase: true });
  const own = compileGlobs(forbiddenPaths, { nocase: true });
  return (path) => always(path) || own(path);
}

/**
 * Compile the policy's path lists and the shared default lists once.
 */
export function compilePathRules(policy: AgentPolicy): PathRules {
  const workflow = compileGlobs(['.github/workflows'], { nocase: true });
  const isForbidden = forbiddenMatcher(policy.agent.forbiddenPaths);
  // Lists that hold a change back ignore case as forbiddenPaths does; allowedPaths, which lets
  // one through, keeps it.
  const approval = compileGlobs(policy.agent.requireApprovalFor, { nocase: true });
  const allowList = policy.agent.allowedPaths;
  const allowed = allowList ? compileGlobs(allowList) : () => true;
  const lockfile = compileGlobs(policy.editRules.lockfilePatterns);
  const generated = compileGlobs(policy.editRules.generatedPatterns);
  const vendored = compileGlobs(DEFAULT_VENDORED_PATTERNS);
  const test = compileGlobs(DEFAULT_TEST_PATTERNS);
  const history = compileGlobs(DEFAULT_HISTORY_PATTERNS);
  const ci = compileGlobs(DEFAULT_CI_PATTERNS);
  // Ignoring case, as forbidden paths do: what CI runs is held back, never let through.
  const ciExecuted = compileGlobs(DEFAULT_CI_EXECUTED_PATTERNS, { nocase: true });
  const infra = compileGlobs(DEFAULT_INFRA_PATTERNS);
  const risks = policy.agent.riskRules.map((rule) => ({ rule, match: compileGlobs([rule.glob]) }));
  const allowLockfiles = policy.editRules.lockfiles.default === 'allowed';
  const allowGenerated = policy.editRules.generatedFiles.default === 'allowed';

  const n = normalise;
  return {
    isForbidden: (path) => isForbidden(n(path)),
    isWorkflow: (path) => workflow(n(path)),
    requiresApproval: (path) => approval(n(path)),
    isAllowed: (path) => allowed(n(path)),
    isLockfile: (path) => lockfile(n(path)),
    isGenerated: (path) => generated(n(path)),
    isVendored: (path) => vendored(n(path)),
    isTest: (path) => test(n(path)),
    isHistory: (path) => history(n(path)),
    isCi: (path) => ci(n(path)),
    isCiExecuted: (path) => ciExecuted(n(path)),
    isInfra: (path) => infra(n(path)),
    isDoc: (path) => isDocName(n(path)),
    isConfig: (path) => isConfigName(n(path)),
    isSource: (path) => isSourceName(n(path)),
    riskFor: (path) => {
      const p = n(path);
      let best: RiskRule | undefined;
      for (const { rule, match } of risks) {
        if (match(p) && (!best || LEVEL_ORDER[rule.level] > LEVEL_ORDER[best.level])) best = rule;
      }
      return best;
    },
    editBlock: (path) => {
      const p = n(path);
      if (isForbidden(p)) return 'FORBIDDEN';
      if (!allowed(p)) return 'OUTSIDE_ALLOWED_PATHS';
      if (!allowLockfiles && lockfile(p)) return 'LOCKFILE';
      if (!allowGenerated && generated(p)) return 'GENERATED';
      return undefined;
    },
    classify: (path) => {
      const p = pathParts(n(path));
      // First match wins, most specific first: a vendored lockfile is vendored, a test under CI config is CI.
      if (vendored.parts(p)) return 'vendored';
      if (lockfile.parts(p)) return 'lockfile';
      if (generated.parts(p)) return 'generated';
      if (ci.parts(p)) return 'ci';
      if (test.parts(p)) return 'test';
      if (history.parts(p)) return 'history';
      if (infra.parts(p)) return 'infra';
      return extensionClass(p.path);
    },
    allowLockfiles,
    allowGenerated,
  };
}

let defaults: PathRules | undefined;

/** The rules of a repository without `.agent-policy.yaml` (every documented default). */
export function defaultPathRules(): PathRules {
  defaults ??= compilePathRules(defaultPolicy());
  return defaults;
}
