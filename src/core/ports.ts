/**
 * The interfaces core needs from the outside. `src/app` implements them; core
 * never does I/O of its own, never reads the clock or the environment directly. A port whose
 * shapes belong to a higher floor is declared on that floor (`ingestion/repo-source.ts`,
 * `publish/publication.ts`): this file imports nothing from core (docs/architecture.md).
 */

/** Node-style stat result, the subset isomorphic-git and core use. */
export interface FsStat {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  size: number;
  mode: number;
  mtimeMs: number;
  ctimeMs?: number;
  ino?: number;
  uid?: number;
  gid?: number;
  dev?: number;
}

/**
 * The one file-system interface core uses. It is the promise half of Node's `fs`, and it is
 * what isomorphic-git accepts as its `fs` client (`{ promises }`), so one adapter serves both.
 */
export interface FsLike {
  promises: {
    readFile(path: string, options?: { encoding?: 'utf8' } | 'utf8'): Promise<Uint8Array | string>;
    writeFile(path: string, data: Uint8Array | string, options?: { mode?: number } | 'utf8'): Promise<void>;
    unlink(path: string): Promise<void>;
    readdir(path: string): Promise<string[]>;
    mkdir(path: string, options?: { recursive?: boolean } | number): Promise<unknown>;
    rmdir(path: string): Promise<void>;
    stat(path: string): Promise<FsStat>;
    lstat(path: string): Promise<FsStat>;
    readlink(path: string): Promise<string>;
    symlink(target: string, path: string): Promise<void>;
    chmod(path: string, mode: number): Promise<void>;
  };
  /**
   * Store `data` as the file's content without copying it, where the file system can: the caller
   * hands the bytes over and never changes them afterwards. For a pack of tens of megabytes a copy
   * is that much fresh memory touched; absent, callers write the file as usual.
   */
  keepFile?(path: string, data: Uint8Array): Promise<void>;
}

/** A stored object: its bytes and an opaque version tag for compare-and-swap. */
export interface StoredObject {
  body: Uint8Array;
  /** Content digest (sha256 hex) or the store's ETag; what `putIfMatch` compares. */
  etag: string;
}

export interface PutOptions {
  contentType?: string;
}

/**
 * Durable storage for every artifact, keyed as docs/architecture.md describes. Implementations: S3 (conditional
 * writes) and a local directory (atomic rename, `open(..., 'wx')`).
 */
export interface ArtifactStore {
  get(key: string): Promise<StoredObject | undefined>;
  /** Write or overwrite; readers never see a half-written object. Returns the new etag. */
  put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<string>;
  /** Write only if no object exists under `key`; returns false (and writes nothing) otherwise. */
  putIfAbsent(key: string, body: Uint8Array | string, options?: PutOptions): Promise<boolean>;
  /** Write only if the current object's etag equals `etag`; returns false otherwise. */
  putIfMatch(key: string, body: Uint8Array | string, etag: string, options?: PutOptions): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys under `prefix`, sorted lexicographically. */
  list(prefix: string): Promise<string[]>;
}

/**
 * `read`: what the trusted functions that read and talk on issues hold (webhook, sweeper,
 * run-session before narrowing); `worker`: the run's repository read-only, what a worker holds;
 * `write`: the publisher's.
 */
export type TokenRole = 'read' | 'worker' | 'write' | 'notice';

export interface IssuedToken {
  token: string;
  expiresAt: string;
  permissions: Record<string, string>;
  repositoryIds: number[];
}

