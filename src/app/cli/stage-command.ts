import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { beginRun, type CliRun } from './begin-run.js';
import type { CliIo } from './cli-io.js';
import { writeOutcome } from './cli-output.js';
import { runStage } from './run-stage.js';
import { parseStageArgs, type StageCommand } from './stage-args.js';
import { TerminalReporter } from './terminal-reporter.js';
import type { RepoSource } from '../../core/ingestion/repo-source.js';

/** Runs after the pipeline and before the output (run --publish); returns a note for the output. */
export type AfterStage = (run: CliRun, result: PipelineResult) => Promise<string | undefined>;

/** A pipeline command from its arguments to its exit code: parse, begin the attempt, run, print. */
export async function stageCommand(command: StageCommand, argv: string[], io: CliIo, after?: AfterStage): Promise<number> {
  const args = await parseStageArgs(command, argv, io);
  const run = await beginRun(args, io);
  const reporter = new TerminalReporter({ write: io.stderr, enabled: !args.json, live: io.isTty });
  run.source = withFetchProgress(run.source, reporter);
  const result = await runStage(run, io, reporter);
  const note = after ? await timedAfter(run, result, io, reporter, after) : undefined;
  return await writeOutcome(run, result, io, reporter, note);
}

/** The step after the pipeline (publication) is a stage of the command: its time is reported like the phases'. */
async function timedAfter(run: CliRun, result: PipelineResult, io: CliIo, reporter: TerminalReporter, after: AfterStage): Promise<string | undefined> {
  const started = io.clock.now();
  const note = await after(run, result);
  if (note !== undefined)
    reporter.phase({ phase: 'publish', state: note.startsWith('refused') ? 'failed' : 'done', summary: note, elapsedMs: io.clock.now() - started });
  return note;
}

/** The source with its fetch reporting how far it got (objects, bytes) to the terminal. */
function withFetchProgress(source: RepoSource, reporter: TerminalReporter): RepoSource {
  const fetch = source.fetch.bind(source);
  return Object.assign(Object.create(source) as RepoSource, {
    fetch: (request: Parameters<RepoSource['fetch']>[0]) =>
      fetch({
        ...request,
        onProgress: (event: { phase: string; loaded: number; total?: number }) => {
          request.onProgress?.(event);
          reporter.progress(`${event.phase}: ${event.loaded}${event.total ? `/${event.total}` : ''}`);
        },
      }),
  });
}
