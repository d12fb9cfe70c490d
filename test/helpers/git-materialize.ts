import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FsLike } from '../../src/core/ports.js';
import type { VirtualIndex } from '../../src/core/git/virtual-index.js';
import type { Workspace } from '../../src/core/workspace/workspace.js';

/** Environment for native git in tests: no user or system configuration, fixed identity. */
export const NATIVE_GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LANG: 'C',
  LC_ALL: 'C',
};

/** Run native git in `cwd`; returns stdout bytes. */
export function nativeGit(cwd: string, args: string[], options: { input?: Uint8Array | string; env?: NodeJS.ProcessEnv } = {}): Buffer {
  return execFileSync('git', args, { cwd, input: options.input, env: { ...NATIVE_GIT_ENV, ...options.env }, maxBuffer: 64 * 1024 * 1024 });
}

export function makeTempDir(prefix = 'draftsman-git-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Copy a directory of the injected (in-memory) file system to disk, byte for byte. */
export async function copyOut(fs: FsLike, from: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  for (const name of await fs.promises.readdir(from)) {
    const src = `${from}/${name}`;
    const stat = await fs.promises.lstat(src);
    if (stat.isDirectory()) await copyOut(fs, src, join(to, name));
    else writeFileSync(join(to, name), (await fs.promises.readFile(src)) as Uint8Array);
  }
}

const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tsymlinks = true\n\tignorecase = false\n';

/**
 * Materialise the object-backed workspace as a real repository: the in-memory gitdir (objects,
 * refs, HEAD) copied to `<dir>/.git`, the workspace view as the working tree, and the virtual
 * index as git's index. Native git can then be asked about the same state.
 */
export async function materialize(workspace: Workspace, index: VirtualIndex, dir = makeTempDir()): Promise<string> {
  await copyOut(workspace.fs, workspace.gitdir, join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'config'), CONFIG);
  for (const path of workspace.paths()) {
    const entry = workspace.entry(path)!;
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    if (entry.mode === '160000') mkdirSync(target, { recursive: true });
    else if (entry.mode === '120000') symlinkSync(Buffer.from(await workspace.read(path)).toString('utf8'), target);
    else {
      writeFileSync(target, await workspace.read(path));
      chmodSync(target, entry.mode === '100755' ? 0o755 : 0o644);
    }
  }
  const info = index
    .files()
    .map((f) => `${f.mode} ${f.oid}\t${f.path}\0`)
    .join('');
  nativeGit(dir, ['read-tree', '--empty']);
  if (info) nativeGit(dir, ['update-index', '-z', '--index-info'], { input: Buffer.from(info, 'utf8') });
  nativeGit(dir, ['update-index', '-q', '--refresh']);
  return dir;
}
