import type { CliIo } from './cli-io.js';
import { stageCommand } from './stage-command.js';

/** `draftsman targets <repo> --task ...`: ingestion, the repository map and target selection for the task. */
export function targetsCommand(argv: string[], io: CliIo): Promise<number> {
  return stageCommand('targets', argv, io);
}
