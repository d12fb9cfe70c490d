import type { RunReportInput } from '../phases/run-report-schema.js';
import type { PathClass } from '../paths/path-rules.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import { moduleOf, shellLine } from './verify-commands.js';

// How a reviewer runs the tests of the change: the repository map's commands for the modules it touched.

/** Test files named in one focused command; more run the module's whole suite instead. */
const MAX_FOCUSED_FILES = 10;

/**
 * Per module the change touched: its focused test command filled with the changed test files when
 * the map's template takes a file (`{testFile}`) or a class (`{className}`), else its unit test
 * command. A template that needs a test's own name (`{testName}`) cannot be filled from paths.
 */
export function testCommandsOf(
  map: RepoMap | undefined,
  changed: readonly string[],
  classify: (path: string) => PathClass,
): NonNullable<RunReportInput['testCommands']> {
  if (!map) return [];
  const byModule = new Map<string, string[]>();
  for (const path of changed) {
    const id = moduleOf(map, path);
    if (id !== undefined) byModule.set(id, [...(byModule.get(id) ?? []), path]);
  }
  return map.build.flatMap((profile): NonNullable<RunReportInput['testCommands']> => {
    const paths = byModule.get(profile.moduleId);
    if (!paths) return [];
    const tests = paths.filter((p) => classify(p) === 'test');
    const focused = profile.focusedTestTemplate ? filled(profile.focusedTestTemplate.argv, profile.focusedTestTemplate.cwd, tests) : undefined;
    if (focused && profile.focusedTestTemplate)
      return [{ module: profile.moduleId, cwd: profile.focusedTestTemplate.cwd, run: shellLine(focused), focused: true }];
    return profile.unitTest ? [{ module: profile.moduleId, cwd: profile.unitTest.cwd, run: shellLine(profile.unitTest.argv), focused: false }] : [];
  });
}

function filled(argv: readonly string[], cwd: string, tests: readonly string[]): string[] | undefined {
  if (tests.length === 0 || tests.length > MAX_FOCUSED_FILES) return undefined;
  const at = argv.findIndex((a) => a.includes('{testFile}') || a.includes('{className}'));
  if (at < 0 || argv.some((a) => a.includes('{testName}'))) return undefined;
  const relative = tests.map((t) => (cwd === '.' || cwd === '' ? t : t.startsWith(`${cwd}/`) ? t.slice(cwd.length + 1) : t));
  if (argv[at].includes('{testFile}')) return [...argv.slice(0, at), ...relative.map((t) => argv[at].replace('{testFile}', t)), ...argv.slice(at + 1)];
  const classes = relative.map((t) => t.slice(t.lastIndexOf('/') + 1).replace(/\.[^.]+$/, ''));
  return [...argv.slice(0, at), argv[at].replace('{className}', classes.join(',')), ...argv.slice(at + 1)];
}
