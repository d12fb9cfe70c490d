import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { extractionFromLog, type RenovateExtraction } from './parity.js';

/**
 * Renovate's own extraction of a mirrored repository, for the dependency parity eval. Renovate is
 * installed on demand into a cache directory (never a dependency of this package) and run with the
 * local platform in extract-only dry-run mode, so it reads the files and looks nothing up.
 */
export const RENOVATE_SPEC = 'renovate@39';

export function cacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'draftsman-eval');
}

/** The Renovate binary, installed with npm into `<cache>/renovate-39` the first time. */
export function ensureRenovate(root = cacheRoot(), log: (line: string) => void = () => {}): string {
  const prefix = join(root, 'renovate-39');
  const bin = join(prefix, 'node_modules', '.bin', 'renovate');
  if (existsSync(bin)) return bin;
  mkdirSync(prefix, { recursive: true });
  log(`installing ${RENOVATE_SPEC} into ${prefix} (once)`);
  const r = spawnSync('npm', ['install', '--prefix', prefix, RENOVATE_SPEC, '--no-audit', '--no-fund', '--no-save'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`npm install ${RENOVATE_SPEC} failed: ${r.stderr}`);
  return bin;
}

function git(gitdir: string, args: string[]): string {
  const r = spawnSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

export function resolveCommit(gitdir: string, rev = 'HEAD'): string {
  return git(gitdir, ['rev-parse', `${rev}^{commit}`]).trim();
}

/**
 * The repository's own Renovate config, left out of the exported tree: Renovate's defaults apply
 * to every repository alike, and a config extending presets over the network (or not parsing, as
 * Renovate reads it even with requireConfig=ignored) would stop the extraction.
 */
const RENOVATE_CONFIG_FILE = /^(\.github\/|\.gitlab\/)?(renovate\.json5?|\.renovaterc(\.json5?)?)$/;

/**
 * Writes a commit's regular files (but the Renovate config) under `dest`. Snapshots may lack large blobs, which makes
 * `git archive` fail; `cat-file --batch` reports them as missing and they are left out.
 */
export async function exportTree(gitdir: string, commit: string, dest: string): Promise<{ files: number; missing: number }> {
  const entries = git(gitdir, ['ls-tree', '-r', '-z', commit])
    .split('\0')
    .filter(Boolean)
    .map((row) => {
      const tab = row.indexOf('\t');
      const [mode, type, oid] = row.slice(0, tab).split(' ');
      return { mode, type, oid, path: row.slice(tab + 1) };
    })
    .filter((e) => e.type === 'blob' && (e.mode === '100644' || e.mode === '100755') && !RENOVATE_CONFIG_FILE.test(e.path));
  const child = spawn('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = Buffer.alloc(0);
  let index = 0;
  let missing = 0;
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const nl = buffer.indexOf(10);
        if (nl < 0) return;
        const header = buffer.subarray(0, nl).toString('utf8');
        if (header.endsWith(' missing')) {
          missing++;
          index++;
          buffer = buffer.subarray(nl + 1);
          continue;
        }
        const size = Number(header.split(' ')[2]);
        if (buffer.length < nl + 1 + size + 1) return;
        const target = join(dest, entries[index++].path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, buffer.subarray(nl + 1, nl + 1 + size));
        buffer = buffer.subarray(nl + 1 + size + 1);
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  for (const e of entries) child.stdin.write(`${e.oid}\n`);
  child.stdin.end();
  await done;
  return { files: index - missing, missing };
}

function runRenovate(bin: string, cwd: string, baseDir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    RENOVATE_PLATFORM: 'local',
    RENOVATE_DRY_RUN: 'extract',
    RENOVATE_ONBOARDING: 'false',
    // A repository's own Renovate config may extend presets from the network: ignored, Renovate's defaults apply.
    RENOVATE_REQUIRE_CONFIG: 'ignored',
    RENOVATE_BASE_DIR: baseDir,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--platform=local', '--dry-run=extract', '--onboarding=false'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => void (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => void (err += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`renovate exited with ${code}: ${err.slice(-2000)}`))));
  });
}

/** Renovate's extraction of `repo` at `commit`, cached under `<cache>/extract/` so a second run reads it back. */
export async function renovateExtraction(input: {
  repo: string;
  gitdir: string;
  commit: string;
  root?: string;
  log?: (line: string) => void;
}): Promise<RenovateExtraction> {
  const root = input.root ?? cacheRoot();
  const file = join(root, 'extract', `${input.repo.replace('/', '+')}@${input.commit}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as RenovateExtraction;
  const bin = ensureRenovate(root, input.log);
  const work = mkdtempSync(join(tmpdir(), 'draftsman-deps-'));
  try {
    const tree = join(work, 'tree');
    const exported = await exportTree(input.gitdir, input.commit, tree);
    input.log?.(`${input.repo}: ${exported.files} files exported${exported.missing ? `, ${exported.missing} absent from the snapshot` : ''}; running Renovate`);
    const extraction = extractionFromLog(await runRenovate(bin, tree, join(work, 'base')));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(extraction)}\n`);
    return extraction;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
