import { execFile } from 'node:child_process';
import { readArtifact } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { AgentError } from '../../core/errors.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import { revalidateCandidate } from '../../core/git/revalidate-candidate.js';
import { writeCandidateToRepository } from '../../core/git/write-candidate-to-repository.js';
import { policyViews } from '../../core/pipeline/policy-views.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import type { FsLike } from '../../core/ports.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { EXIT_USAGE } from '../../core/runs/run-status.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { nodeFs } from '../local/node-fs.js';
import { USAGE, UsageError, type CliIo } from './cli-io.js';
import { ingestCommand } from './ingest-command.js';
import { mapCommand } from './map-command.js';
import { policyCheckCommand } from './policy-check-command.js';
import { policySchemaCommand } from './policy-schema-command.js';
import { runCommand } from './run-command.js';
import { targetsCommand } from './targets-command.js';

export type { CliIo } from './cli-io.js';

/** `draftsman <command> ...`: returns the exit code (0 ready/completed, 1 failed/blocked, 2 usage, 3 needs approval, 130 cancelled). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`draftsman: ${error.message}\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof AgentError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error);
    io.stderr(`draftsman: ${message}\n`);
    return 1;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout(`${USAGE}\n`);
      return command ? 0 : EXIT_USAGE;
    case 'ingest':
      return ingestCommand(rest, io);
    case 'map':
      return mapCommand(rest, io);
    case 'targets':
      return targetsCommand(rest, io);
    case 'run':
      return runCommand(rest, io, (run, result) => publishLocally(run.store, run.keys, run.args.location, result, io, run.args.policy?.text, run.args.paths));
    case 'policy': {
      const [sub, ...args] = rest;
      if (sub === 'schema') return policySchemaCommand(args, io);
      if (sub === 'check') return policyCheckCommand(args, io);
      throw new UsageError(`unknown policy command: ${sub ?? '(none)'}`);
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** `--publish`: the publisher's re-validation, then the commit and branch into the source repository only. */
async function publishLocally(store: LocalArtifactStore, keys: ReturnType<typeof runKeys>, location: string, result: PipelineResult, io: CliIo, policyText: Uint8Array | undefined, paths: string[] | undefined): Promise<string> {
  const candidate = await readArtifact(store, keys.candidate.prCandidate, PrCandidate);
  const readChange = async (sha: string) => (await store.get(keys.candidate.change(sha)))?.body;
  const gitdir = await gitDir(location);
  const baseText = policyText ?? (await gitShow(location, `${candidate.baseCommitSha}:.agent-policy.yaml`));
  const policy = parsePolicy({ text: baseText, file: '.agent-policy.yaml' });
  const views = policyViews(policy, result.task, paths);
  const check = await revalidateCandidate(candidate, { policy: views.write, maxChangedFiles: views.limits.maxFiles, maxDiffLines: views.limits.maxLines }, readChange);
  if (!check.ok) return `refused: ${check.problems.map((p) => `${p.reason}${p.path ? ` ${p.path}` : ''}`).join(', ')}`;
  try {
    const written = await writeCandidateToRepository({
      fs: nodeFs as FsLike,
      gitdir,
      candidate,
      changes: readChange,
      identity: { name: io.env.DRAFTSMAN_GIT_NAME ?? 'draftsman', email: io.env.DRAFTSMAN_GIT_EMAIL ?? 'draftsman@localhost' },
      createdAt: candidate.headCommitSha ? await commitDate(store, keys) : Date.now(),
    });
    if (written.commitSha !== candidate.headCommitSha) {
      // Never leave a branch whose commit is not the candidate's.
      if (written.created) await git(['-C', location, 'update-ref', '-d', `refs/heads/${written.branch}`, written.commitSha]);
      return `refused: the rebuilt commit ${written.commitSha} differs from the candidate's ${candidate.headCommitSha}`;
    }
    return written.created ? `published ${written.commitSha} to refs/heads/${written.branch}` : `refs/heads/${written.branch} is already at ${written.commitSha}`;
  } catch (error) {
    return `refused: ${error instanceof AgentError ? `${error.reason}: ${error.message}` : (error as Error).message}`;
  }
}

/** The attempt's createdAt that dated the candidate's commit. */
async function commitDate(store: LocalArtifactStore, keys: ReturnType<typeof runKeys>): Promise<string> {
  const candidate = await readArtifact(store, keys.candidate.prCandidate, PrCandidate);
  if (candidate.attempt === 1) return (await readArtifact(store, keys.request, RunRequest)).createdAt;
  const object = await store.get(keys.attempt(candidate.attempt).request);
  return JSON.parse(new TextDecoder().decode(object!.body)).createdAt as string;
}

function git(args: string[]): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolvePromise(stdout)));
  });
}

async function gitDir(location: string): Promise<string> {
  return (await git(['-C', location, 'rev-parse', '--absolute-git-dir'])).toString('utf8').trim();
}

async function gitShow(location: string, spec: string): Promise<Uint8Array | undefined> {
  try {
    return await git(['-C', location, 'show', spec]);
  } catch {
    return undefined;
  }
}
