import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A throwaway App key pair (PKCS#1, the form GitHub hands out). */
export function testAppKey(): { privateKeyPem: string; otherPrivateKeyPem: string } {
  const gen = () =>
    generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
  return { privateKeyPem: gen(), otherPrivateKeyPem: gen() };
}

/** Fixed clock, movable by tests. */
export function fixedClock(start = Date.UTC(2025, 5, 1, 12, 0, 0)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A JSON call against the stand-in with an installation token. */
export async function api(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `token ${token}` } : {}), 'content-type': 'application/json', accept: 'application/vnd.github+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

export function git(cwd: string, args: string[], input?: string | Buffer, env: Record<string, string> = {}): string {
  return execFileSync('git', args, { cwd, input, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...env } })
    .toString()
    .trim();
}

export type RefereeFile = string | { content: string | Buffer; mode?: '100644' | '100755' | '120000' } | { submodule: string };

/**
 * The referee: native git computes the tree of these files from a real working tree and index
 * (`git add` + `git write-tree`), independently of the stand-in's own tree code.
 */
export function refereeTree(files: Record<string, RefereeFile>): string {
  const dir = mkdtempSync(join(tmpdir(), 'referee-'));
  try {
    git(dir, ['init', '--quiet']);
    for (const [path, file] of Object.entries(files)) {
      const f = typeof file === 'string' ? { content: file } : file;
      if ('submodule' in f) {
        git(dir, ['update-index', '--add', '--cacheinfo', `160000,${f.submodule},${path}`]);
        continue;
      }
      const abs = join(dir, path);
      mkdirSync(dirname(abs), { recursive: true });
      if (f.mode === '120000') symlinkSync(String(f.content), abs);
      else {
        writeFileSync(abs, f.content);
        chmodSync(abs, f.mode === '100755' ? 0o755 : 0o644);
      }
      git(dir, ['add', '--', path]);
    }
    return git(dir, ['write-tree']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A scratch bare repository for `git hash-object` / `git commit-tree` as referee. */
export function refereeRepo(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'referee-bare-'));
  git(dir, ['init', '--bare', '--quiet']);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
