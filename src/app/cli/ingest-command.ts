import type { CliIo } from './cli-io.js';
import { stageCommand } from './stage-command.js';

/** `draftsman ingest <repo>`: ingestion only (base pinned, snapshot scanned against the policy). */
export function ingestCommand(argv: string[], io: CliIo): Promise<number> {
  return stageCommand('ingest', argv, io);
}
