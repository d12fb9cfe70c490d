import type { TreeIndex } from './detect-modules.js';
import type { BuildProfile, BuildSystem, Command, ManifestRecord, ModuleRecord } from './repo-map-schema.js';

const at = (cwd: string, ...argv: string[]): Command => ({ cwd, argv });

/** What a build system's commands are inferred from: the module, its manifests (primary first), the tree, every module. */
interface ProfileContext {
  mod: ModuleRecord;
  ms: ManifestRecord[];
  rel: string;
  externalDeps: boolean;
  tree: TreeIndex;
  modules: ModuleRecord[];
}

type Commands = Omit<BuildProfile, 'moduleId' | 'buildSystem' | 'evidenceRefs'>;

function mavenCommands({ rel, tree }: ProfileContext): Commands {
  const mvn = tree.files.has('mvnw') ? './mvnw' : 'mvn';
  const pl = rel === '.' ? [] : ['-pl', rel, '-am'];
  return {
    compile: at('.', mvn, '-q', ...pl, '-DskipTests', 'compile'),
    unitTest: at('.', mvn, '-q', ...pl, 'test'),
    focusedTestTemplate: at('.', mvn, '-q', ...pl, '-Dtest={className}', '-Dsurefire.failIfNoSpecifiedTests=false', 'test'),
    needsNetwork: true,
    networkReason: 'Maven resolves plugins and dependencies from remote repositories unless ~/.m2 is warm',
  };
}

function gradleCommands({ rel, tree }: ProfileContext): Commands {
  const gradle = tree.files.has('gradlew') ? './gradlew' : 'gradle';
  const task = (t: string): string => (rel === '.' ? t : `:${rel.replace(/\//g, ':')}:${t}`);
  return {
    compile: at('.', gradle, '-q', task('classes')),
    unitTest: at('.', gradle, '-q', task('test')),
    focusedTestTemplate: at('.', gradle, '-q', task('test'), '--tests', '{className}'),
    needsNetwork: true,
    networkReason: 'Gradle downloads its distribution, plugins and dependencies unless cached',
  };
}

/** How a JavaScript package manager runs a script of a module (the root, a pnpm filter, a yarn or npm workspace). */
function scriptRunner(pm: string, rel: string, name: string | undefined): (script: string) => Command {
  if (rel === '.') return (script) => at('.', pm, 'run', script);
  if (pm === 'pnpm') return (script) => at('.', 'pnpm', '--filter', name ?? rel, 'run', script);
  if (pm === 'yarn') return (script) => at(rel, 'yarn', 'run', script);
  return (script) => at('.', 'npm', 'run', script, '--workspace', rel);
}

function testRunner(deps: Set<string>): string[] {
  if (deps.has('vitest')) return ['npx', 'vitest', 'run', '{testFile}'];
  if (deps.has('jest')) return ['npx', 'jest', '{testFile}'];
  if (deps.has('mocha')) return ['npx', 'mocha', '{testFile}'];
  return ['node', '--test', '{testFile}'];
}

function jsCommands({ mod, ms, rel, externalDeps }: ProfileContext): Commands {
  const pm = mod.buildSystem;
  const scripts = new Set(Object.keys(ms[0]?.scripts ?? {}));
  const run = scriptRunner(pm, rel, mod.name);
  const deps = new Set(ms.flatMap((m) => m.dependencies.map((d) => d.name)));
  return {
    compile: scripts.has('build')
      ? run('build')
      : scripts.has('typecheck')
        ? run('typecheck')
        : deps.has('typescript')
          ? at(rel, 'npx', 'tsc', '--noEmit')
          : undefined,
    unitTest: scripts.has('test') ? run('test') : undefined,
    focusedTestTemplate: at(rel, ...testRunner(deps)),
    needsNetwork: externalDeps,
    networkReason: externalDeps ? `dependencies must be installed (${pm} install) from the registry` : 'no external dependencies declared',
  };
}

