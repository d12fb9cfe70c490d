/**
 * Which test runner a JavaScript package uses, read from its own declarations: the `test` script's
 * command line first (through wrappers such as `cross-env`, `c8`, `nyc` and through `npm run x`
 * indirection), then its dependencies. Nothing is guessed: a runner that cannot be read from the
 * package leaves the focused command unknown.
 */

/** The runner a module's tests use and why; `focused` is the argv (module-relative) with `{testFile}` to fill in. */
export interface RunnerChoice {
  name?: string;
  reason: string;
  focused?: string[];
}

/** npm's placeholder from `npm init`: a test script that only fails. */
const PLACEHOLDER = /no test specified/;
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Command lines are cut to this length before reading (package.json scripts already are, to 300). */
const MAX_LINE = 1000;
/** How deep `npm run a` → `npm run b` → … is followed, and how many commands are read in all. */
const MAX_DEPTH = 4;
const MAX_COMMANDS = 40;

/** Options carried into the focused command because the runner cannot load or find the tests without them. */
const CARRIED: Record<string, ReadonlySet<string>> = {
  jest: new Set(['--config', '-c', '--selectProjects']),
  vitest: new Set(['--config', '-c', '--root', '-r', '--project', '--dir']),
  mocha: new Set(['--require', '-r', '--import', '--loader', '--config', '--ui', '-u', '--extension']),
  ava: new Set(['--config']),
  tap: new Set<string>(),
};

const FOCUSED: Record<string, (carried: string[]) => string[]> = {
  vitest: (c) => ['npx', 'vitest', 'run', ...c, '{testFile}'],
  jest: (c) => ['npx', 'jest', ...c, '{testFile}'],
  mocha: (c) => ['npx', 'mocha', ...c, '{testFile}'],
  ava: (c) => ['npx', 'ava', ...c, '{testFile}'],
  tap: (c) => ['npx', 'tap', ...c, '{testFile}'],
};
const BIN_ALIASES: Record<string, string> = { _mocha: 'mocha' };

/** Node options that take their value as the next word (`--import tsx`). */
const NODE_VALUE_OPTIONS = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--env-file',
  '--conditions',
  '-C',
  '--input-type',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-concurrency',
  '--test-timeout',
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-shard',
  '--tsconfig',
  '--watch-path',
]);

/** Test runners and fan-out tools this map cannot give a one-file command for: seeing one rules out a dependency-based answer. */
const KNOWN_OTHERS = new Set([
  'karma',
  'playwright',
  'cypress',
  'jasmine',
  'jasmine-ts',
  'tape',
  'uvu',
  'wdio',
  'react-scripts',
  'vue-cli-service',
  'ng',
  'lerna',
  'turbo',
  'nx',
  'bun',
  'deno',
  'web-test-runner',
  'wtr',
  'electron-mocha',
  'mocha-headless-chrome',
  'testem',
  'qunit',
  'lab',
  'start-server-and-test',
  'vscode-test',
]);

/** Words that start the real command after a coverage wrapper's own options (`nyc --reporter lcov mocha`). */
const COMMAND_WORDS = new Set([
  ...Object.keys(FOCUSED),
  ...Object.keys(BIN_ALIASES),
  'node',
  'tsx',
  'npm',
  'yarn',
  'pnpm',
  'npx',
  'run-s',
  'run-p',
  'npm-run-all',
  ...KNOWN_OTHERS,
]);

type Step =
  | { kind: 'runner'; name: string; focused: string[]; env: string[] }
  | { kind: 'scripts'; names: string[]; env: string[] }
  | { kind: 'known'; name: string }
  | { kind: 'other' };

const OTHER: Step = { kind: 'other' };

/** A shell line as its simple commands (split at `&&`, `||`, `;`, `|`, `&`, parentheses), each as words with quotes removed. One pass, linear. */
export function shellCommands(line: string): string[][] {
  const text = line.slice(0, MAX_LINE);
  const commands: string[][] = [[]];
  let word = '';
  let inWord = false;
  let quote = '';
  const flush = (): void => {
    if (inWord) commands[commands.length - 1].push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) flush();
    else if ('&|;()'.includes(c)) {
      flush();
      if (commands[commands.length - 1].length > 0) commands.push([]);
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return commands.filter((c) => c.length > 0);
}

/** `./node_modules/.bin/jest` → `jest`. */
const binName = (word: string): string => {
  const name = word.slice(word.lastIndexOf('/') + 1);
  return BIN_ALIASES[name] ?? name;
};

/** Options named in `names` with their values, in both `--opt=v` and `--opt v` forms. */
function carriedOptions(args: readonly string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const eq = args[i].indexOf('=');
    if (!names.has(eq > 0 ? args[i].slice(0, eq) : args[i])) continue;
    if (eq > 0) out.push(args[i]);
    else if (i + 1 < args.length) out.push(args[i], args[++i]);
  }
  return out;
}

