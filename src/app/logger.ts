import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock, Logger, LogLevel } from '../core/ports.js';

/**
 * Structured JSON-lines logging that never leaks. Each entry is one line:
 * `{"level","time","msg",...bindings,...meta}`. Before anything is serialised, every string in the
 * message, bindings and metadata (deep, keys included) goes through redaction:
 * - registered secret values (constructor `secrets`, `logger.redact(value)`; shared with children)
 *   are replaced by `[REDACTED]` wherever they occur;
 * - GitHub tokens (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), `Bearer` credentials,
 *   passwords in URLs and PEM private-key blocks are replaced by pattern;
 * - values under keys that name a credential (`authorization`, `*token`, `*password`,
 *   `*privateKey`, `*secret`, `*apiKey`; case, `-` and `_` ignored) are replaced whole.
 */

export const REDACTED = '[REDACTED]';

/** Where lines go; one call per entry, without the trailing newline. */
export type LogSink = (line: string) => void;

export const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${line}\n`);
};

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Shortest value registered as a secret; shorter ones would shred ordinary text. */
const MIN_SECRET_LENGTH = 4;
const MAX_DEPTH = 12;
/** Longest string value and message an entry carries, and most items of an array: a payload is never logged whole. */
export const MAX_LOGGED_STRING = 8192;
export const MAX_LOGGED_ITEMS = 100;

/** Cut after redaction, so a secret across the cut is already gone. */
function bounded(text: string): string {
  return text.length <= MAX_LOGGED_STRING ? text : `${text.slice(0, MAX_LOGGED_STRING)}… [${text.length - MAX_LOGGED_STRING} more characters]`;
}

function boundedItems<T>(items: T[]): T[] {
  return items.length <= MAX_LOGGED_ITEMS ? items : items.slice(0, MAX_LOGGED_ITEMS);
}

const PATTERNS: RegExp[] = [
  // PEM private keys, including a block cut off before its END line.
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bgh[opsur]_[A-Za-z0-9]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  // user:password@ in URLs (x-access-token:<token>@github.com).
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+(?=@)/gi,
];

/** A key whose value the logger replaces whole (metric and dimension names must avoid these). */
export function isCredentialKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return (
    k === 'authorization' ||
    k === 'proxyauthorization' ||
    k === 'cookie' ||
    k.endsWith('token') ||
    k.endsWith('password') ||
    k.endsWith('privatekey') ||
    k.endsWith('secret') ||
    k.endsWith('apikey')
  );
}

/** Secret values and the redaction of strings and values; shared by a logger and its children. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private sorted: string[] = [];

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Register a secret value (and its base64 form, which is how it travels in Basic auth and blobs). */
  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    this.secrets.add(value);
    this.secrets.add(Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, ''));
    // Longest first, so a secret containing another is replaced whole.
    this.sorted = [...this.secrets].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  }

  string(text: string): string {
    let out = text;
    for (const secret of this.sorted) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** A JSON-safe, redacted deep copy: errors as objects, bytes as a length, cycles cut. */
  value(input: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
    if (typeof input !== 'object' || input === null) return this.scalar(input);
    if (seen.has(input)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated]';
    seen.add(input);
    try {
      return this.composite(input, seen, depth);
    } finally {
      seen.delete(input);
    }
  }

  /** A value that is not an object: strings redacted, bigints as text; functions and symbols dropped. */
  private scalar(input: unknown): unknown {
    if (typeof input === 'string') return bounded(this.string(input));
    if (input === null || typeof input === 'number' || typeof input === 'boolean') return input;
    if (typeof input === 'bigint') return input.toString();
    return undefined;
  }

  private composite(input: object, seen: WeakSet<object>, depth: number): unknown {
    if (input instanceof Uint8Array) return `[${input.byteLength} bytes]`;
    if (input instanceof Date) return Number.isNaN(input.getTime()) ? 'Invalid Date' : input.toISOString();
    if (input instanceof Error) return this.error(input, seen, depth);
    if (Array.isArray(input)) return this.items(input, seen, depth);
    if (input instanceof Map) return this.object(Object.fromEntries(input), seen, depth);
    if (input instanceof Set) return this.items([...input], seen, depth);
    return this.object(input as Record<string, unknown>, seen, depth);
  }

  private items(input: unknown[], seen: WeakSet<object>, depth: number): unknown[] {
    const out = boundedItems(input).map((v) => this.value(v, seen, depth + 1) ?? null);
    if (input.length > out.length) out.push(`[${input.length - out.length} more items]`);
    return out;
  }

  private object(input: Record<string, unknown>, seen: WeakSet<object>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(input)) {
      const safeKey = this.string(key);
      if (isCredentialKey(key) && v !== undefined && v !== null && v !== '') out[safeKey] = REDACTED;
      else {
        const copy = this.value(v, seen, depth + 1);
        if (copy !== undefined) out[safeKey] = copy;
      }
    }
    return out;
  }

  private error(error: Error, seen: WeakSet<object>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = { name: error.name, message: this.string(error.message) };
    const extra = error as Error & { reason?: unknown; data?: unknown; code?: unknown; status?: unknown; cause?: unknown };
    if (extra.reason !== undefined) out.reason = this.value(extra.reason, seen, depth + 1);
    if (extra.code !== undefined) out.code = this.value(extra.code, seen, depth + 1);
    if (extra.status !== undefined) out.status = this.value(extra.status, seen, depth + 1);
    if (extra.data !== undefined) out.data = this.value(extra.data, seen, depth + 1);
    if (error.stack) out.stack = this.string(error.stack);
    if (extra.cause !== undefined) out.cause = this.value(extra.cause, seen, depth + 1);
    return out;
  }
}

/**
 * Fields of the current invocation (request id, cold start, then run, repository, installation),
 * added to every line any logger writes inside `withLogScope`. Ambient rather than passed, so
 * clients built once per container (the GitHub API, the store) log them too, and concurrent
 * invocations in one process (serve) keep theirs apart.
 */
const scope = new AsyncLocalStorage<Record<string, unknown>>();

/** Run `body` with `bindings` added to the enclosing scope's; a nested scope is a child. */
export function withLogScope<T>(bindings: Record<string, unknown>, body: () => T): T {
  return scope.run({ ...scope.getStore(), ...definedOnly(bindings) }, body);
}

/** Add fields to the current scope once they are known (the run's installation); false outside a scope. */
export function bindLogScope(bindings: Record<string, unknown>): boolean {
  const store = scope.getStore();
  if (!store) return false;
  Object.assign(store, definedOnly(bindings));
  return true;
}

function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

export interface JsonLoggerOptions {
  sink?: LogSink;
  /** Entries below this level are dropped. Default `info`. */
  level?: LogLevel;
  clock?: Clock;
  /** Secret values known up front (tokens, keys, webhook secret). */
  secrets?: Iterable<string>;
  /** Fields added to every entry. */
  bindings?: Record<string, unknown>;
}

/** The production logger: JSON lines to a sink (stdout by default). */
export class JsonLogger implements Logger {
  private readonly sink: LogSink;
  private readonly threshold: number;
  private readonly clock: Clock;
  private readonly redactor: Redactor;
  private readonly bindings: Record<string, unknown>;

  constructor(options: JsonLoggerOptions = {}, redactor?: Redactor) {
    this.sink = options.sink ?? stdoutSink;
    this.threshold = LEVELS[options.level ?? 'info'];
    this.clock = options.clock ?? { now: () => Date.now() };
    this.redactor = redactor ?? new Redactor();
    for (const s of options.secrets ?? []) this.redactor.add(s);
    this.bindings = options.bindings ?? {};
  }

  /** Register a secret value: from now on it is `[REDACTED]` in this logger, its parent and its children. */
  redact(value: string): void {
    this.redactor.add(value);
  }

  /** A logger whose entries carry `bindings` too; shares the sink, level and secrets. */
  child(bindings: Record<string, unknown>): JsonLogger {
    return new JsonLogger({ sink: this.sink, level: this.levelName(), clock: this.clock, bindings: { ...this.bindings, ...bindings } }, this.redactor);
  }

  debug(message: string, meta?: Record<string, unknown>): void {
    this.write('debug', message, meta);
  }

  info(message: string, meta?: Record<string, unknown>): void {
    this.write('info', message, meta);
  }

  warn(message: string, meta?: Record<string, unknown>): void {
    this.write('warn', message, meta);
  }

  error(message: string, meta?: Record<string, unknown>): void {
    this.write('error', message, meta);
  }

  private levelName(): LogLevel {
    return (Object.keys(LEVELS) as LogLevel[]).find((l) => LEVELS[l] === this.threshold) ?? 'info';
  }

  /**
   * One CloudWatch Embedded Metric Format document as its own line (`msg: "metric"`), with the
   * bindings and redaction of any entry. Written whatever the level: alarms must not depend on it.
   */
  metric(document: Record<string, unknown>): void {
    this.emit('info', 'metric', document);
  }

  private write(level: LogLevel, message: string, meta?: Record<string, unknown>): void {
    if (LEVELS[level] < this.threshold) return;
    this.emit(level, message, meta);
  }

  private emit(level: LogLevel, message: string, meta?: Record<string, unknown>): void {
    const fields = this.redactor.value({ ...scope.getStore(), ...this.bindings, ...(meta ?? {}) }) as Record<string, unknown>;
    const entry: Record<string, unknown> = {
      level,
      time: new Date(this.clock.now()).toISOString(),
      msg: bounded(this.redactor.string(String(message))),
    };
    // Metadata cannot forge the fixed fields: a clashing key is kept as `meta.<key>`.
    for (const [key, value] of Object.entries(fields)) entry[key in entry ? `meta.${key}` : key] = value;
    this.sink(JSON.stringify(entry));
  }
}

/** A sink that keeps lines in memory, for tests and canary scans. */
export class CapturingSink {
  readonly lines: string[] = [];
  readonly write: LogSink = (line) => {
    this.lines.push(line);
  };

  /** The entries, parsed. */
  entries(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Everything logged, as one string (what a canary scan searches). */
  text(): string {
    return this.lines.join('\n');
  }
}

/** A JsonLogger writing to a CapturingSink (level `debug`, fixed clock by default). */
export class CapturingLogger extends JsonLogger {
  readonly captured: CapturingSink;

  constructor(options: Omit<JsonLoggerOptions, 'sink'> = {}, captured = new CapturingSink()) {
    super({ level: 'debug', clock: { now: () => 0 }, ...options, sink: captured.write });
    this.captured = captured;
  }

  get lines(): string[] {
    return this.captured.lines;
  }

  entries(): Record<string, unknown>[] {
    return this.captured.entries();
  }
}
