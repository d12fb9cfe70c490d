import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readArtifact } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { AgentError } from '../../core/errors.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import { revalidateCandidate } from '../../core/git/revalidate-candidate.js';
import { writeCandidateToRepository } from '../../core/git/write-candidate-to-repository.js';
import { policyViews } from '../../core/pipeline/policy-views.js';
import { runPipeline, type PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { formatProblems, type DocumentProblem } from '../../core/policy/document-problem.js';
import { policyJsonSchema } from '../../core/policy/policy-json-schema.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { Clock, FsLike, Logger, ModelProvider, RepoSource } from '../../core/ports.js';
import { beginAttempt } from '../../core/runs/attempts.js';
import { ApprovalRequest, RunRequest } from '../../core/runs/run-request.js';
import { EXIT_USAGE, exitCodeFor } from '../../core/runs/run-status.js';
import { parseTask } from '../../core/task/parse-task.js';
import { sha256Hex, shortId } from '../../core/util/digest.js';
import { HttpRepoSource } from '../git/http-repo-source.js';
import { LocalRepoSource } from '../git/local-repo-source.js';
import { identityFromLocalPath, identityFromUrl } from '../git/repo-identity.js';
import { runGit } from '../git/run-git.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { nodeFs } from '../local/node-fs.js';
import { JsonLogger } from '../logger.js';
import { createMemoryFs } from '../local/memfs-adapter.js';
import { OpenAiChatProvider } from '../model/openai-chat-provider.js';
import { createNodeSyntaxService } from '../local/node-grammar-loader.js';
import { TerminalReporter } from './terminal-reporter.js';

/** What a CLI invocation talks to; tests replace the clock, streams and environment. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  clock: Clock;
  isTty: boolean;
  /** Model override for tests (else from DRAFTSMAN_MODEL_* variables). */
  model?: ModelProvider;
  /** Logger override (else JSON lines to stderr at warn level). */
  logger?: Logger;
}

class UsageError extends Error {}

const USAGE = `usage: draftsman <command> <repo> [options]

commands:
  ingest <repo>              ingestion only                       [--paths a,b]
  map <repo>                 ingestion + repository map
  targets <repo>             + target selection                   [--task TEXT | --task-file FILE] [--paths a,b]
  run <repo>                 the whole pipeline                   [--task | --task-file] [--paths] [--publish] [--approve]
  policy check [FILE]        validate a policy (file:line:col: message)
  policy schema              print the policy's JSON Schema

options: --ref REF  --out DIR  --policy FILE  --json  --run-id ID
exit codes: 0 ready/completed, 1 failed/blocked, 2 usage, 3 needs approval/budget exceeded, 130 cancelled`;

