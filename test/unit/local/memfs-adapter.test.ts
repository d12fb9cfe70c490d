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
});