/** Where the command proper starts after environment assignments, `cross-env`, `npx` and coverage wrappers. */
function commandStart(words: readonly string[]): { at: number; env: string[] } | undefined {
  const env: string[] = [];
  let i = 0;
  while (i < words.length) {
    const w = words[i];
    if (ENV_ASSIGNMENT.test(w)) env.push(words[i++]);
    else if (w === 'cross-env' || w === 'cross-env-shell' || w === 'env') i++;
    else if (w === 'npx') i = skipOptions(words, i + 1);
    else if (w === 'c8' || w === 'nyc') {
      const next = words.findIndex((x, j) => j > i && COMMAND_WORDS.has(binName(x)));
      if (next < 0) return undefined;
      i = next;
    } else return { at: i, env };
  }
  return undefined;
}

function skipOptions(words: readonly string[], from: number): number {
  let i = from;
  while (i < words.length && words[i].startsWith('-')) i++;
  return i;
}

/** `node [options] --test [files]` (or `tsx … --test`): the focused form keeps the options (loaders such as `--import tsx`) and drops the files. */
function nodeTest(bin: 'node' | 'tsx', args: readonly string[], env: string[]): Step {
  const kept: string[] = [];
  let test = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('-')) break; // a script (node ./run.js) or, after --test, the test files
    const takesValue = !a.includes('=') && NODE_VALUE_OPTIONS.has(a);
    const value = takesValue && i + 1 < args.length ? [args[++i]] : [];
    if (a === '--test') test = true;
    else if (!a.startsWith('--watch')) kept.push(a, ...value);
  }
  if (!test) return OTHER;
  const runner = bin === 'node' ? ['node'] : ['npx', 'tsx'];
  return { kind: 'runner', name: 'node:test', focused: [...runner, ...kept, '--test', '{testFile}'], env };
}

