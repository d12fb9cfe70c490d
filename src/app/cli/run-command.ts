import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import type { CliRun } from './begin-run.js';
import type { CliIo } from './cli-io.js';
import { stageCommand } from './stage-command.js';

/** Writes a COMPLETED run's commit and branch into the source repository; returns what happened. */
export type PublishLocally = (run: CliRun, result: PipelineResult) => Promise<string>;

/**
 * `draftsman run <repo> --task ...`: the whole pipeline. With `--publish`, a run that COMPLETED
 * with a commit is published into the local source repository; `--approve` lets the next
 * attempt pass the gates the last one stopped at.
 */
export function runCommand(argv: string[], io: CliIo, publish: PublishLocally): Promise<number> {
  return stageCommand('run', argv, io, async (run, result) => {
    if (!run.args.publish || result.status !== 'COMPLETED') return undefined;
    if (!result.headCommitSha) return 'nothing to publish: the run produced no commit (analysis mode)';
    return publish(run, result);
  });
}
