import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError, type CliIo } from '../cli/cli-io.js';
import { JsonLogger } from '../logger.js';
import { loadDotEnv, readServeSettings } from './serve-settings.js';
import { ONE_PROCESS_NOTICE, startServe, type ServeHandle } from './start-serve.js';

export const DEFAULT_SERVE_DIR = '.draftsman';

const OPTIONS = {
  dir: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'env-file': { type: 'string' },
} as const;

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
 * until interrupted. Settings come from the environment over `.env`, flags over both.
 */
export async function serveCommand(args: string[], io: CliIo, until: (handle: ServeHandle) => Promise<void> = untilSignal): Promise<number> {
  let values: { dir?: string; port?: string; host?: string; 'env-file'?: string };
  try {
    const parsed = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
    values = parsed.values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const env = loadDotEnv(io.env, resolve(io.cwd, values['env-file'] ?? '.env'));
  if (values.port !== undefined) env.PORT = values.port;
  if (values.host !== undefined) env.HOST = values.host;
  const settings = readServeSettings(env, io.cwd);
  const logger = new JsonLogger({ level: settings.LOG_LEVEL, clock: io.clock, sink: (line) => io.stdout(`${line}\n`), bindings: { fn: 'serve' } });
  io.stderr(`${ONE_PROCESS_NOTICE}\n`);
  const handle = await startServe({ settings, dir: resolve(io.cwd, values.dir ?? DEFAULT_SERVE_DIR), clock: io.clock, logger });
  io.stderr(`draftsman serve: webhooks to ${handle.webhookUrl}${settings.WEBHOOK_PROXY_URL ? ` (and through ${settings.WEBHOOK_PROXY_URL})` : ''}\n`);
  await until(handle);
  io.stderr('draftsman serve: stopping after the queued work\n');
  await handle.stop();
  return 0;
}
