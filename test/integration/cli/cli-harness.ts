import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCli, type CliIo } from '../../../src/app/cli/run-cli.js';
import type { ModelProvider } from '../../../src/core/ports.js';
import { git } from '../../fixtures/make-repo.js';

/** The fixed instant every CLI test runs at. */
export const CLI_NOW = Date.parse('2026-02-03T04:05:06.000Z');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON (with --json), else undefined. */
  json?: Record<string, any>;
}

/** `draftsman <argv>` in-process with captured streams, a fixed clock and an empty environment. */
export async function cli(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string>; model?: ModelProvider; now?: number; isTty?: boolean } = {},
): Promise<CliOutcome> {
  let stdout = '';
  let stderr = '';
  const now = options.now ?? CLI_NOW;
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { ...options.env },
    cwd: options.cwd ?? process.cwd(),
    clock: { now: () => now },
    isTty: options.isTty ?? false,
    model: options.model,
  };
  const code = await runCli(argv, io);
  const lines = stdout.trimEnd().split('\n');
  let json: Record<string, any> | undefined;
  try {
    json = JSON.parse(lines[lines.length - 1]);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** A working copy (non-bare) with one commit of `files` on `main`, built with native git at a fixed date. */
export function makeWorkingCopy(dir: string, files: Record<string, string>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git(['init', '-q', '-b', 'main'], { cwd: dir });
  git(['add', '-A'], { cwd: dir });
  git(['commit', '-q', '-m', 'fixture'], { cwd: dir });
  return git(['rev-parse', 'HEAD'], { cwd: dir });
}
