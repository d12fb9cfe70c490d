import type { RunKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import type { PublishError } from '../../core/publish/publish-error.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import type { GitHubApi } from '../github/github-api.js';
import type { PublishRecord } from './publish-record.js';

export interface PublishDeps {
  store: ArtifactStore;
  /** Built for the `write` role only (token-write). */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  /** The App's login (`<slug>[bot]`): a comment found by its marker counts only when the App wrote it. */
  botLogin?: string;
}

export interface PublishOptions extends PublishDeps {
  runKeys: RunKeys;
}

export type PublishOutcome =
  | { kind: 'published'; record: PublishRecord }
  | { kind: 'already-published'; record: PublishRecord }
  | { kind: 'refused'; reason: PublishError['reason']; error: PublishError }
  | { kind: 'rerun'; attempt: number; from: string; to: string }
  /** GitHub rate-limited the publication for longer than an invocation waits: `control/publish-retry.json` says when to try again. */
  | { kind: 'deferred'; notBefore: string; tries: number };

/** One publication in progress: the trusted request, and the API once a token is minted. */
export interface RunContext {
  request: RunRequest;
  owner: string;
  repo: string;
  api?: GitHubApi;
  attempt: number;
  /** When the publication started, by the clock (the duration metric). */
  startedAt?: number;
  /** The candidate's size, once it is known (the metrics). */
  diff?: { files: number; lines: number };
}

export function statusOf(error: unknown): number | undefined {
  return (error as { status?: number })?.status;
}

export async function orUndefinedOn404<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}