/** `draftsman <command> ...`: returns the exit code of DESIGN §8. */
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
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${USAGE}\n`);
    return command ? 0 : EXIT_USAGE;
  }
  if (command === 'policy') return policyCommand(rest, io);
  if (!['ingest', 'map', 'targets', 'run'].includes(command)) throw new UsageError(`unknown command: ${command}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        ref: { type: 'string' },
        out: { type: 'string' },
        policy: { type: 'string' },
        json: { type: 'boolean', default: false },
        'run-id': { type: 'string' },
        paths: { type: 'string' },
        task: { type: 'string' },
        'task-file': { type: 'string' },
        publish: { type: 'boolean', default: false },
        approve: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <repo>`);
  if ((values.task || values['task-file']) && (command === 'ingest' || command === 'map')) throw new UsageError(`--task is for targets and run`);
  if (values.task && values['task-file']) throw new UsageError('give --task or --task-file, not both');
  if ((values.publish || values.approve) && command !== 'run') throw new UsageError('--publish and --approve are for run');
  if (values['run-id'] && !/^[A-Za-z0-9_-]{1,64}$/.test(values['run-id'])) throw new UsageError('--run-id must be 1-64 letters, digits, _ or -');

  const repoArg = positionals[0];
  const isUrl = /^https?:\/\//i.test(repoArg);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repoArg) && !isUrl) throw new UsageError(`unsupported repository URL: ${repoArg}`);
  if (values.publish && isUrl) throw new UsageError('--publish works with local repositories only');
  const location = isUrl ? repoArg : resolve(io.cwd, repoArg);
  if (!isUrl) {
    const info = await stat(location).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`not a directory: ${location}`);
  } else if (new URL(repoArg).username || new URL(repoArg).password) {
    throw new UsageError('credentials in the repository URL are refused; set DRAFTSMAN_GIT_TOKEN instead');
  }
  const identity = isUrl ? identityFromUrl(repoArg) : identityFromLocalPath(location);
  const taskText = values['task-file'] ? await readFile(resolve(io.cwd, values['task-file']), 'utf8').catch(() => {
    throw new UsageError(`cannot read --task-file ${values['task-file']}`);
  }) : (values.task ?? '');
  const paths = values.paths ? values.paths.split(',').map((p) => p.trim()).filter(Boolean) : undefined;
  const policyFile = values.policy ? resolve(io.cwd, values.policy) : undefined;
  const policyText = policyFile ? await readFile(policyFile).catch(() => {
    throw new UsageError(`cannot read --policy ${values.policy}`);
  }) : undefined;
  const out = resolve(io.cwd, values.out ?? join(io.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'draftsman'));

  const logger = io.logger ?? new JsonLogger({ sink: (line) => io.stderr(`${line}\n`), level: 'warn', clock: io.clock, secrets: io.env.DRAFTSMAN_GIT_TOKEN ? [io.env.DRAFTSMAN_GIT_TOKEN] : [] });
  const source: RepoSource = isUrl
    ? new HttpRepoSource({ url: repoArg, identity, token: async () => io.env.DRAFTSMAN_GIT_TOKEN })
    : new LocalRepoSource(location);
  const resolved = await source.resolveRef(values.ref);
  // The run's identity (DESIGN §4): source, base commit, task digest, and the --paths and --ref that
  // shape it (two refs naming one commit still target different base branches).
  // The task's identity: its parsed digest, or the text's digest when it does not parse (intake reports why).
  const title = firstLine(taskText) || `${command} ${identity.repo}`;
  let taskDigest = sha256Hex(taskText);
  try {
    if (taskText) taskDigest = parseTask({ title, body: taskText, source: 'cli', bodyName: values['task-file'] ?? 'task' }).digest;
  } catch {
    // The intake phase reports the problems with line numbers.
  }
  // The same command again is the next attempt of the same run; a different --paths is another run (its snapshot differs).
  const runId = values['run-id'] ?? shortId(`${identity.owner}/${identity.repo}`, resolved?.sha ?? values.ref ?? 'HEAD', command === 'run' || command === 'targets' ? taskDigest : command, ...(paths ? ['paths', ...paths] : []), ...(values.ref ? ['ref', values.ref] : []));
  const keys = runKeys(identity.owner, identity.repo, runId);
  const store = new LocalArtifactStore(out);
  const now = new Date(io.clock.now()).toISOString();
  const request: RunRequest = {
    schemaVersion: 1,
    runId,
    owner: identity.owner,
    repo: identity.repo,
    source: { kind: isUrl ? 'url' : 'local', location: isUrl ? new URL(repoArg).toString() : location },
    trigger: { kind: 'cli', key: `cli-${command}` },
    task: { title, body: taskText },
    baseRef: values.ref,
    paths,
    agentBranch: `agent/local/r${runId}`,
    createdAt: now,
  };
  let approvedGates: string[] = [];
  if (values.approve) approvedGates = await pendingGates(store, keys);
  const attempt = await beginAttempt(store, keys, request, { reason: values.approve ? 'approve' : 'cli', approvedGates, createdAt: now });

  const reporter = new TerminalReporter({ write: io.stderr, enabled: !values.json, clock: io.clock });
  reporter.start(`${command} ${identity.owner}/${identity.repo} run ${runId} attempt ${attempt.attempt}`);
  const cancelled = { value: false };
  const onSigint = () => {
    cancelled.value = true;
  };
  process.once('SIGINT', onSigint);
  let result: PipelineResult;
  try {
    result = await runPipeline(
      {
        store,
        source,
        fs: createMemoryFs(),
        clock: io.clock,
        logger,
        syntax: await createNodeSyntaxService({ wasmDir: io.env.DRAFTSMAN_WASM_DIR }),
        ciStatus: { read: async () => ({ state: 'unavailable', checks: [] }) },
        model: io.model ?? modelFromEnv(io.env),
        identity: { name: io.env.DRAFTSMAN_GIT_NAME ?? 'draftsman', email: io.env.DRAFTSMAN_GIT_EMAIL ?? 'draftsman@localhost' },
        isCancelled: async () => cancelled.value || Boolean(await store.get(keys.cancel)),
        onPhase: (event) => reporter.phase(event.phase, event.state, event.summary),
      },
      {
        keys,
        owner: identity.owner,
        repo: identity.repo,
        attempt,
        policy: policyText !== undefined ? { text: policyText, file: values.policy! } : 'from-base',
        stopAfter: command as 'ingest' | 'map' | 'targets' | 'run',
        taskId: (task) => `sha256:${task.digest}`,
      },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
  }

  let publishNote: string | undefined;
  if (values.publish && result.status === 'COMPLETED' && result.headCommitSha) {
    publishNote = await publishLocally(store, keys, location, result, io, policyText, paths);
  } else if (values.publish && result.status === 'COMPLETED') {
    publishNote = 'nothing to publish: the run produced no commit (analysis mode)';
  }

  const artifacts = Object.fromEntries(Object.entries(result.artifacts).map(([name, key]) => [name, store.pathOf(key.replace(/\/$/, '')) + (key.endsWith('/') ? '/' : '')]));
  const runDir = store.pathOf(keys.prefix.replace(/\/$/, ''));
  reporter.finish(result, runDir, publishNote);
  // A task block or policy that does not parse: say where, as `file:line:col: message` lines.
  const problems = documentProblems(result.details);
  if (problems.length > 0) io.stderr(`${formatProblems(problems)}\n`);
  if (!values.json && result.report && command === 'run') io.stdout(`${result.report}\n`);
  const status = result.status === 'SUSPENDED' ? 'FAILED' : result.status;
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        runId,
        attempt: attempt.attempt,
        status,
        ...(result.reason ? { reason: result.reason } : {}),
        baseRef: result.baseRef ?? values.ref ?? 'HEAD',
        baseCommitSha: result.baseCommitSha ?? null,
        ...(result.headCommitSha ? { headCommitSha: result.headCommitSha } : {}),
        ...(result.headTreeSha ? { headTreeSha: result.headTreeSha } : {}),
        agentBranch: result.agentBranch,
        runDir,
        artifacts,
        ...(publishNote ? { publish: publishNote } : {}),
        ...(result.details ? { details: result.details } : {}),
      })}\n`,
    );
  }
  if (publishNote?.startsWith('refused')) return 1;
  return exitCodeFor(status);
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

