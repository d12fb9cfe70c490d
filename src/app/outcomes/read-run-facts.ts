import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore } from '../../core/ports.js';
import { askedSince, LOCAL_INSTALLATION, type RunFacts } from '../../core/runs/outcomes.js';
import { RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { CLOSED_RUN_STATUSES } from '../../core/runs/run-status.js';
import { runSpend } from './run-spend.js';

/** Runs read at once (each is a few reads; a bucket answers them in parallel). */
const PARALLEL_RUNS = 8;

/**
 * The facts of every run in a store (`runs/<owner>/<repo>/<runId>/`: the CLI's `--out` directory
 * or the App's bucket) asked for at or after `since` (epoch ms). A run without a readable
 * `request.json` is skipped and counted in `unreadable`.
 */
export async function readRunFacts(store: ArtifactStore, since?: number): Promise<{ runs: RunFacts[]; unreadable: number }> {
  const byRun = new Map<string, string[]>();
  for (const key of await store.list('runs/')) {
    const parts = key.split('/');
    if (parts.length < 5) continue;
    const prefix = parts.slice(0, 4).join('/');
    const keys = byRun.get(prefix);
    if (keys) keys.push(key);
    else byRun.set(prefix, [key]);
  }
  const runs: RunFacts[] = [];
  let unreadable = 0;
  const prefixes = [...byRun.keys()].sort();
  for (let i = 0; i < prefixes.length; i += PARALLEL_RUNS) {
    const read = await Promise.all(prefixes.slice(i, i + PARALLEL_RUNS).map((prefix) => readOne(store, prefix, byRun.get(prefix) ?? [], since)));
    for (const facts of read) {
      if (facts === 'unreadable') unreadable++;
      else if (facts) runs.push(facts);
    }
  }
  return { runs, unreadable };
}

async function readOne(store: ArtifactStore, prefix: string, listed: string[], since: number | undefined): Promise<RunFacts | 'unreadable' | undefined> {
  const [, owner, repo, runId] = prefix.split('/');
  let keys;
  try {
    keys = runKeys(owner, repo, runId);
  } catch {
    return 'unreadable';
  }
  if (!listed.includes(keys.request)) return 'unreadable';
  const request = await readArtifactIfPresent(store, keys.request, RunRequest).catch(() => undefined);
  if (!request || request.runId !== runId || request.owner !== owner || request.repo !== repo) return 'unreadable';
  if (!askedSince(request, since)) return undefined;
  const run = listed.includes(keys.run) ? await readArtifactIfPresent(store, keys.run, RunRecord).catch(() => undefined) : undefined;
  return {
    owner,
    repo,
    installation: request.source.kind === 'github' ? String(request.source.installationId) : LOCAL_INSTALLATION,
    runId,
    createdAt: request.createdAt,
    status: run?.status,
    ...(run?.reason !== undefined ? { reason: run.reason } : {}),
    ...(run && CLOSED_RUN_STATUSES.has(run.status) ? { closedAt: run.updatedAt } : {}),
    // Listed already: a run that made no model call has no record to ask the store for.
    spendMicroUsd: listed.includes(keys.spend) ? await runSpend(store, keys) : null,
  };
}