/** Mints short-lived installation tokens for exactly one repository and one role. */
export interface TokenBroker {
  token(request: { installationId: number; repositoryId: number; role: TokenRole }): Promise<IssuedToken>;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Ids {
  /** A new unique id (random in production, sequential in tests). */
  next(prefix?: string): string;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured logging: a static message plus a metadata object. Adapters redact secrets. */
export interface Logger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
  child?(bindings: Record<string, unknown>): Logger;
}

/** Progress of a run, shown to a human (issue comment, terminal). */
export interface RunProgress {
  runId: string;
  attempt: number;
  phase?: string;
  phases: { name: string; state: 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'blocked' }[];
  status: string;
  baseCommitSha?: string;
  message?: string;
  taskEcho?: string;
  artifacts?: Record<string, string>;
  pullRequestUrl?: string;
  /** How the attempt ended, once it has (a worker's last report; the publisher acts on it). */
  ended?: { status: string; reason?: string; candidate: boolean; headCommitSha?: string; analysisReport?: string };
}

/** One stage of a run started or ended: ingestion, or a phase under the orchestrator. */
export interface PhaseProgress {
  phase: string;
  state: 'running' | 'done' | 'skipped' | 'failed' | 'blocked';
  summary?: string;
  /** When ended: the files of the snapshot (ingestion), or the files the workspace has changed so far (phases). */
  files?: { count: number; of: 'snapshot' | 'changed' };
  /** When ended: how long the stage took, by the run's clock. */
  elapsedMs?: number;
}

/** Where a run shows its progress: the progress comment, or the terminal. */
export interface RunReporter {
  /** The whole picture of the run (status, base, artifacts); called at the start and the end of an attempt. */
  report(progress: RunProgress): Promise<void>;
  /** One stage started or ended (reporters that show only the whole picture leave it out). Never awaited: showing progress must not slow or stop the run. */
  phase?(progress: PhaseProgress): void;
  /** How far the running stage is (`files read: 4,000`), for a terminal's progress line. Never awaited, as `phase`. */
  progress?(what: string): void;
}

/** The CI state of a commit. */
export interface CiStatus {
  state: 'unavailable' | 'pending' | 'success' | 'failure' | 'mixed';
  checks: { name: string; conclusion: string | null; status: string; url?: string }[];
}

export interface CiStatusReader {
  read(commitSha: string): Promise<CiStatus>;
}

/** OpenAI-compatible chat messages with tool calls. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Why the model stopped, the same for every provider: `end_turn` (answered), `tool_use` (asked for
 * tools), `max_tokens` (the completion was cut at the cap), `refusal` (the model or the provider's
 * safety filter declined), `other` (anything a provider adds later). The provider's own word stays
 * in `finishReason`.
 */
export type ModelStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

export interface ModelResponse {
  message: ChatMessage;
  /** `promptTokens` counts every input token, cached or not; `cachedInputTokens` says how many of them the provider read from its prompt cache. */
  usage?: { promptTokens: number; completionTokens: number; cachedInputTokens?: number };
  /** The provider's own stop reason, as it sent it. */
  finishReason?: string;
  stopReason?: ModelStopReason;
}

/**
 * One model behind one port, whatever its wire protocol (OpenAI chat completions, Bedrock Converse,
 * Anthropic Messages). Messages and tools are given in the chat-completions shape; each provider
 * translates. Failures throw an `AgentError` whose reason is one of the `MODEL_*` reasons of
 * `src/app/model/model-provider-error.ts` (rate limited, context overflow, auth, ...).
 *
 * Within one phase the first two messages (the system prompt and the task context) are
 * byte-identical in every request, and older turns change only once (when their long tool results
 * are elided, `boundHistory`): a provider may mark the end of the second message as a cache
 * point (Anthropic `cache_control`, Bedrock cache points); OpenAI caches such a prefix itself.
 */
export interface ModelProvider {
  readonly model: string;
  /**
   * Completion tokens asked for per call, as the deployment configured it for this provider
   * (absent: the engine's default, 4,096). Writing a test file can take more than that.
   */
  readonly maxOutputTokens?: number;
  complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse>;
  /**
   * The provider whose calls are charged to a run's spend records (docs/architecture.md,
   * "Spend"); absent where nothing accounts for spend (a bare provider in a unit test).
   */
  forSpend?(scope: SpendScope): ModelProvider;
}

/**
 * Whom a model call is charged to, and the caps the repository's policy sets, in micro-dollars.
 * The installation and its cap are the trusted caller's to decide (the deployment's setting).
 */
export interface SpendScope {
  owner: string;
  repo: string;
  runId: string;
  attempt: number;
  /** The installation id, or `local` (CLI, serve without an App). */
  installation: string;
  caps: { taskMicroUsd?: number; repositoryMonthlyMicroUsd?: number };
}