/** The script names `npm-run-all` / `run-s` / `run-p` runs; `test:*` matches one `:`-level, `test:**` any. */
function runAllTargets(args: readonly string[], scripts: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(scripts);
  return args
    .filter((a) => !a.startsWith('-'))
    .flatMap((pattern) => {
      if (!pattern.includes('*')) return [pattern];
      const source = pattern
        .slice(0, 100)
        .split(/(\*\*|\*)/)
        .map((part) => (part === '**' ? '.+' : part === '*' ? '[^:]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      const re = new RegExp(`^${source}$`);
      return names.filter((n) => re.test(n));
    });
}

const scriptsStep = (names: string[], scripts: Readonly<Record<string, string>>, env: string[]): Step => {
  const known = names.filter((n) => scripts[n] !== undefined);
  return known.length > 0 ? { kind: 'scripts', names: known, env } : OTHER;
};

const WORKSPACE_FLAGS = /^(--workspaces?|-ws|-w|--recursive|-r|--filter|-F)(=|$)/;
const NPM_RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const NPM_TEST = new Set(['test', 't', 'tst']);

/** `npm run x`, `npm test`, `yarn x`, `pnpm run x`, `yarn jest`, `pnpm exec vitest`…; a run over workspaces is fan-out. */
function packageManagerStep(pm: string, args: readonly string[], scripts: Readonly<Record<string, string>>, env: string[]): Step {
  const lead = skipOptions(args, 0);
  // npm takes its workspace options anywhere before `--`; yarn and pnpm before the script name.
  const own = pm === 'npm' ? args.slice(0, args.includes('--') ? args.indexOf('--') : args.length) : args.slice(0, lead);
  if (own.some((a) => WORKSPACE_FLAGS.test(a)) || args[lead] === 'workspaces' || args[lead] === 'workspace')
    return { kind: 'known', name: `${pm} over workspaces` };
  const [first, ...rest] = args.slice(lead);
  if (first === undefined) return OTHER;
  if (NPM_RUN.has(first)) return rest[0] ? scriptsStep([rest[0]], scripts, env) : OTHER;
  if (NPM_TEST.has(first)) return scriptsStep(['test'], scripts, env);
  if (first === 'exec' || first === 'x' || first === 'dlx')
    return classify(
      rest.filter((a) => a !== '--'),
      scripts,
      env,
    );
  if (pm !== 'npm' && scripts[first] !== undefined) return scriptsStep([first], scripts, env);
  // `yarn jest` / `pnpm vitest` run the package's own binary of that name.
  return pm !== 'npm' ? classify(args.slice(lead), scripts, env) : OTHER;
}

/** What one simple command is: a runner, scripts to follow, a tool known to be something else, or unknown. */
function classify(words: readonly string[], scripts: Readonly<Record<string, string>>, outerEnv: string[]): Step {
  const start = commandStart(words);
  if (!start) return OTHER;
  const env = [...outerEnv, ...start.env];
  const bin = binName(words[start.at]);
  const args = words.slice(start.at + 1);
  if (FOCUSED[bin]) return { kind: 'runner', name: bin, focused: FOCUSED[bin](carriedOptions(args, CARRIED[bin])), env };
  if (bin === 'node' || bin === 'tsx') return nodeTest(bin, args, env);
  if (bin === 'npm' || bin === 'yarn' || bin === 'pnpm') return packageManagerStep(bin, args, scripts, env);
  if (bin === 'run-s' || bin === 'run-p' || bin === 'npm-run-all') return scriptsStep(runAllTargets(args, scripts), scripts, env);
  return KNOWN_OTHERS.has(bin) ? { kind: 'known', name: bin } : OTHER;
}

interface Findings {
  runners: Map<string, { focused: string[]; env: string[] }>;
  known: string[];
  commands: number;
  visited: Set<string>;
}

/** Every command a script runs, following `npm run` indirection to a bounded depth; each script is read once. */
function walk(script: string, scripts: Readonly<Record<string, string>>, env: string[], depth: number, found: Findings): void {
  if (depth > MAX_DEPTH || found.visited.has(script)) return;
  found.visited.add(script);
  for (const words of shellCommands(scripts[script] ?? '')) {
    if (++found.commands > MAX_COMMANDS) return;
    const step = classify(words, scripts, env);
    if (step.kind === 'runner' && !found.runners.has(step.name)) found.runners.set(step.name, { focused: step.focused, env: step.env });
    else if (step.kind === 'known') found.known.push(step.name);
    else if (step.kind === 'scripts') for (const name of step.names) walk(name, scripts, step.env, depth + 1, found);
  }
}

const withEnv = (env: readonly string[], argv: string[]): string[] => (env.length > 0 ? ['env', ...env, ...argv] : argv);

/** The runner the `test` script runs, or why none can be named; undefined when the script names nothing either way. */
function fromTestScript(scripts: Readonly<Record<string, string>>): RunnerChoice | undefined {
  const found: Findings = { runners: new Map(), known: [], commands: 0, visited: new Set() };
  walk('test', scripts, [], 0, found);
  const runners = [...found.runners];
  if (runners.length === 1) {
    const [name, { focused, env }] = runners[0];
    return { name, focused: withEnv(env, focused), reason: `the test script runs ${name}` };
  }
  if (runners.length > 1) return { reason: `the test script runs ${runners.map(([n]) => n).join(' and ')}: no single runner for one file` };
  if (found.known.length > 0) return { reason: `the test script runs ${found.known[0]}, which has no one-file form here` };
  return undefined;
}

const RUNNER_DEPENDENCIES = ['ava', 'jest', 'vitest', 'mocha', 'tap'];

/** A package's test runner: from the `test` script, else from the one runner its dependencies declare. */
export function jsTestRunner(scripts: Readonly<Record<string, string>>, dependencies: ReadonlySet<string>): RunnerChoice {
  const hasTest = hasTestScript(scripts);
  const fromScript = hasTest ? fromTestScript(scripts) : undefined;
  if (fromScript) return fromScript;
  const declared = RUNNER_DEPENDENCIES.filter((d) => dependencies.has(d));
  const why = hasTest ? 'the test script names no runner' : 'no test script';
  if (declared.length === 1) return { name: declared[0], focused: FOCUSED[declared[0]]([]), reason: `${why}; ${declared[0]} is a declared dependency` };
  if (declared.length > 1) return { reason: `${why}; the dependencies declare ${declared.join(', ')}` };
  return { reason: `${why} and no test runner is a declared dependency` };
}

/** A `test` script that runs something (npm's `no test specified` placeholder only fails). */
export function hasTestScript(scripts: Readonly<Record<string, string>>): boolean {
  const test = scripts.test;
  return test !== undefined && test.trim() !== '' && !PLACEHOLDER.test(test);
}
