// First, before any other module allocates (app/runtime/young-generation.ts).
import '../app/runtime/keep-young-generation.js';
import { runCli } from '../app/cli/run-cli.js';

/** The CLI's composition root: real clock, streams and environment. */
export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    clock: { now: () => Date.now() },
    isTty: Boolean(process.stderr.isTTY),
  });
}
