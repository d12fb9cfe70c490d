import { spawn } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix } from 'node:path';
import { collectReports, reportFiles } from './junit-report-files.js';
import type { CheckoutFile, CommandOutcome, Verifier, VerifyCommand, VerifyLimits, VerifyRequest, VerifyRun } from '../../core/verify/verifier.js';

/**
 * The local runner of verification: each command runs in a bubblewrap sandbox (a new PID,
 * mount, IPC, UTS, user and network namespace) over a fresh checkout of the candidate tree in
 * a temporary directory. The launcher itself starts from an allow-listed environment, so
 * nothing of the caller's environment (tokens, the model key) is visible inside, not even as
 * `/proc/1/environ`; the system directories are mounted read-only, the caller's HOME not at
 * all; HOME, TMPDIR and the tool caches live in the temporary directory; every process ends
 * with the sandbox (setsid and double forks included: the PID namespace goes with it). Output
 * is bounded, each command has a wall time and all of them a budget. The checkout is deleted
 * afterwards: nothing a command changes is published. See docs/architecture.md, "Verification".
 */

export interface SandboxVerifierOptions {
  /** Where the temporary checkouts go (default: the OS temporary directory). */
  tmpDir?: string;
  /** Toolchain directories outside /usr to mount read-only (their `bin` goes on PATH): a Python or Node installed elsewhere. */
  toolchains?: readonly string[];
  /** The bubblewrap executable (default `bwrap` on PATH). */
  bwrap?: string;
}

/** Where the temporary directory appears inside the sandbox. */
const SANDBOX_ROOT = '/sandbox';
const CHECKOUT = `${SANDBOX_ROOT}/src`;
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The launcher's own environment: PATH only, so that bwrap finds nothing else to pass on. */
const LAUNCHER_ENV = { PATH: SYSTEM_PATH };
/** System files a toolchain needs, mounted read-only when present (no credentials among them). */
const ETC_FILES = [
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'localtime',
  'mime.types',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  // Debian's Maven keeps its launcher configuration here (/usr/share/maven/bin/m2.conf links to it);
  // settings.xml stays out, as it may hold repository credentials.
  'maven/m2.conf',
  'maven/logging',
];
/** Head and tail of the output kept for the excerpt; the middle is counted, not kept. */
const HEAD_BYTES = 8 * 1024;
const TAIL_BYTES = 56 * 1024;

/** `DRAFTSMAN_VERIFY_TOOLCHAINS` (colon-separated absolute directories) as a list. */
export function toolchainDirs(value: string | undefined): string[] {
  return (value ?? '').split(':').filter((dir) => dir.length > 0);
}

type Availability = { ok: true } | { ok: false; why: string };

