import { binaryStringToBytes } from '../git/binary-string.js';
import type { PrCandidate } from '../git/pr-candidate.js';
import type { SideFile, TreeSide } from '../git/tree-side.js';
import { diffSides } from '../git/unified-patch.js';
import { blobSha } from '../objects/tree-hash.js';
import type { PathRules } from '../paths/path-rules.js';
import { detectCheats, packageScriptCheats, type CheatFinding } from '../phases/anti-cheat.js';

/**
 * The anti-cheat detectors of the verification phase, run again by the publisher on what it is
 * about to write: the candidate's blobs against the base's bytes, under the trusted path rules.
 * A forged candidate skips the worker's verification; it does not skip this. Sizes are bounded
 * by re-validation (the diff budgets) before this runs.
 */
export async function candidateCheats(
  candidate: Pick<PrCandidate, 'files'>,
  rules: PathRules,
  readChange: (blobSha: string) => Promise<Uint8Array | undefined>,
  readBase: (path: string) => Promise<Uint8Array | undefined>,
): Promise<CheatFinding[]> {
  const before = new Map<string, Uint8Array>();
  const after = new Map<string, Uint8Array>();
  const from: TreeSide = { files: new Map<string, SideFile>(), read: async (path) => before.get(path) ?? new Uint8Array() };
  const to: TreeSide = { files: new Map<string, SideFile>(), read: async (path) => after.get(path) ?? new Uint8Array() };
  for (const file of candidate.files) {
    // The base's mode is not at hand here: take the new one, so only content differs.
    const mode = 'deleted' in file ? '100644' : file.mode;
    const base = await readBase(file.path);
    if (base) {
      before.set(file.path, base);
      from.files.set(file.path, { mode, oid: blobSha(base) });
    }
    if ('deleted' in file) continue;
    const bytes = await readChange(file.blobSha);
    if (!bytes) continue;
    after.set(file.path, bytes);
    to.files.set(file.path, { mode, oid: file.blobSha });
  }
  const patches = await diffSides(from, to);
  const patch = new TextDecoder().decode(binaryStringToBytes(patches.map((p) => p.text).join('')));
  const scripts = candidate.files.flatMap((f) => packageScriptCheats(f.path, before.get(f.path), after.get(f.path)));
  return [...detectCheats(patch, rules).findings, ...scripts];
}
