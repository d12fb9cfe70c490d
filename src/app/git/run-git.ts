import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';

/**
 * Settings that make git run nothing a repository's configuration names: no fsmonitor daemon,
 * no hooks, no external diff, no pager, no credential helper or askpass. Filter drivers have
 * names of the repository's choosing; `runGit` blanks every one the configuration defines.
 */
const NEUTRAL_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.askPass=',
  'core.sshCommand=',
  'core.editor=true',
  'core.untrackedCache=false',
  'diff.external=',
  'credential.helper=',
  'protocol.allow=never',
  'submodule.recurse=false',
];

/** The environment every git child gets: no system or user config, no prompts, C locale. */
export function neutralGitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: tmpdir(),
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'true',
    GIT_PAGER: 'cat',
    GIT_EXTERNAL_DIFF: '',
    GIT_NO_REPLACE_OBJECTS: '1',
  };
}

export interface RunGitOptions {
  input?: Buffer | string;
  /** Working directory; default the temp dir, so no repository is discovered by accident. */
  cwd?: string;
  maxBuffer?: number;
  /**
   * The repository whose filter drivers must be neutralised (for commands that may hash
   * working-tree files, such as `status`): `-C <dir>` or `--git-dir <dir>` arguments.
   */
  filtersOf?: string[];
}

/**
 * The one way local git is run: neutral configuration (above), `-c` before the subcommand, no
 * shell, stdout as a Buffer. Errors carry stderr (git's own text, never a credential).
 */
export async function runGit(args: string[], options: RunGitOptions = {}): Promise<Buffer> {
  const config = [...NEUTRAL_CONFIG];
  if (options.filtersOf) config.push(...(await filterOverrides(options.filtersOf)));
  return exec([...config.flatMap((c) => ['-c', c]), ...args], options);
}

/** `filter.<name>.*` blanked for every driver the repository's config names (reading config runs nothing). */
async function filterOverrides(location: string[]): Promise<string[]> {
  let listed: string;
  try {
    listed = (
      await exec([...NEUTRAL_CONFIG.flatMap((c) => ['-c', c]), ...location, 'config', '--null', '--name-only', '--get-regexp', '^filter\\.'], {})
    ).toString('utf8');
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const key of listed.split('\u0000')) {
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (match) names.add(match[1]);
  }
  return [...names].flatMap((name) => [`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`]);
}

/** A long-running git child (e.g. `cat-file --batch`) with the same neutral configuration. */
export function spawnGit(args: string[], options: { cwd?: string } = {}): ChildProcessWithoutNullStreams {
  return spawn('git', [...NEUTRAL_CONFIG.flatMap((c) => ['-c', c]), ...args], { cwd: options.cwd ?? tmpdir(), env: neutralGitEnv(), stdio: 'pipe' });
}

function exec(args: string[], options: RunGitOptions): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      'git',
      args,
      { encoding: 'buffer', maxBuffer: options.maxBuffer ?? 4 * 1024 * 1024 * 1024, cwd: options.cwd ?? tmpdir(), env: neutralGitEnv() },
      (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stderr: stderr.toString('utf8') }));
        else resolvePromise(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
