import type { BaseTreeFile } from '../git/rebuild-tree.js';

/** More symlinks than this in one base tree are not read one by one: the publication is refused. */
export const MAX_BASE_SYMLINKS = 2_000;

const decoder = new TextDecoder();

/**
 * The base tree's symlinks and their targets, read through the host's blob reader, so path
 * rules at publish apply through them as they did at commit (a `.github/workflows -> ../ci`
 * link makes `ci/**` workflow content). Undefined when there are more than the bound allows.
 */
export async function readBaseSymlinks(
  files: readonly BaseTreeFile[],
  readBlob: (oid: string) => Promise<Uint8Array>,
): Promise<{ path: string; target: string }[] | undefined> {
  const links = files.filter((f) => f.mode === '120000');
  if (links.length > MAX_BASE_SYMLINKS) return undefined;
  const out: { path: string; target: string }[] = [];
  for (const link of links) out.push({ path: link.path, target: decoder.decode(await readBlob(link.oid)) });
  return out;
}
