import type { FsLike } from '../ports.js';
import { InflateBudget, type InflateLimits } from './inflate-budget.js';
import { indexPack } from './index-pack.js';
import { PackCatalog } from './pack-catalog.js';

/**
 * Catalog every pack in `gitdir` (one indexing pass each, see `PackIndexer`). isomorphic-git
 * resolves each packed object separately (a whole delta chain per read, plus a loose-object
 * probe that throws): for tens of thousands of files that is the difference between seconds
 * and a fraction of one. Objects outside packs are not listed; callers fall back to
 * isomorphic-git for them. Inflated sizes are bounded by `limits` before anything is inflated.
 */
export async function readPackCatalog(fs: FsLike, gitdir: string, limits: InflateLimits = {}): Promise<PackCatalog> {
  const catalog = new PackCatalog();
  const budget = new InflateBudget(limits);
  const packDir = `${gitdir}/objects/pack`;
  let names: string[];
  try {
    names = await fs.promises.readdir(packDir);
  } catch {
    return catalog;
  }
  for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
    const pack = await fs.promises.readFile(`${packDir}/${name.replace(/\.idx$/, '.pack')}`);
    await indexPack(toBytes(pack), budget, catalog);
  }
  return catalog;
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}