function goCommands({ ms, rel, modules }: ProfileContext): Commands {
  const external = ms.some(
    (m) => m.kind === 'go.mod' && m.dependencies.some((d) => d.kind === 'dependency' && !modules.some((o) => o.buildSystem === 'go' && o.name === d.name)),
  );
  return {
    compile: at(rel, 'go', 'build', './...'),
    unitTest: at(rel, 'go', 'test', './...'),
    focusedTestTemplate: at(rel, 'go', 'test', './...', '-run', '^{testName}$'),
    needsNetwork: external,
    networkReason: external ? 'go.mod requires modules outside the repository (module proxy)' : 'every required module is in the repository',
  };
}

function cargoCommands({ mod, ms, rel }: ProfileContext): Commands {
  const external = ms.some((m) => m.dependencies.some((d) => d.kind === 'dependency'));
  const pkg = mod.name ? ['-p', mod.name] : [];
  return {
    compile: at(rel, 'cargo', 'build', ...pkg),
    unitTest: at(rel, 'cargo', 'test', ...pkg),
    focusedTestTemplate: at(rel, 'cargo', 'test', ...pkg, '{testName}'),
    needsNetwork: external,
    networkReason: external ? 'crates are fetched from the registry' : 'only path dependencies',
  };
}

function pythonCommands({ mod, rel, externalDeps }: ProfileContext): Commands {
  return {
    compile: at(rel, 'python', '-m', 'compileall', '-q', ...mod.sourceRoots.map((r) => (rel === '.' ? r : r.slice(rel.length + 1) || '.'))),
    unitTest: at(rel, 'python', '-m', 'pytest', '-q'),
    focusedTestTemplate: at(rel, 'python', '-m', 'pytest', '-q', '{testFile}'),
    needsNetwork: externalDeps,
    networkReason: externalDeps ? 'dependencies must be installed from the package index' : 'no dependencies declared',
  };
}

function dotnetCommands({ rel, externalDeps }: ProfileContext): Commands {
  return {
    compile: at(rel, 'dotnet', 'build'),
    unitTest: at(rel, 'dotnet', 'test'),
    focusedTestTemplate: at(rel, 'dotnet', 'test', '--filter', '{className}'),
    needsNetwork: externalDeps,
    networkReason: externalDeps ? 'NuGet packages are restored from the feed' : 'no package references',
  };
}

function otherCommands({ externalDeps }: ProfileContext): Commands {
  return { needsNetwork: externalDeps, networkReason: externalDeps ? 'dependencies come from a registry' : 'no dependencies declared' };
}

const COMMANDS: Partial<Record<BuildSystem, (ctx: ProfileContext) => Commands>> = {
  maven: mavenCommands,
  gradle: gradleCommands,
  npm: jsCommands,
  pnpm: jsCommands,
  yarn: jsCommands,
  go: goCommands,
  cargo: cargoCommands,
  python: pythonCommands,
  dotnet: dotnetCommands,
};

/**
 * Build and test commands per module, inferred from manifests and wrapper files. They are
 * never run by draftsman; they are what CI and the PR body should say.
 */
export function inferBuildProfiles(modules: ModuleRecord[], manifests: ManifestRecord[], tree: TreeIndex): BuildProfile[] {
  const byPath = new Map(manifests.map((m) => [m.path, m]));
  return modules.map((mod) => {
    const ms = mod.manifests.map((p) => byPath.get(p)).filter((m): m is ManifestRecord => m !== undefined);
    const externalDeps = ms.some((m) => m.dependencies.some((d) => d.kind === 'dependency' || d.kind === 'plugin' || d.kind === 'parent'));
    const commands = (COMMANDS[mod.buildSystem] ?? otherCommands)({ mod, ms, rel: mod.path, externalDeps, tree, modules });
    return { moduleId: mod.id, buildSystem: mod.buildSystem, evidenceRefs: mod.evidenceRefs, ...commands };
  });
}
