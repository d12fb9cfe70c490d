import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli/cli-io.js';
import { ServeError } from './serve-settings.js';
import { packageRoot } from './setup/app-manifest.js';

/** The sandbox's script in the checkout; it runs the GitHub stand-in the tests use, so it needs the development dependencies. */
export const SANDBOX_SCRIPT = 'scripts/serve-sandbox.ts';

/**
 * `draftsman serve --sandbox [--dir DIR] [--port N] [--host H]`: runs the sandbox script of this
 * checkout in a child process (under tsx, as the tests run) until it ends; Ctrl-C and SIGTERM are
 * passed on so it stops its servers. Outside a checkout with `npm ci` done, one sentence says so.
 */
export async function launchSandbox(flags: { dir?: string; port?: string; host?: string }, io: CliIo, root = packageRoot()): Promise<number> {
  const script = root ? join(root, SANDBOX_SCRIPT) : undefined;
  if (!root || !script || !existsSync(script) || !existsSync(join(root, 'node_modules', 'tsx')))
    throw new ServeError(
      'SERVE_SANDBOX_UNAVAILABLE',
      `--sandbox runs from a draftsman checkout with its development dependencies installed (npm ci): ${script && existsSync(script) ? 'tsx is not installed' : `${SANDBOX_SCRIPT} is not in this installation`}`,
    );
  const args = ['--import', 'tsx', script];
  if (flags.dir !== undefined) args.push('--dir', resolve(io.cwd, flags.dir));
  if (flags.port !== undefined) args.push('--port', flags.port);
  if (flags.host !== undefined) args.push('--host', flags.host);
  // tsx is resolved from the checkout; what the sandbox writes goes to --dir (default a temporary folder).
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env });
  const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return await new Promise<number>((done, fail) => {
      child.once('error', fail);
      child.once('exit', (code, signal) => done(code ?? (signal ? 0 : 1)));
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
