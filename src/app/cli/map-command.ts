import type { CliIo } from './cli-io.js';
import { stageCommand } from './stage-command.js';

/** `draftsman map <repo>`: ingestion and the repository map. */
export function mapCommand(argv: string[], io: CliIo): Promise<number> {
  return stageCommand('map', argv, io);
}
