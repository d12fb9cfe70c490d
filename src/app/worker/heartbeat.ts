import { writeArtifact } from '../../core/artifacts/artifact-io.js';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import type { RunTrigger } from '../../core/runs/run-key.js';
import { WorkerHeartbeat } from '../../core/runs/run-state.js';

/** How often a running worker writes its heartbeat, whatever it waits on (a model call, a clone). */
export const HEARTBEAT_INTERVAL_MS = 60_000;

/**
 * A `running` heartbeat older than this means the worker is gone. Four missed beats: with the
 * sweeper every 15 minutes (serverless.yml), a killed worker's run ends within 19 minutes.
 */
export const HEARTBEAT_STALE_MS = 4 * 60_000;

/** The timer the heartbeat runs on; tests pass their own. */
export interface HeartbeatTimer {
  every(ms: number, beat: () => void): () => void;
}

const realTimer: HeartbeatTimer = {
  every: (ms, beat) => {
    const handle = setInterval(beat, ms);
    // Never what keeps a process alive: the invocation's own work does that.
    handle.unref();
    return () => clearInterval(handle);
  },
};

export interface Heartbeat {
  /** The invocation stops on its own: the last beat says `idle`, so the sweeper leaves a paused attempt alone. */
  stop(): Promise<void>;
  /** Stop beating without a last word (the invocation failed). */
  cancel(): void;
}

/**
 * Beat now and every HEARTBEAT_INTERVAL_MS until stopped, in `attempts/<n>/heartbeat.json`
 * (the worker's own attempt prefix). A failed write is logged and never stops the run.
 */
export async function startHeartbeat(
  deps: { store: ArtifactStore; clock: Clock; logger: Logger; heartbeatTimer?: HeartbeatTimer },
  key: string,
  target: RunTrigger,
): Promise<Heartbeat> {
  const write = async (state: WorkerHeartbeat['state']) => {
    try {
      await writeArtifact(deps.store, key, WorkerHeartbeat, {
        schemaVersion: 1,
        runId: target.runId,
        attempt: target.attempt,
        continuation: target.continuation,
        state,
        at: new Date(deps.clock.now()).toISOString(),
      });
    } catch (error) {
      deps.logger.warn('heartbeat not stored', { error: error instanceof Error ? error.message : String(error) });
    }
  };
  await write('running');
  let last = Promise.resolve();
  const cancel = (deps.heartbeatTimer ?? realTimer).every(HEARTBEAT_INTERVAL_MS, () => {
    last = last.then(() => write('running'));
  });
  return {
    stop: async () => {
      cancel();
      await last;
      await write('idle');
    },
    cancel,
  };
}
