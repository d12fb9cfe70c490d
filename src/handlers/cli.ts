import { runCli } from '../app/cli/run-cli.js';
import { keepYoungGenerationSize } from '../app/runtime/young-generation.js';

/** The CLI's composition root: real clock, streams and environment. */
export async function main(argv: string[]): Promise<number> {
  keepYoungGenerationSize();
  return runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    clock: { now: () => Date.now() },
    isTty: Boolean(process.stderr.isTTY),
  });
}
