import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { ArtifactError } from '../../core/artifacts/artifact-error.js';
import { assertArtifactKey } from '../../core/artifacts/artifact-key.js';
import type { ArtifactStore, StoredObject } from '../../core/ports.js';

/**
 * An `ArtifactStore` on a local directory, mirroring the S3 key layout under `root`.
 * `put` writes a temp file and renames it (readers never see half an object); `putIfAbsent`
 * links the temp file into place (atomic, never an overwrite); `putIfMatch` compares the
 * content digest under a per-key in-process lock (the CLI is one process).
 */
export class LocalArtifactStore implements ArtifactStore {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  /** Absolute path of a key; ARTIFACT_KEY_INVALID for a key that could leave the root (same rule as S3). */
  pathOf(key: string): string {
    assertArtifactKey(key);
    return join(this.root, ...key.split('/'));
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const body = new Uint8Array(await fs.readFile(this.pathOf(key)));
      return { body, etag: digest(body) };
    } catch (error) {
      // A key that names a directory (a prefix of other keys) is no object, as on S3.
      if (isNotFound(error) || ['EISDIR', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
  }

  async put(key: string, body: Uint8Array | string): Promise<string> {
    const bytes = toBytes(body);
    const target = this.pathOf(key);
    const temp = await this.writeTemp(target, bytes);
    await fs.rename(temp, target);
    return digest(bytes);
  }

  async putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean> {
    const bytes = toBytes(body);
    const target = this.pathOf(key);
    const temp = await this.writeTemp(target, bytes);
    try {
      await fs.link(temp, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  async putIfMatch(key: string, body: Uint8Array | string, etag: string): Promise<boolean> {
    return this.withLock(key, async () => {
      const current = await this.get(key);
      if (!current || current.etag !== etag) return false;
      await this.put(key, body);
      return true;
    });
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (error) {
        if (isNotFound(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw error;
      }
      for (const name of names) {
        if (name.startsWith('.tmp-')) continue;
        const full = join(dir, name);
        const stat = await fs.stat(full);
        if (stat.isDirectory()) await walk(full);
        else out.push(relative(this.root, full).split(sep).join('/'));
      }
    };
    // A prefix is a key (or its beginning): it must not climb out of the root.
    if (prefix.startsWith('/') || prefix.includes('\\') || prefix.split('/').some((s) => s === '..' || s === '.')) {
      throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid list prefix: ${JSON.stringify(prefix)}`, { key: prefix });
    }
    // Walk from the deepest directory the prefix names, then filter by the full prefix.
    const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await walk(dirPart ? join(this.root, ...dirPart.split('/')) : this.root);
    return out.filter((k) => k.startsWith(prefix)).sort();
  }

  private async writeTemp(target: string, bytes: Uint8Array): Promise<string> {
    await fs.mkdir(dirname(target), { recursive: true });
    const temp = join(dirname(target), `.tmp-${randomBytes(6).toString('hex')}`);
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  private async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    this.locks.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }
}

function toBytes(body: Uint8Array | string): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}
