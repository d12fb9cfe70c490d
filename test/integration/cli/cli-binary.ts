import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface BinaryOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON, else undefined. */
  json?: Record<string, any>;
}

/**
 * The CLI as a person runs it: `bin/draftsman.mjs` over the bundle `npm run build` makes, in a
 * temporary install (bin/, dist/, and node_modules linked for the grammar files). Build once per
 * test file (about 7 s).
 */
export class CliBinary {
  private constructor(
    readonly dir: string,
    readonly bin: string,
  ) {}

  static build(): CliBinary {
    const dir = mkdtempSync(join(tmpdir(), 'draftsman-bin-'));
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--only', 'cli', '--outdir', join(dir, 'dist'), '--quiet'], { stdio: 'inherit' });
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(ROOT, 'bin', 'draftsman.mjs'), join(dir, 'bin', 'draftsman.mjs'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return new CliBinary(dir, join(dir, 'bin', 'draftsman.mjs'));
  }

  /** `draftsman <argv>` with pipes for stdout and stderr (not a terminal). */
  async run(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<BinaryOutcome> {
    const result = await this.spawn(process.execPath, [this.bin, ...argv], { cwd: options.cwd, env: options.env });
    const lines = result.stdout.trimEnd().split('\n');
    let json: Record<string, any> | undefined;
    try {
      json = JSON.parse(lines[lines.length - 1]!);
    } catch {
      json = undefined;
    }
    return { code: result.code, stdout: result.stdout, stderr: result.stderr, json };
  }

  /**
   * `draftsman <argv>` on a pseudo-terminal (util-linux `script`): stdout and stderr are both the
   * terminal, so the returned text is what a person sees, in order.
   */
  async runOnTerminal(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number; screen: string }> {
    const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
    const command = [process.execPath, this.bin, ...argv].map(quote).join(' ');
    const result = await this.spawn('script', ['-qefc', command, '/dev/null'], { cwd: options.cwd, env: { TERM: 'xterm', ...options.env } });
    return { code: result.code, screen: result.stdout.replace(/\r\n/g, '\n') };
  }

  private spawn(
    file: string,
    args: string[],
    options: { cwd?: string; env?: Record<string, string> },
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile(
        file,
        args,
        {
          cwd: options.cwd ?? this.dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.dir, ...options.env },
          encoding: 'utf8',
          timeout: 120_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