/** Gates waiting for approval in the run's latest NEEDS_APPROVAL attempt. */
async function pendingGates(store: LocalArtifactStore, keys: ReturnType<typeof runKeys>): Promise<string[]> {
  const gates: string[] = [];
  for (const key of await store.list(`${keys.prefix}attempts/`)) {
    if (!key.endsWith('/approval-request.json')) continue;
    gates.push((await readArtifact(store, key, ApprovalRequest)).gateId);
  }
  return [...new Set(gates)];
}

async function policyCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'schema') {
    if (rest.length > 0) throw new UsageError('policy schema takes no arguments');
    io.stdout(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
    return 0;
  }
  if (sub !== 'check') throw new UsageError(`unknown policy command: ${sub ?? '(none)'}`);
  const parsed = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (parsed.positionals.length > 1) throw new UsageError('policy check takes at most one FILE');
  const file = parsed.positionals[0] ?? '.agent-policy.yaml';
  let text: Buffer;
  try {
    text = readFileSync(resolve(io.cwd, file));
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    parsePolicy({ text, file });
    if (parsed.values.json) io.stdout(`${JSON.stringify({ file, status: 'VALID', problems: [] })}\n`);
    else io.stdout(`${file}: valid\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    io.stdout(`${error.format()}\n`);
    if (parsed.values.json) io.stdout(`${JSON.stringify({ file, status: 'INVALID', reason: error.reason, problems: error.data.problems })}\n`);
    return 1;
  }
}

/** The document problems (task block, policy) a result carries in its details, if any. */
function documentProblems(details: Record<string, unknown> | undefined): DocumentProblem[] {
  const problems = details?.problems;
  if (!Array.isArray(problems)) return [];
  return problems.filter((p): p is DocumentProblem => typeof p === 'object' && p !== null && typeof p.file === 'string' && typeof p.line === 'number' && typeof p.column === 'number');
}

function modelFromEnv(env: Record<string, string | undefined>): ModelProvider | undefined {
  if (!env.DRAFTSMAN_MODEL_BASE_URL || !env.DRAFTSMAN_MODEL) return undefined;
  return new OpenAiChatProvider({ baseUrl: env.DRAFTSMAN_MODEL_BASE_URL, model: env.DRAFTSMAN_MODEL, apiKey: env.DRAFTSMAN_MODEL_API_KEY });
}

function firstLine(text: string): string {
  for (const line of text.split('\n')) {
    const trimmed = line.replace(/^#+\s*/, '').trim();
    if (trimmed && !trimmed.startsWith('```')) return trimmed.slice(0, 200);
  }
  return '';
}

function git(args: string[]): Promise<Buffer> {
  return runGit(args, { maxBuffer: 64 * 1024 * 1024 });
}

async function gitDir(location: string): Promise<string> {
  return (await git(['-C', location, 'rev-parse', '--absolute-git-dir'])).toString('utf8').trim();
}

async function gitShow(location: string, spec: string): Promise<Uint8Array | undefined> {
  try {
    return await git(['-C', location, 'cat-file', 'blob', spec]);
  } catch {
    return undefined;
  }
}
