import type { TreeIndex } from './detect-modules.js';
import type { BuildProfile, Command, ManifestRecord, ModuleRecord } from './repo-map-schema.js';

const at = (cwd: string, ...argv: string[]): Command => ({ cwd, argv });

/**
 * Build and test commands per module, inferred from manifests and wrapper files. They are
 * never run by draftsman; they are what CI and the PR body should say.
 */
export function inferBuildProfiles(modules: ModuleRecord[], manifests: ManifestRecord[], tree: TreeIndex): BuildProfile[] {
  const byPath = new Map(manifests.map((m) => [m.path, m]));
  const profiles: BuildProfile[] = [];
  for (const mod of modules) {
    const ms = mod.manifests.map((p) => byPath.get(p)).filter((m): m is ManifestRecord => m !== undefined);
    const primary = ms[0];
    const externalDeps = ms.some((m) => m.dependencies.some((d) => d.kind === 'dependency' || d.kind === 'plugin' || d.kind === 'parent'));
    const base = { moduleId: mod.id, buildSystem: mod.buildSystem, evidenceRefs: mod.evidenceRefs };
    const rel = mod.path;
    switch (mod.buildSystem) {
      case 'maven': {
        const mvn = tree.files.has('mvnw') ? './mvnw' : 'mvn';
        const pl = rel === '.' ? [] : ['-pl', rel, '-am'];
        profiles.push({
          ...base,
          compile: at('.', mvn, '-q', ...pl, '-DskipTests', 'compile'),
          unitTest: at('.', mvn, '-q', ...pl, 'test'),
          focusedTestTemplate: at('.', mvn, '-q', ...pl, '-Dtest={className}', '-Dsurefire.failIfNoSpecifiedTests=false', 'test'),
          needsNetwork: true,
          networkReason: 'Maven resolves plugins and dependencies from remote repositories unless ~/.m2 is warm',
        });
        break;
      }
      case 'gradle': {
        const gradle = tree.files.has('gradlew') ? './gradlew' : 'gradle';
        const task = (t: string): string => (rel === '.' ? t : `:${rel.replace(/\//g, ':')}:${t}`);
        profiles.push({
          ...base,
          compile: at('.', gradle, '-q', task('classes')),
          unitTest: at('.', gradle, '-q', task('test')),
          focusedTestTemplate: at('.', gradle, '-q', task('test'), '--tests', '{className}'),
          needsNetwork: true,
          networkReason: 'Gradle downloads its distribution, plugins and dependencies unless cached',
        });
        break;
      }
      case 'npm':
      case 'pnpm':
      case 'yarn': {
        const pm = mod.buildSystem;
        const scripts = new Set(primary?.scripts ?? []);
        const run = (script: string): Command =>
          rel === '.' ? at('.', pm, 'run', script) : pm === 'pnpm' ? at('.', 'pnpm', '--filter', mod.name ?? rel, 'run', script) : pm === 'yarn' ? at(rel, 'yarn', 'run', script) : at('.', 'npm', 'run', script, '--workspace', rel);
        const deps = new Set(ms.flatMap((m) => m.dependencies.map((d) => d.name)));
        const runner = deps.has('vitest') ? ['npx', 'vitest', 'run', '{testFile}'] : deps.has('jest') ? ['npx', 'jest', '{testFile}'] : deps.has('mocha') ? ['npx', 'mocha', '{testFile}'] : ['node', '--test', '{testFile}'];
        profiles.push({
          ...base,
          compile: scripts.has('build') ? run('build') : scripts.has('typecheck') ? run('typecheck') : deps.has('typescript') ? at(rel, 'npx', 'tsc', '--noEmit') : undefined,
          unitTest: scripts.has('test') ? run('test') : undefined,
          focusedTestTemplate: at(rel, ...runner),
          needsNetwork: externalDeps,
          networkReason: externalDeps ? `dependencies must be installed (${pm} install) from the registry` : 'no external dependencies declared',
        });
        break;
      }
      case 'go': {
        const external = ms.some((m) => m.kind === 'go.mod' && m.dependencies.some((d) => d.kind === 'dependency' && !modules.some((o) => o.buildSystem === 'go' && o.name === d.name)));
        profiles.push({
          ...base,
          compile: at(rel, 'go', 'build', './...'),
          unitTest: at(rel, 'go', 'test', './...'),
          focusedTestTemplate: at(rel, 'go', 'test', './...', '-run', '^{testName}$'),
          needsNetwork: external,
          networkReason: external ? 'go.mod requires modules outside the repository (module proxy)' : 'every required module is in the repository',
        });
        break;
      }
      case 'cargo': {
        const external = ms.some((m) => m.dependencies.some((d) => d.kind === 'dependency'));
        const pkg = mod.name ? ['-p', mod.name] : [];
        profiles.push({
          ...base,
          compile: at(rel, 'cargo', 'build', ...pkg),
          unitTest: at(rel, 'cargo', 'test', ...pkg),
          focusedTestTemplate: at(rel, 'cargo', 'test', ...pkg, '{testName}'),
          needsNetwork: external,
          networkReason: external ? 'crates are fetched from the registry' : 'only path dependencies',
        });
        break;
      }
      case 'python': {
        profiles.push({
          ...base,
          compile: at(rel, 'python', '-m', 'compileall', '-q', ...mod.sourceRoots.map((r) => (rel === '.' ? r : r.slice(rel.length + 1) || '.'))),
          unitTest: at(rel, 'python', '-m', 'pytest', '-q'),
          focusedTestTemplate: at(rel, 'python', '-m', 'pytest', '-q', '{testFile}'),
          needsNetwork: externalDeps,
          networkReason: externalDeps ? 'dependencies must be installed from the package index' : 'no dependencies declared',
        });
        break;
      }
      case 'dotnet':
        profiles.push({ ...base, compile: at(rel, 'dotnet', 'build'), unitTest: at(rel, 'dotnet', 'test'), focusedTestTemplate: at(rel, 'dotnet', 'test', '--filter', '{className}'), needsNetwork: externalDeps, networkReason: externalDeps ? 'NuGet packages are restored from the feed' : 'no package references' });
        break;
      default:
        profiles.push({ ...base, needsNetwork: externalDeps, networkReason: externalDeps ? 'dependencies come from a registry' : 'no dependencies declared' });
    }
  }
  return profiles;
}
