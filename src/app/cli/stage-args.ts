import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isBranchSafeRunId } from '../../core/runs/run-branch.js';
import { identityFromLocalPath, identityFromUrl, type RepoIdentity } from '../git/repo-identity.js';
import { UsageError, type CliIo } from './cli-io.js';

/** The commands that run (part of) the pipeline, by how far they go. */
export type StageCommand = 'ingest' | 'map' | 'targets' | 'run';

/** A stage command's arguments, checked and resolved against the working directory. */
export interface StageArgs {
  command: StageCommand;
  /** The repository as given: an http(s) URL, or an absolute local path. */
  location: string;
  isUrl: boolean;
  identity: RepoIdentity;
  ref?: string;
  /** The artifact root. */
  out: string;
  /** `--policy`: its bytes and the name it was given by. */
  policy?: { text: Uint8Array; file: string };
  json: boolean;
  /** `--verbose`: the run's log lines on stderr instead of the log file. */
  verbose: boolean;
  runId?: string;
  paths?: string[];
  taskText: string;
  taskFile?: string;
  publish: boolean;
  approve: boolean;
  /** `--mode analysis`: report only, whatever the task block says (as `/agent analyze` does). */
  mode?: 'analysis' | 'draft_pr';
}

const OPTIONS = {
  ref: { type: 'string' },
  out: { type: 'string' },
  policy: { type: 'string' },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  'run-id': { type: 'string' },
  paths: { type: 'string' },
  task: { type: 'string' },
  'task-file': { type: 'string' },
  publish: { type: 'boolean', default: false },
  approve: { type: 'boolean', default: false },
  mode: { type: 'string' },
} as const;

/** `--out DIR` resolved against the working directory; by default `${XDG_STATE_HOME:-~/.local/state}/draftsman`. */
export function artifactRoot(out: string | undefined, io: Pick<CliIo, 'cwd' | 'env'>): string {
  return resolve(io.cwd, out ?? join(io.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'draftsman'));
}

/** Parse `<command> <repo> [options]`; every mistake is a UsageError (exit 2). */
export async function parseStageArgs(command: StageCommand, args: string[], io: CliIo): Promise<StageArgs> {
  const { values, positionals } = parseOrUsage(args);
  checkOptions(command, values, positionals);

  const repo = await repositoryOf(positionals[0], io.cwd, values.publish);
  return {
    command,
    ...repo,
    ref: values.ref,
    taskText: await taskTextOf(values, io.cwd),
    taskFile: values['task-file'],
    paths: values.paths
      ? values.paths
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)
      : undefined,
    policy: values.policy ? { text: await readOrUsage(resolve(io.cwd, values.policy), `--policy ${values.policy}`), file: values.policy } : undefined,
    out: artifactRoot(values.out, io),
    json: values.json,
    verbose: values.verbose,
    runId: values['run-id'],
    publish: values.publish,
    approve: values.approve,
    ...(values.mode === 'analysis' || values.mode === 'draft_pr' ? { mode: values.mode } : {}),
  };
}

type ParsedValues = ReturnType<typeof parseOrUsage>['values'];

/** Options that do not go together, or not with this command: each a UsageError. */
function checkOptions(command: StageCommand, values: ParsedValues, positionals: string[]): void {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <repo>`);
  if ((values.task || values['task-file']) && (command === 'ingest' || command === 'map')) throw new UsageError(`--task is for targets and run`);
  if (values.task && values['task-file']) throw new UsageError('give --task or --task-file, not both');
  if ((values.publish || values.approve) && command !== 'run') throw new UsageError('--publish and --approve are for run');
  if (values.mode !== undefined && command !== 'run') throw new UsageError('--mode is for run');
  if (values.mode !== undefined && values.mode !== 'analysis' && values.mode !== 'draft_pr') throw new UsageError('--mode must be analysis or draft_pr');
  if (values['run-id'] && !isBranchSafeRunId(values['run-id'])) throw new UsageError('--run-id must be 1-64 letters, digits, _ or -');
}

/** The task: the `--task-file`'s text, else `--task`, else empty. */
async function taskTextOf(values: ParsedValues, cwd: string): Promise<string> {
  const file = values['task-file'];
  if (!file) return values.task ?? '';
  return (await readOrUsage(resolve(cwd, file), `--task-file ${file}`)).toString('utf8');
}

function parseOrUsage(args: string[]) {
  try {
    return parseArgs({ args, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `<repo>`: an http(s) URL without credentials, or an existing local directory. */
async function repositoryOf(repoArg: string, cwd: string, publish: boolean): Promise<{ location: string; isUrl: boolean; identity: RepoIdentity }> {
  const isUrl = /^https?:\/\//i.test(repoArg);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repoArg) && !isUrl) throw new UsageError(`unsupported repository URL: ${repoArg}`);
  if (publish && isUrl) throw new UsageError('--publish works with local repositories only');
  if (isUrl) {
    const url = new URL(repoArg);
    if (url.username || url.password) throw new UsageError('credentials in the repository URL are refused; set DRAFTSMAN_GIT_TOKEN instead');
    return { location: repoArg, isUrl, identity: identityFromUrl(repoArg) };
  }
  const location = resolve(cwd, repoArg);
  const info = await stat(location).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`not a directory: ${location}`);
  return { location, isUrl, identity: identityFromLocalPath(location) };
}

async function readOrUsage(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch {
    throw new UsageError(`cannot read ${what}`);
  }
}
