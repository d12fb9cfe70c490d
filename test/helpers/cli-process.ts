import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The CLI as a person runs it: `bin/draftsman.mjs` executed through its own `#!` line, with the
 * bundle `npm ci` builds (scripts/build.mjs) next to it, in a package directory of its own.
 */
export async function buildCliPackage(): Promise<{ bin: string; root: string }> {
  const root = mkdtempSync(join(tmpdir(), 'draftsman-cli-package-'));
  const repo = join(import.meta.dirname, '..', '..');
  await promisify(execFile)(process.execPath, [join(repo, 'scripts', 'build.mjs'), '--only', 'cli', '--outdir', join(root, 'dist'), '--quiet']);
  mkdirSync(join(root, 'bin'));
  const bin = join(root, 'bin', 'draftsman.mjs');
  copyFileSync(join(repo, 'bin', 'draftsman.mjs'), bin);
  chmodSync(bin, 0o755);
  for (const file of ['package.json', 'app.yml']) copyFileSync(join(repo, file), join(root, file));
  return { bin, root };
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stderr (or stdout with `stream`), or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, options?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number }): Promise<RegExpExecArray>;
  exit: Promise<number | null>;
  /** SIGINT, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `bin <args>` in `cwd` with only `env` (and PATH) as its environment. */
export function startCli(bin: string, args: string[], options: { cwd: string; env?: Record<string, string> }): CliProcess {
  const child = spawn(bin, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, { stream = 'stderr', timeoutMs = 20_000 } = {}) {
      const started = Date.now();
      for (;;) {
        const match = pattern.exec(stream === 'stderr' ? err : out);
        if (match) return match;
        if (child.exitCode !== null || Date.now() - started > timeoutMs)
          throw new Error(`no ${pattern} in ${stream} (exit ${child.exitCode}):\n--- stderr\n${err}\n--- stdout\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exit,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exit;
    },
  };
}
