/**
 * One `draftsman` command through `runCli` in this (child) process, timed after the imports, with
 * its memory peak and the `--json` summary of its last stdout line. The e2e and real-repository
 * benchmarks both measure the CLI this way.
 */
import { z } from 'zod';
import { runCli } from '../src/app/cli/run-cli.js';
import { startHeapSampler, type MemoryPeak } from './child-process.js';

const CliSummary = z.object({
  status: z.string().optional(),
  reason: z.string().optional(),
  artifacts: z.record(z.string(), z.string()).optional(),
  phases: z.array(z.object({ phase: z.string(), state: z.string(), ms: z.number() })).optional(),
});
export type CliSummary = z.infer<typeof CliSummary>;

export interface TimedCli extends MemoryPeak {
  ms: number;
  code: number;
  /** The `--json` line, or the last line of stderr as the reason when there is none. */
  summary: CliSummary;
}

/** Runs `draftsman <args> --json` without any DRAFTSMAN_* variable of the calling shell. */
export async function runCliTimed(args: string[]): Promise<TimedCli> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DRAFTSMAN_')) delete env[key];
  let stdout = '';
  let stderr = '';
  const sampler = startHeapSampler();
  const start = performance.now();
  const code = await runCli(args.includes('--json') ? args : [...args, '--json'], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text.slice(0, 4000)),
    env,
    cwd: process.cwd(),
    clock: { now: () => Date.now() },
    isTty: false,
  });
  const ms = performance.now() - start;
  const peak = sampler.stop();
  let summary: CliSummary;
  try {
    summary = CliSummary.parse(JSON.parse(stdout.trim().split('\n').pop() ?? ''));
  } catch {
    summary = { reason: stderr.trim().split('\n').pop()?.slice(0, 200) };
  }
  return { ms, code, summary, ...peak };
}
