import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The dependency rule (docs/architecture.md): handlers -> app -> core, never back. One rule
// checks every way a module can be named (import, export ... from, import(), import x =
// require(), typeof import()), so a dynamic import cannot slip past a static-only check.

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Node builtins src/core may use: hashing and inflating are computations, not I/O. */
const CORE_NODE_ALLOWED = new Set(['crypto', 'zlib']);
const NODE_BUILTINS = new Set(builtinModules.map((name) => name.split('/')[0]));

/** Packages that talk to the outside world; src/core receives them through a port. */
const ADAPTER_PACKAGES = ['probot', '@probot/*', '@octokit/*', '@aws-sdk/*', '@smithy/*', 'memfs', 'isomorphic-git/http/*', 'smee-client', 's3rver', 'undici'];

/** Folders (relative to the repository root) each layer must not import from. */
const LAYERS = [
  { folder: 'src/core', forbidden: ['src/app', 'src/handlers'], pure: true },
  { folder: 'src/app', forbidden: ['src/handlers'], pure: false },
];

/**
 * The floor plan of src/core (docs/architecture.md, "Floor plan"), bottom up. A folder imports
 * only folders on a lower floor; folders on one floor never import each other. `errors` and
 * `ports` are the two files at the root of src/core.
 */
const CORE_FLOORS = [
  ['errors'],
  ['ports'],
  ['objects', 'util', 'versions', 'verify'],
  ['artifacts', 'budget', 'syntax', 'text'],
  ['policy', 'workspace'],
  ['task'],
  ['paths', 'prose'],
  ['runs', 'secrets', 'risk', 'manifests', 'campaign'],
  ['ingestion', 'engines'],
  ['git', 'repomap', 'phases'],
  ['targets', 'publish'],
  ['pipeline'],
];

/** The src/core folder a repository path lies in (a root file counts as a folder of its own name). */
function coreFolder(path) {
  const rest = path.slice('src/core/'.length).split('/');
  return rest.length === 1 ? rest[0].replace(/\.(ts|js)$/, '') : rest[0];
}

/** Why an import from one src/core path to another breaks the floor plan; undefined when it does not. */
function floorViolation(from, target, floorOf) {
  if (!within(from, 'src/core') || !within(target, 'src/core')) return undefined;
  const a = coreFolder(from);
  const b = coreFolder(target);
  if (a === b) return undefined;
  for (const folder of [a, b]) {
    if (!floorOf.has(folder)) return `src/core/${folder} has no floor: add it to the floors in eslint.config.js (docs/architecture.md, "Floor plan").`;
  }
  if (floorOf.get(b) < floorOf.get(a)) return undefined;
  const where = floorOf.get(b) === floorOf.get(a) ? 'the same floor' : 'a higher floor';
  return `src/core/${a} (floor ${floorOf.get(a)}) must not import src/core/${b} (${where}, ${floorOf.get(b)}): imports go down the floor plan only.`;
}

const within = (path, folder) => path === folder || path.startsWith(`${folder}/`);
const repoPath = (absolute) => relative(ROOT, absolute).split(sep).join('/');

function matchesPackage(specifier, pattern) {
  if (pattern.endsWith('/*')) return specifier.startsWith(pattern.slice(0, -1));
  return specifier === pattern || specifier.startsWith(`${pattern}/`);
}

/** Why `specifier`, imported from `file`, breaks the dependency rule; undefined when it does not. */
function violation(file, specifier, floorOf) {
  const from = repoPath(file);
  const layer = LAYERS.find((l) => within(from, l.folder));
  if (!layer) return undefined;
  if (specifier.startsWith('.')) {
    const target = repoPath(resolve(dirname(file), specifier));
    const reached = layer.forbidden.find((folder) => within(target, folder));
    if (reached) return `${layer.folder} must not import ${reached} ('${specifier}'): dependencies point handlers -> app -> core.`;
    return floorViolation(from, target, floorOf);
  }
  if (!layer.pure) return undefined;
  const isNode = specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0]);
  const builtin = specifier.replace(/^node:/, '').split('/')[0];
  if (isNode && !CORE_NODE_ALLOWED.has(builtin)) {
    return `src/core is pure: '${specifier}' does I/O; receive it through a port (only node:crypto and node:zlib are allowed).`;
  }
  const adapter = ADAPTER_PACKAGES.find((p) => matchesPackage(specifier, p));
  if (adapter) return `src/core is pure: '${specifier}' is an adapter package (${adapter}); it belongs in src/app behind a port.`;
  return undefined;
}

/** The string a module reference names, or null when it is computed at run time. */
function literalSpecifier(node) {
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node.type === 'TSLiteralType') return literalSpecifier(node.literal);
  return null;
}

const layerBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the dependency rule between src/core, src/app and src/handlers.' },
    // The floors of src/core, bottom up (arrays of folder names).
    schema: [
      { type: 'object', properties: { coreFloors: { type: 'array', items: { type: 'array', items: { type: 'string' } } } }, additionalProperties: false },
    ],
  },
  create(context) {
    const file = context.filename;
    const floors = context.options[0]?.coreFloors ?? [];
    const floorOf = new Map(floors.flatMap((folders, floor) => folders.map((folder) => [folder, floor])));
    const check = (node, source) => {
      const specifier = literalSpecifier(source);
      if (specifier === null) {
        const from = repoPath(file);
        if (within(from, 'src/core'))
          context.report({ node, message: 'src/core must not import a computed module name: the dependency rule cannot check it.' });
        return;
      }
      const message = violation(file, specifier, floorOf);
      if (message) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportEqualsDeclaration: (node) => node.moduleReference.type === 'TSExternalModuleReference' && check(node, node.moduleReference.expression),
      TSImportType: (node) => check(node, node.argument ?? node.parameter),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.serverless/**', 'test/fixtures/corpus/**'] },
  {
    // Every TypeScript file the project owns: functions that fit in a head, promises awaited or
    // handed on, nothing left unused, switches over closed types that name every case.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'eval/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      complexity: ['error', 20],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: {
      draftsman: { rules: { 'layer-boundaries': layerBoundaries } },
    },
    rules: { 'draftsman/layer-boundaries': ['error', { coreFloors: CORE_FLOORS }] },
  },
  {
    // No module imports itself through others at run time: within a core folder (where the floor
    // plan does not look) and across src. Type-only imports are erased at run time and not counted
    // here; between core folders the floor plan counts them too.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Ambient inputs make core non-deterministic: the clock, ids and configuration are ports.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'src/core reads no environment or process state: pass configuration in.' },
        { name: 'fetch', message: 'src/core does no network I/O: use a port.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'src/core reads time from the injected Clock.' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'src/core reads time from the injected Clock.' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'src/core takes ids from the injected Ids.' },
      ],
    },
  },
);
