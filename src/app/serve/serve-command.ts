import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError, type CliIo } from '../cli/cli-io.js';
import { JsonLogger } from '../logger.js';
import { githubUrls, isUnconfigured, loadServeEnv, readServeSettings, ServeEnv, ServeError, type ServeEnvSource } from './serve-settings.js';
import { findAppManifest } from './setup/app-manifest.js';
import { SetupUnavailable, startSetupServer } from './setup/setup-server.js';
import { launchSandbox } from './sandbox-launch.js';
import { ONE_PROCESS_NOTICE, startServe, type ServeHandle } from './start-serve.js';

export const DEFAULT_SERVE_DIR = '.draftsman';

/** `serve` cannot start as configured (a variable missing or wrong, `--env-file` naming no file): the message names the variable and the file. */
export const EXIT_SERVE_CONFIG = 2;
/** The setup page cannot run: registering an App needs the network. */
export const EXIT_SERVE_SETUP = 1;

const OPTIONS = {
  dir: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'env-file': { type: 'string' },
  sandbox: { type: 'boolean' },
} as const;

type ServeFlags = { dir?: string; port?: string; host?: string; 'env-file'?: string; sandbox?: boolean };

/** Waits for Ctrl-C or a termination signal. */
function untilSignal(): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/**
 * `draftsman serve [--dir DIR] [--port N] [--host H] [--env-file FILE]`: the App in one process
 * until interrupted. Settings come from the environment over `.env`, flags over both. With no
 * App configured at all, a setup page registers one first (GitHub's manifest flow). `--sandbox`
 * runs it against a local GitHub stand-in instead (`sandbox-launch.ts`).
 */
export async function serveCommand(args: string[], io: CliIo, until: (handle: ServeHandle) => Promise<void> = untilSignal): Promise<number> {
  let values: ServeFlags;
  try {
    const parsed = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
    values = parsed.values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  try {
    if (values.sandbox) return await launchSandbox(values, io);
    return await serve(values, io, until);
  } catch (error) {
    if (error instanceof ServeError) {
      io.stderr(`draftsman serve: ${error.message}\n`);
      return EXIT_SERVE_CONFIG;
    }
    if (error instanceof SetupUnavailable) {
      io.stderr(`draftsman serve: ${error.message}\n`);
      return EXIT_SERVE_SETUP;
    }
    throw error;
  }
}

function loadWithFlags(io: CliIo, values: ServeFlags): ServeEnvSource {
  const source = loadServeEnv(io.env, io.cwd, values['env-file']);
  if (values.port !== undefined) source.env.PORT = values.port;
  if (values.host !== undefined) source.env.HOST = values.host;
  return source;
}

async function serve(values: ServeFlags, io: CliIo, until: (handle: ServeHandle) => Promise<void>): Promise<number> {
  let source = loadWithFlags(io, values);
  const logger = (level: ServeEnv['LOG_LEVEL']) =>
    new JsonLogger({ level, clock: io.clock, sink: (line) => io.stdout(`${line}\n`), bindings: { fn: 'serve' } });
  if (isUnconfigured(source.env, io.cwd)) {
    const registered = await setUp(source, io, logger('info'));
    if (!registered) return 0;
    source = loadWithFlags(io, values);
  }
  const settings = readServeSettings(source.env, io.cwd, source);
  io.stderr(`${ONE_PROCESS_NOTICE}\n`);
  const handle = await startServe({ settings, dir: resolve(io.cwd, values.dir ?? DEFAULT_SERVE_DIR), clock: io.clock, logger: logger(settings.LOG_LEVEL) });
  const proxy = settings.WEBHOOK_PROXY_URL
    ? handle.proxyConnected
      ? ` (and through ${settings.WEBHOOK_PROXY_URL})`
      : ` (${settings.WEBHOOK_PROXY_URL} cannot be reached yet)`
    : '';
  io.stderr(`draftsman serve: webhooks to ${handle.webhookUrl}${proxy}\n`);
  await until(handle);
  io.stderr('draftsman serve: stopping after the queued work\n');
  await handle.stop();
  return 0;
}

/** The setup page, until the App is registered (true) or the process is interrupted (false). */
async function setUp(source: ServeEnvSource, io: CliIo, logger: JsonLogger): Promise<boolean> {
  const env = ServeEnv.pick({ PORT: true, HOST: true, GHE_PROTOCOL: true }).safeParse(source.env);
  if (!env.success) return true; // readServeSettings names what is wrong
  const appYml = findAppManifest(io.cwd);
  if (!appYml)
    throw new ServeError('SERVE_SETUP_FAILED', 'no app.yml to register the App from: run serve in the draftsman checkout, or put app.yml in this directory');
  const urls = githubUrls({ ...source.env, GHE_PROTOCOL: env.data.GHE_PROTOCOL });
  const setup = await startSetupServer({
    host: env.data.HOST,
    port: env.data.PORT,
    appYml,
    envFile: resolve(io.cwd, source.file),
    envFileName: source.file,
    githubUrl: urls.web,
    apiUrl: urls.api,
    proxyUrl: source.env.WEBHOOK_PROXY_URL,
    proxyNewUrl: source.env.WEBHOOK_PROXY_NEW_URL,
    logger,
  });
  io.stderr(`draftsman serve: no GitHub App is configured; open ${setup.url} to register one from app.yml (its id, key and secret go to ${source.file})\n`);
  const outcome = await Promise.race([setup.done, untilSignal().then(() => undefined)]);
  await setup.stop();
  if (outcome) io.stderr(`draftsman serve: registered ${outcome.slug} (App ${outcome.appId}); install it from ${outcome.htmlUrl}/installations/new\n`);
  return outcome !== undefined;
}
