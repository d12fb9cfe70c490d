import { describe, expect, it } from 'vitest';
import { CachedWorkspace } from '../../../src/core/pipeline/cached-workspace.js';
import type { Workspace } from '../../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The repository's workspace, counting the reads that reach it. */
async function counted(files: Record<string, string>) {
  const repo = await createMemoryRepo(files);
  const inner = repo.workspace;
  const reads: string[] = [];
  const spy = new Proxy(inner, {
    get(target, name, receiver) {
      if (name === 'read' || name === 'readBase') return (path: string) => (reads.push(`${String(name)} ${path}`), target[name](path));
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Workspace;
  return { repo, spy, reads };
}

describe('CachedWorkspace', () => {
  it('reads each base blob from the workspace once, and paths sharing a blob share the read', async () => {
    const { spy, reads } = await counted({ 'a.txt': 'same\n', 'b.txt': 'same\n', 'c.txt': 'other\n' });
    const ws = new CachedWorkspace(spy);
    for (let i = 0; i < 3; i++) for (const p of ['a.txt', 'b.txt', 'c.txt']) await ws.read(p);
    expect(text(await ws.readBase('c.txt'))).toBe('other\n');
    expect(reads).toEqual(['read a.txt', 'read c.txt']);
  });

  it('never serves an overlay file from the cache, and readBase still shows the base', async () => {
    const { spy } = await counted({ 'a.txt': 'base\n' });
    const ws = new CachedWorkspace(spy);
    expect(await ws.readText('a.txt')).toBe('base\n');
    await ws.write('a.txt', 'edited\n');
    expect(await ws.readText('a.txt')).toBe('edited\n');
    expect(text(await ws.readBase('a.txt'))).toBe('base\n');
    ws.reset();
    expect(await ws.readText('a.txt')).toBe('base\n');
    await ws.delete('a.txt');
    await expect(ws.read('a.txt')).rejects.toMatchObject({ reason: 'FILE_NOT_FOUND' });
  });

  it('gives every caller its own copy', async () => {
    const { spy } = await counted({ 'a.txt': 'abc' });
    const ws = new CachedWorkspace(spy);
    (await ws.read('a.txt'))[0] = 0x78;
    (await ws.read('a.txt'))[0] = 0x79;
    expect(await ws.readText('a.txt')).toBe('abc');
  });

  it('stops caching at its byte budget', async () => {
    const { spy, reads } = await counted({ 'a.txt': '12345', 'b.txt': '67890' });
    const ws = new CachedWorkspace(spy, 7);
    for (let i = 0; i < 2; i++) for (const p of ['a.txt', 'b.txt']) await ws.read(p);
    expect(reads).toEqual(['read a.txt', 'read b.txt', 'read b.txt']);
  });
});
