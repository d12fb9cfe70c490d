import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import type { Logger } from '../../../src/core/ports.js';
import type { RepoSource } from '../../../src/core/ingestion/repo-source.js';
import { ingestRepository, type IngestRequest } from '../../../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY, type IngestionPolicy } from '../../../src/core/ingestion/ingestion-policy.js';

/** A logger that keeps every line, for assertions (and canary scans). */
export function captureLogger(): Logger & { lines: { level: string; message: string; meta?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; meta?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A clock that advances 5 ms per reading, so durations are deterministic. */
export function steppingClock(start = Date.UTC(2024, 0, 2, 3, 4, 5)): { now(): number } {
  let t = start;
  return { now: () => (t += 5) };
}

export function tempRoot(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

export function removeRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

/** Every path under `dir` with size and mode, to prove a run wrote nothing on disk. */
export function diskSnapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full, { throwIfNoEntry: false });
      out.push(`${full} ${st?.size ?? '?'} ${st?.mode ?? '?'} ${st?.mtimeMs ?? '?'}`);
      if (st?.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

export function policy(overrides: Partial<IngestionPolicy> = {}): IngestionPolicy {
  return { ...DEFAULT_INGESTION_POLICY, ...overrides };
}

/** Run one ingestion into a fresh memfs with a captured logger and a stepping clock. */
export async function ingest(source: RepoSource, options: Partial<Omit<IngestRequest, 'source'>> = {}) {
  const fs = options.fs ?? createMemoryFs();
  const logger = (options.logger as ReturnType<typeof captureLogger> | undefined) ?? captureLogger();
  const run = ingestRepository({ source, fs, gitdir: '/repo/.git', policy: policy(), clock: steppingClock(), ...options, logger });
  return { fs, logger, run };
}
