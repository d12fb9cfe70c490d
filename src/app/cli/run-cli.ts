import { runKeys } from '../../core/artifacts/keys.js';
import { AgentError } from '../../core/errors.js';
import type { FsLike } from '../../core/ports.js';
import { EXIT_USAGE } from '../../core/runs/run-status.js';
import type { LocalArtifactStore } from '../local/local-artifact-store.js';
import { publishToLocalRepository } from '../local/local-publisher.js';
import { nodeFs } from '../local/node-fs.js';
import { UsageError, type CliIo } from './cli-io.js';
import { asksForHelp, COMMAND_HELP, MAIN_HELP, VERSION } from './cli-help.js';
import { auditCommand } from './audit-command.js';
import { campaignCommand } from './campaign-command.js';
import { doctorCommand } from '../serve/doctor-command.js';
import { ingestCommand } from './ingest-command.js';
import { mapCommand } from './map-command.js';
import { policyCheckCommand } from './policy-check-command.js';
import { policySchemaCommand } from './policy-schema-command.js';
import { replayCommand } from './replay-command.js';
import { reportCommand } from './report-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from '../serve/serve-command.js';
import { targetsCommand } from './targets-command.js';

export type { CliIo } from './cli-io.js';

/** `draftsman <command> ...`: returns the exit code (0 ready/completed, 1 failed/blocked, 2 usage, 3 needs approval, 130 cancelled). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`draftsman: ${usageSentence(error.message)}\n${helpPointer(argv[0])}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof AgentError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error);
    io.stderr(`draftsman: ${message}\n`);
    return 1;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  const answered = helpOrVersion(command, rest, io);
  if (answered !== undefined) return answered;
  switch (command) {
    case 'ingest':
      return ingestCommand(rest, io);
    case 'map':
      return mapCommand(rest, io);
    case 'targets':
      return targetsCommand(rest, io);
    case 'run':
      return runCommand(rest, io, (run) => publishLocally(run.store, run.keys, run.args.location, io, run.args.policy));
    case 'replay':
      return replayCommand(rest, io);
    case 'report':
      return reportCommand(rest, io);
    case 'serve':
      return serveCommand(rest, io);
    case 'doctor':
      return doctorCommand(rest, io);
    case 'audit':
      return auditCommand(rest, io);
    case 'campaign':
      return campaignCommand(rest, io, (args, runIo) => dispatch(['run', ...args], runIo));
    case 'policy': {
      const [sub, ...args] = rest;
      if (sub === 'schema') return policySchemaCommand(args, io);
      if (sub === 'check') return policyCheckCommand(args, io);
      throw new UsageError(`unknown policy command: ${sub ?? '(none)'}`);
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** `--help` (of the CLI or of a command), `--version`, or no command at all; undefined for anything else. */
function helpOrVersion(command: string | undefined, rest: string[], io: CliIo): number | undefined {
  if (command !== undefined && Object.hasOwn(COMMAND_HELP, command) && asksForHelp(rest)) {
    io.stdout(`${COMMAND_HELP[command]}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${MAIN_HELP}\n`);
    return command ? 0 : EXIT_USAGE;
  }
  if (command === '--version' || command === '-V') {
    io.stdout(`draftsman ${VERSION}\n`);
    return 0;
  }
  return undefined;
}

/**
 * A usage error as one sentence: node's parseArgs messages (`Unknown option '--x'. To specify a
 * positional argument ...`) name the option and stop there.
 */
function usageSentence(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(-[^' ]+)[^']*' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value`;
  const positional = /^Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument ${positional[1]}`;
  return message;
}

/** Where the options are described: the command's own help when there is a command. */
function helpPointer(command: string | undefined): string {
  const known = command !== undefined && Object.hasOwn(COMMAND_HELP, command);
  return `\`draftsman ${known ? `${command} ` : ''}--help\` lists the ${known ? 'options' : 'commands'}`;
}

/** `--publish`: the same publication core as the App, applied to the source repository (objects and the agent branch only). */
async function publishLocally(
  store: LocalArtifactStore,
  keys: ReturnType<typeof runKeys>,
  location: string,
  io: CliIo,
  policy: { text: Uint8Array; file: string } | undefined,
): Promise<string> {
  return publishToLocalRepository({
    fs: nodeFs as FsLike,
    store,
    keys,
    location,
    identity: { name: io.env.DRAFTSMAN_GIT_NAME ?? 'draftsman', email: io.env.DRAFTSMAN_GIT_EMAIL ?? 'draftsman@localhost' },
    policy,
  });
}