function runQuiet(file: string, args: readonly string[]): Promise<{ code: number | null; stderr: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env: LAUNCHER_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: null, stderr, error }));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Runs `true` in a sandbox built as for a command, over an empty checkout. */
async function probe(bwrap: string, tmpDir: string | undefined): ReturnType<typeof runQuiet> {
  const root = await mkdtemp(join(tmpDir ?? tmpdir(), 'draftsman-verify-probe-'));
  try {
    await mkdir(join(root, 'src'));
    const command: VerifyCommand = { run: 'true', cwd: '.', kind: 'setup', source: 'probe' };
    return await runQuiet(bwrap, bwrapArgs(root, command, { commandTimeoutMs: 0, budgetMs: 0, maxOutputBytes: 0, network: false }, []));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Toolchain directories a command may need besides /usr: this Node's installation, when it lives elsewhere. */
function defaultToolchains(): string[] {
  const node = dirname(dirname(realpathSync(process.execPath)));
  return node.startsWith('/usr') ? [] : [node];
}

function etcBinds(network: boolean): string[] {
  const names = [...ETC_FILES, ...(network ? ['resolv.conf'] : [])];
  // JDKs keep their configuration under /etc/java-<n>-openjdk.
  const java = existsSync('/etc') ? readdirSync('/etc').filter((name) => /^java-\d+/.test(name)) : [];
  return [...names, ...java].flatMap((name) => ['--ro-bind-try', `/etc/${name}`, `/etc/${name}`]);
}

/** The environment inside the sandbox: a fixed allow-list, the caches in the temporary directory. */
function sandboxEnv(toolchains: readonly string[]): Record<string, string> {
  const home = `${SANDBOX_ROOT}/home`;
  const cache = `${SANDBOX_ROOT}/cache`;
  return {
    PATH: [...toolchains.map((t) => `${t}/bin`), SYSTEM_PATH].join(':'),
    HOME: home,
    TMPDIR: `${SANDBOX_ROOT}/tmp`,
    LANG: 'C.UTF-8',
    CI: 'true',
    TERM: 'dumb',
    NO_COLOR: '1',
    npm_config_cache: `${cache}/npm`,
    npm_config_update_notifier: 'false',
    GOCACHE: `${cache}/go-build`,
    GOPATH: `${cache}/go`,
    GOTOOLCHAIN: 'local',
    PIP_CACHE_DIR: `${cache}/pip`,
    PYTHONDONTWRITEBYTECODE: '1',
    GRADLE_USER_HOME: `${cache}/gradle`,
  };
}

function bwrapArgs(root: string, command: VerifyCommand, limits: VerifyLimits, toolchains: readonly string[]): string[] {
  const env = sandboxEnv(toolchains);
  const limit = limits.memoryMb ? `ulimit -v ${limits.memoryMb * 1024}\n` : '';
  return [
    '--unshare-all',
    ...(limits.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/usr',
    '/usr',
    ...['/bin', '/sbin', '/lib', '/lib64', '/lib32'].flatMap((dir) => ['--ro-bind-try', dir, dir]),
    ...etcBinds(limits.network),
    ...toolchains.flatMap((dir) => ['--ro-bind', dir, dir]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    root,
    SANDBOX_ROOT,
    '--chdir',
    posix.join(CHECKOUT, command.cwd),
    '--clearenv',
    ...Object.entries(env).flatMap(([key, value]) => ['--setenv', key, value]),
    '--',
    '/bin/sh',
    '-c',
    `${limit}${command.run}`,
  ];
}

/** A path of the candidate tree, refused when it could leave the checkout (the tree was verified at ingestion; this holds anyway). */
function checkoutPath(src: string, path: string): string | undefined {
  if (path === '' || isAbsolute(path) || path.split('/').some((part) => part === '..' || part === '.git' || part === '')) return undefined;
  return join(src, path);
}

/** Files written at once while the checkout is built. */
const WRITE_CONCURRENCY = 16;

/**
 * Whether a symlink at `path` pointing to `target` stays inside the checkout however it is
 * resolved: relative, its `..` segments only leading (they walk up real directories: every
 * directory is created before any symlink), no more of them than the link is deep.
 */
export function symlinkStaysInside(path: string, target: string): boolean {
  if (target === '' || isAbsolute(target) || target.includes('\0')) return false;
  const parts = target.split('/').filter((part) => part !== '' && part !== '.');
  const ups = parts.findIndex((part) => part !== '..');
  const leading = ups === -1 ? parts.length : ups;
  if (parts.slice(leading).includes('..')) return false;
  return leading <= path.split('/').length - 1;
}

/**
 * Writes the candidate tree: directories and files first (a file is never written through a
 * symlink), then the symlinks that stay inside the checkout; the others are left out, as is a
 * symlink whose path is already a directory.
 */
async function writeCheckout(src: string, files: () => AsyncIterable<CheckoutFile>): Promise<void> {
  const dirs = new Map<string, Promise<unknown>>();
  const ensureDir = (dir: string) => {
    let made = dirs.get(dir);
    if (!made) dirs.set(dir, (made = mkdir(dir, { recursive: true })));
    return made;
  };
  const links: { target: string; link: string }[] = [];
  const pending = new Set<Promise<void>>();
  for await (const file of files()) {
    const target = checkoutPath(src, file.path);
    if (!target) continue;
    if (file.mode === '120000') {
      const link = new TextDecoder().decode(file.content);
      if (symlinkStaysInside(file.path, link)) links.push({ target, link });
      continue;
    }
    if (file.mode !== '100644' && file.mode !== '100755') continue;
    const write = (async () => {
      await ensureDir(dirname(target));
      await writeFile(target, file.content);
      if (file.mode === '100755') await chmod(target, 0o755);
    })().finally(() => pending.delete(write));
    pending.add(write);
    if (pending.size >= WRITE_CONCURRENCY) await Promise.race(pending);
  }
  await Promise.all(pending);
  // Every directory a symlink sits in exists before the first symlink does: no symlink is made through another.
  await Promise.all(links.map(({ target }) => ensureDir(dirname(target))));
  for (const { target, link } of links) {
    await symlink(link, target).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
}

/** Deletes the temporary directory, making read-only directories (Go's module cache) writable first when needed. */
async function removeTree(root: string): Promise<void> {
  try {
    await rm(root, { recursive: true, force: true });
  } catch {
    const walk = async (dir: string): Promise<void> => {
      await chmod(dir, 0o700).catch(() => undefined);
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) if (entry.isDirectory()) await walk(join(dir, entry.name));
    };
    await walk(root);
    await rm(root, { recursive: true, force: true });
  }
}

/** Collects a command's output within bounds: its head and tail are kept, the rest counted. */
class BoundedOutput {
  private head = Buffer.alloc(0);
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.head.length < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.head.length);
      this.head = Buffer.concat([this.head, take]);
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= TAIL_BYTES) this.tailBytes -= this.tail.shift()!.length;
  }

  text(): string {
    const tail = Buffer.concat(this.tail);
    const kept = tail.subarray(Math.max(0, tail.length - TAIL_BYTES));
    const omitted = this.total - this.head.length - kept.length;
    const gap = omitted > 0 ? `\n… ${omitted} bytes of output omitted …\n` : '';
    return `${this.head.toString('utf8')}${gap}${kept.toString('utf8')}`;
  }
}

function runCommand(bwrap: string, args: string[], limits: VerifyLimits, timeLeftMs: number): Promise<Omit<CommandOutcome, 'command'>> {
  return new Promise((resolve) => {
    const started = performance.now();
    const output = new BoundedOutput();
    let timedOut = false;
    let outputLimited = false;
    const child = spawn(bwrap, args, { env: LAUNCHER_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    // Killing the launcher ends the sandbox's init (--die-with-parent), and with it the PID namespace;
    // its pipes are closed on our side too, so that nothing left writing can hold the run open.
    const stop = () => {
      child.kill('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        stop();
      },
      Math.min(limits.commandTimeoutMs, Math.max(0, timeLeftMs)),
    );
    const onData = (chunk: Buffer) => {
      output.add(chunk);
      if (output.total > limits.maxOutputBytes && !outputLimited) {
        outputLimited = true;
        stop();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      const killed = timedOut || outputLimited;
      resolve({
        exitCode: killed ? null : exitCode,
        durationMs: performance.now() - started,
        timedOut,
        outputLimited,
        outputBytes: output.total,
        output: output.text(),
      });
    };
    child.on('error', (error) => {
      output.add(Buffer.from(`could not start the sandbox: ${error.message}\n`));
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

function skipped(command: VerifyCommand, why: string): CommandOutcome {
  return { command, exitCode: null, durationMs: 0, timedOut: false, outputLimited: false, outputBytes: 0, output: '', skipped: why };
}

export function createSandboxVerifier(options: SandboxVerifierOptions = {}): Verifier {
  const bwrap = options.bwrap ?? 'bwrap';
  const toolchains = [...new Set([...defaultToolchains(), ...(options.toolchains ?? [])])].filter((dir) => isAbsolute(dir) && existsSync(dir));
  let availability: Promise<Availability> | undefined;
  return {
    runner: 'local',
    available() {
      availability ??= probe(bwrap, options.tmpDir).then((r): Availability => {
        if (r.error?.code === 'ENOENT')
          return {
            ok: false,
            why: 'bubblewrap (bwrap) is not installed here, so no sandbox is available: install it (apt-get install bubblewrap) or set agent.verify.runner: none',
          };
        if (r.code !== 0) return { ok: false, why: `bubblewrap cannot create its namespaces here (${r.stderr.trim().split('\n')[0] || `exit ${r.code}`})` };
        return { ok: true };
      });
      return availability;
    },
    async run(request: VerifyRequest): Promise<VerifyRun> {
      const root = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'draftsman-verify-'));
      try {
        for (const dir of ['src', 'home', 'tmp', 'cache']) await mkdir(join(root, dir), { recursive: true });
        await writeCheckout(join(root, 'src'), request.files);
        const outcomes: CommandOutcome[] = [];
        const started = performance.now();
        let failedSetup: string | undefined;
        for (const command of request.commands) {
          const left = request.limits.budgetMs - (performance.now() - started);
          if (failedSetup) outcomes.push(skipped(command, `the setup command \`${failedSetup}\` failed`));
          else if (left <= 0) outcomes.push(skipped(command, 'the verification budget (agent.verify.budgetSeconds) was spent'));
          else if (!checkoutPath(join(root, 'src'), command.cwd) && command.cwd !== '.')
            outcomes.push(skipped(command, `its directory ${command.cwd} is not in the repository`));
          else {
            const before = command.kind === 'test' ? await reportFiles(join(root, 'src')) : undefined;
            const outcome: CommandOutcome = {
              command,
              ...(await runCommand(bwrap, bwrapArgs(root, command, request.limits, toolchains), request.limits, left)),
            };
            if (before) {
              const reports = await collectReports(join(root, 'src'), before);
              if (reports.length > 0) outcome.reports = reports;
            }
            outcomes.push(outcome);
            if (command.kind === 'setup' && outcome.exitCode !== 0) failedSetup = command.run;
          }
        }
        return { where: 'local sandbox (bubblewrap)', checkoutRoot: CHECKOUT, outcomes };
      } finally {
        await removeTree(root);
      }
    },
  };
}
