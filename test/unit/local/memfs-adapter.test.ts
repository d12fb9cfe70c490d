import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';

describe('createMemoryFs', () => {
  it("answers isomorphic-git's promise probe without asking memfs, and reads files as memfs does", async () => {
    const fs = createMemoryFs();
    const volumeReads: unknown[] = [];
    const original = fs.volume.readFile.bind(fs.volume);
    fs.volume.readFile = ((...args: Parameters<typeof original>) => (volumeReads.push(args[0]), original(...args))) as typeof original;
    const probe = (fs.promises.readFile as (...args: unknown[]) => Promise<unknown>)();
    await expect(probe).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    expect(volumeReads).toEqual([]);
    await fs.promises.mkdir('/d', { recursive: true } as never);
    await fs.promises.writeFile('/d/f.txt', 'hello');
    expect(await fs.promises.readFile('/d/f.txt', 'utf8')).toBe('hello');
    await expect(fs.promises.readFile('/d/missing')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(volumeReads).toEqual(['/d/f.txt', '/d/missing']);
  });

  it('serves isomorphic-git as its fs client', async () => {
    const fs = createMemoryFs();
    await git.init({ fs, dir: '/r', defaultBranch: 'main' });
    const oid = await git.writeBlob({ fs, gitdir: '/r/.git', blob: new TextEncoder().encode('x\n') });
    expect(new TextDecoder().decode((await git.readBlob({ fs, gitdir: '/r/.git', oid })).blob)).toBe('x\n');
  });

  it("keeps a file's bytes without copying them: same content, no new backing memory (writeFile copies)", async () => {
    const fs = createMemoryFs();
    await fs.promises.mkdir('/p', { recursive: true } as never);
    const size = 16 * 1024 * 1024;
    const data = Buffer.alloc(size, 7);
    data.write('pack', 0);
    const before = process.memoryUsage().arrayBuffers;
    await fs.keepFile!('/p/kept.pack', data);
    const kept = process.memoryUsage().arrayBuffers - before;
    // The same bytes through writeFile: memfs takes a copy. Measured three times, the largest
    // counts: a collection that frees other buffers of this worker can hide one copy, not three.
    let copied = 0;
    for (let i = 0; i < 3; i++) {
      const beforeWrite = process.memoryUsage().arrayBuffers;
      await fs.promises.writeFile(`/p/copied-${i}.pack`, data);
      copied = Math.max(copied, process.memoryUsage().arrayBuffers - beforeWrite);
    }
    expect(kept).toBeLessThan(size / 4);
    // The control: the same measurement sees a copy. A collection during the 16 MiB write may free
    // other buffers of this worker (files share it), so the copy is only required to show clearly.
    expect(copied).toBeGreaterThan(size / 2);
    const read = (await fs.promises.readFile('/p/kept.pack')) as Uint8Array;
    expect(Buffer.from(read).equals(data)).toBe(true);
    expect((await fs.promises.stat('/p/kept.pack')).size).toBe(size);
  });
});
