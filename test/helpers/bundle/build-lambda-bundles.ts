import { build, type BuildOptions, type Plugin } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type ScalarTag } from 'yaml';

/**
 * Builds every function of serverless.yml the way `osls package` does with serverless-esbuild,
 * from the same source of truth: the `custom.esbuild` block of serverless.yml (minus the keys
 * that are serverless-esbuild's own, as serverless-esbuild strips them), the plugins of
 * infra/esbuild-plugins.cjs, one build per function (`package.individually`), entry
 * `src/handlers/<name>.ts`, output `<handler dir>/<name>.mjs`. Each function then gets its own
 * task root laid out as its zip is (`src/handlers/<name>.mjs`, plus whatever the plugins put
 * under `__only_<function>/`, prefix stripped), outside the repository so nothing resolves
 * from node_modules, as in /var/task.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Options serverless-esbuild 1.57 consumes itself and removes before calling esbuild. */
const SERVERLESS_ESBUILD_ONLY = [
  'concurrency',
  'zipConcurrency',
  'exclude',
  'nativeZip',
  'packager',
  'packagePath',
  'watch',
  'keepOutputDirectory',
  'packagerOptions',
  'installExtraArgs',
  'outputFileExtension',
  'outputBuildFolder',
  'outputWorkFolder',
  'nodeExternals',
  'skipBuild',
  'skipRebuild',
  'skipBuildExcludeFns',
  'stripEntryResolveExtensions',
  'disposeContext',
  'plugins',
];

export interface FunctionSpec {
  /** The function's key in serverless.yml (`tokenRead`). */
  key: string;
  /** `src/handlers/token-read.handler`. */
  handler: string;
  /** The execution role's logical id in infra/roles.yml. */
  role: string;
  /** The `environment` block, CloudFormation intrinsics left as they are. */
  environment: Record<string, unknown>;
  memorySize?: number;
  timeout?: number;
}

export interface BuiltFunction extends FunctionSpec {
  /** The function's task root (the unzipped package). */
  taskRoot: string;
  /** Size of the bundle in bytes. */
  bytes: number;
}

interface ServerlessYml {
  custom: { esbuild: Record<string, unknown> };
  functions: Record<string, { handler: string; role: string; environment?: Record<string, unknown>; memorySize?: number; timeout?: number }>;
}

/** serverless.yml, with CloudFormation tags kept as `{tag, value}` (only the esbuild block and handlers matter here). */
export function readServerlessYml(): ServerlessYml {
  const keep = (tag: string): ScalarTag => ({ tag, resolve: (value: string) => ({ tag, value }) as unknown as string });
  const customTags = ['!Sub', '!Ref', '!GetAtt', '!If', '!Not', '!Equals', '!Condition'].map(keep);
  const seqTags = ['!If', '!Not', '!Equals', '!And', '!Or'].map((tag) => ({ tag, collection: 'seq' as const, resolve: (value: unknown) => ({ tag, value }) }));
  return parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'), { customTags: [...customTags, ...seqTags] as never }) as ServerlessYml;
}

export function functionSpecs(yml = readServerlessYml()): FunctionSpec[] {
  return Object.entries(yml.functions).map(([key, f]) => ({
    key,
    handler: f.handler,
    role: f.role,
    environment: f.environment ?? {},
    memorySize: f.memorySize,
    timeout: f.timeout,
  }));
}

/** The esbuild options serverless-esbuild derives from `custom.esbuild`, for one entry. */
export function esbuildOptionsFor(entry: string, outdir: string, yml = readServerlessYml()): BuildOptions {
  const configured = { ...yml.custom.esbuild };
  const outputFileExtension = String(configured.outputFileExtension ?? '.js');
  const exclude = (configured.exclude as string[] | undefined) ?? [];
  const pluginsPath = configured.plugins as string | undefined;
  for (const key of SERVERLESS_ESBUILD_ONLY) delete configured[key];
  const require = createRequire(import.meta.url);
  const plugins: Plugin[] = pluginsPath ? (require(join(ROOT, pluginsPath)) as (sls: { serviceDir: string }) => Plugin[])({ serviceDir: ROOT }) : [];
  return {
    ...(configured as BuildOptions),
    external: [...((configured.external as string[] | undefined) ?? []), ...(exclude.includes('*') ? [] : exclude)],
    plugins,
    entryPoints: [entry],
    outdir,
    absWorkingDir: ROOT,
    logLevel: 'error',
    ...(outputFileExtension !== '.js' ? { outExtension: { '.js': outputFileExtension } } : {}),
  };
}

/**
 * Build every function into `<dir>/build`, then lay out `<dir>/<key>/` as its zip. One esbuild
 * run with every entry (no code splitting, so each output is the same self-contained bundle a
 * per-function build gives) parses the shared sources once. Source maps are left out: Lambda
 * reads them only with `--enable-source-maps`, and writing them triples the build time.
 */
export async function buildLambdaBundles(dir: string): Promise<Record<string, BuiltFunction>> {
  const yml = readServerlessYml();
  const buildDir = join(dir, 'build');
  const specs = functionSpecs(yml).map((spec) => ({ spec, module: spec.handler.slice(0, spec.handler.lastIndexOf('.')) }));
  const dirs = new Set(specs.map((s) => dirname(s.module)));
  if (dirs.size !== 1) throw new Error(`handlers live in several directories (${[...dirs].join(', ')}); build them one by one`);
  for (const { spec, module } of specs)
    if (!existsSync(join(ROOT, `${module}.ts`))) throw new Error(`serverless.yml names ${spec.handler}, but ${module}.ts does not exist`);
  const entries = specs.map((s) => `${s.module}.ts`);
  const result = await build({ ...esbuildOptionsFor(entries[0], join(buildDir, [...dirs][0]), yml), entryPoints: entries, sourcemap: false, metafile: true });
  const out: Record<string, BuiltFunction> = {};
  for (const { spec, module } of specs) {
    const taskRoot = join(dir, spec.key);
    mkdirSync(join(taskRoot, dirname(module)), { recursive: true });
    const bundle = `${module}.mjs`;
    cpSync(join(buildDir, bundle), join(taskRoot, bundle));
    const only = join(buildDir, `__only_${spec.key}`);
    if (existsSync(only)) for (const name of readdirSync(only)) cpSync(join(only, name), join(taskRoot, name), { recursive: true });
    const bytes = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith(bundle))?.[1].bytes ?? 0;
    out[spec.key] = { ...spec, taskRoot, bytes };
  }
  return out;
}
