import type { TreeIndex } from './detect-modules.js';
import { hasTestScript, jsTestRunner } from './js-test-runner.js';
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
  /** Every manifest of the repository (a `requirements/` directory's files are not the module's own). */
  manifests: ManifestRecord[];
}

type Commands = Omit<BuildProfile, 'moduleId' | 'buildSystem' | 'evidenceRefs'>;

function mavenCommands({ rel, tree }: ProfileContext): Commands {
  const mvn = tree.files.has('mvnw') ? './mvnw' : 'mvn';
  const pl = rel === '.' ? [] : ['-pl', rel, '-am'];
  return {
    compile: at('.', mvn, '-q', ...pl, '-DskipTests', 'compile'),
    unitTest: at('.', mvn, '-q', ...pl, 'test'),
    focusedTestTemplate: at('.', mvn, '-q', ...pl, '-Dtest={className}', '-Dsurefire.failIfNoSpecifiedTests=false', 'test'),
    testRunner: {
      name: 'maven-surefire',
      reason: mvn === 'mvn' ? 'pom.xml; the repository has no mvnw wrapper' : "pom.xml, through the repository's mvnw wrapper",
    },
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
    testRunner: {
      name: 'gradle test',
      reason: gradle === 'gradle' ? 'the Gradle build; the repository has no gradlew wrapper' : "the Gradle build, through the repository's gradlew wrapper",
    },
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

function jsCommands({ mod, ms, rel, externalDeps }: ProfileContext): Commands {
  const pm = mod.buildSystem;
  const scriptTable = ms[0]?.scripts ?? {};
  const scripts = new Set(Object.keys(scriptTable));
  const run = scriptRunner(pm, rel, mod.name);
  const deps = new Set(ms.flatMap((m) => m.dependencies.map((d) => d.name)));
  const runner = jsTestRunner(scriptTable, deps);
  return {
    compile: scripts.has('build')
      ? run('build')
      : scripts.has('typecheck')
        ? run('typecheck')
        : deps.has('typescript')
          ? at(rel, 'npx', 'tsc', '--noEmit')
          : undefined,
    // The package's own entry point, whatever it runs; the runner only shapes the one-file command.
    unitTest: hasTestScript(scriptTable) ? run('test') : undefined,
    focusedTestTemplate: runner.focused ? at(rel, ...runner.focused) : undefined,
    testRunner: { name: runner.name, reason: runner.reason },
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
    testRunner: { name: 'go test', reason: 'go.mod' },
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
    testRunner: { name: 'cargo test', reason: 'Cargo.toml' },
    needsNetwork: external,
    networkReason: external ? 'crates are fetched from the registry' : 'only path dependencies',
  };
}

const inModule = (rel: string, path: string): string => (rel === '.' ? path : `${rel}/${path}`);
const fromModule = (rel: string, path: string): string => (rel === '.' ? path : path.slice(rel.length + 1) || '.');

/** What declares pytest for a Python module, if anything: its configuration, its files, its dependencies. */
function pytestEvidence({ mod, ms, rel, tree, manifests }: ProfileContext): string | undefined {
  const configured = ms.find((m) => m.facts?.testRunner === 'pytest');
  if (configured) return `${configured.path} configures pytest`;
  const files = [inModule(rel, 'pytest.ini'), inModule(rel, 'conftest.py'), ...mod.testRoots.map((r) => `${r}/conftest.py`)];
  const file = files.find((f) => tree.files.has(f));
  if (file) return `${file} is pytest's`;
  // A `requirements/` directory's files (requirements/test.txt) are read as their own module; they still declare this one's tools.
  const reqDir = inModule(rel, 'requirements/');
  const declaring = [...ms, ...manifests.filter((m) => m.path.startsWith(reqDir))].find((m) => m.dependencies.some((d) => /^pytest([-_].+)?$/i.test(d.name)));
  return declaring ? `${declaring.path} declares pytest` : undefined;
}

/** The test commands of a Python module: pytest where it is declared, unknown behind tox or nox, else the standard library's unittest. */
function pythonTests(ctx: ProfileContext): Pick<Commands, 'unitTest' | 'focusedTestTemplate' | 'testRunner'> {
  const { mod, rel, tree } = ctx;
  const pytest = pytestEvidence(ctx);
  if (pytest) {
    return {
      unitTest: at(rel, 'python', '-m', 'pytest', '-q'),
      focusedTestTemplate: at(rel, 'python', '-m', 'pytest', '-q', '{testFile}'),
      testRunner: { name: 'pytest', reason: pytest },
    };
  }
  // tox and nox build their own environments and run whatever their sessions say (not read here).
  const wrapper = ['tox.ini', 'noxfile.py'].map((f) => inModule(rel, f)).find((f) => tree.files.has(f));
  if (wrapper) return { testRunner: { reason: `${wrapper} decides how the tests run and nothing declares pytest` } };
  // unittest discovery only enters directories with __init__.py: a plain tests/ directory is named as the start.
  const plain = mod.testRoots.length === 1 && !tree.files.has(`${mod.testRoots[0]}/__init__.py`) ? ['discover', '-s', fromModule(rel, mod.testRoots[0])] : [];
  return {
    unitTest: at(rel, 'python', '-m', 'unittest', ...plain),
    focusedTestTemplate: at(rel, 'python', '-m', 'unittest', '{testFile}'),
    testRunner: { name: 'unittest', reason: 'nothing declares pytest, tox or nox' },
  };
}

function pythonCommands(ctx: ProfileContext): Commands {
  const { mod, rel, externalDeps } = ctx;
  return {
    compile: at(rel, 'python', '-m', 'compileall', '-q', ...mod.sourceRoots.map((r) => fromModule(rel, r))),
    ...pythonTests(ctx),
    needsNetwork: externalDeps,
    networkReason: externalDeps ? 'dependencies must be installed from the package index' : 'no dependencies declared',
  };
}

function dotnetCommands({ rel, externalDeps }: ProfileContext): Commands {
  return {
    compile: at(rel, 'dotnet', 'build'),
    unitTest: at(rel, 'dotnet', 'test'),
    focusedTestTemplate: at(rel, 'dotnet', 'test', '--filter', '{className}'),
    testRunner: { name: 'dotnet test', reason: 'the project file' },
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
    const commands = (COMMANDS[mod.buildSystem] ?? otherCommands)({ mod, ms, rel: mod.path, externalDeps, tree, modules, manifests });
    return { moduleId: mod.id, buildSystem: mod.buildSystem, evidenceRefs: mod.evidenceRefs, ...commands };
  });
}
