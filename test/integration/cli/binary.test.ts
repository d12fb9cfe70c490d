import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliBinary } from './cli-binary.js';

// The CLI through its real entry point (bin/draftsman.mjs over the built bundle), as a child process.
let bin: CliBinary;
let root: string;

beforeAll(() => {
  bin = CliBinary.build();
  root = mkdtempSync(join(tmpdir(), 'draftsman-binary-'));
}, 120_000);

afterAll(() => {
  bin?.remove();
  rmSync(root, { recursive: true, force: true });
});

describe('help, version and usage errors', () => {
  const version = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version as string;
  const commands = ['ingest', 'map', 'targets', 'run', 'policy', 'replay', 'serve'];

  it('draftsman <command> --help describes each command and exits 0; draftsman --help and -h list the commands', async () => {
    const [each, long, short] = await Promise.all([Promise.all(commands.map((c) => bin.run([c, '--help']))), bin.run(['--help']), bin.run(['-h'])]);
    each.forEach((result, i) => {
      expect(result.code, commands[i]).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^usage: draftsman ${commands[i]}\\b`));
      expect(result.stderr).toBe('');
    });
    for (const result of [long, short]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('usage: draftsman <command>');
      expect(result.stdout).toContain('draftsman <command> --help');
    }
  }, 60_000);

  it("draftsman --version prints package.json's version; unknown options and commands are one sentence pointing to --help, exit 2", async () => {
    const [shown, option, command] = await Promise.all([bin.run(['--version']), bin.run(['run', '.', '--frobnicate']), bin.run(['frobnicate'])]);
    expect(shown).toMatchObject({ code: 0, stdout: `draftsman ${version}\n` });
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('draftsman: unknown option --frobnicate\n`draftsman run --help` lists the options\n');
    expect(command.code).toBe(2);
    expect(command.stderr).toBe('draftsman: unknown command: frobnicate\n`draftsman --help` lists the commands\n');
  }, 60_000);
});
