import { applyPatch } from '../git/apply-patch.js';
import { binaryStringToBytes } from '../git/binary-string.js';
import { hashBlobBytes } from '../git/git-objects.js';
import type { SideFile, TreeSide } from '../git/tree-side.js';
import { diffSides } from '../git/unified-patch.js';
import type { FileSnapshot, PatchCodec } from '../phases/orchestrator.js';
import type { FileMode, Workspace } from '../workspace/workspace.js';

/**
 * The patch stack's codec over the git boundary's own unified patches: a segment's patch goes
 * from the view at the previous segment to the current view, for the touched paths only; resume
 * applies them back strictly (a mismatch throws, nothing is guessed).
 */
export const gitPatchCodec: PatchCodec = {
  async create(workspace, before, paths) {
    const from = await sideOf(workspace, paths, (path) => snapshotOrBase(workspace, before, path));
    const to = await sideOf(workspace, paths, async (path) => {
      const entry = workspace.entry(path);
      return entry ? { content: await workspace.read(path), mode: entry.mode } : null;
    });
    const files = await diffSides(from, to, { paths });
    if (files.length === 0) return '';
    return new TextDecoder('latin1').decode(binaryStringToBytes(files.map((f) => f.text).join('')));
  },
  async apply(workspace, patch) {
    await applyPatch(workspace, binaryPatch(patch));
  },
};

/** Patches are stored as text; their bytes are the binary string's code units. */
function binaryPatch(patch: string): Uint8Array {
  const out = new Uint8Array(patch.length);
  for (let i = 0; i < patch.length; i++) out[i] = patch.charCodeAt(i) & 0xff;
  return out;
}

async function snapshotOrBase(workspace: Workspace, before: ReadonlyMap<string, FileSnapshot | null>, path: string): Promise<FileSnapshot | null> {
  if (before.has(path)) return before.get(path) ?? null;
  const base = workspace.baseEntry(path);
  if (!base || base.mode === '160000') return null;
  return { content: await workspace.readBase(path), mode: base.mode };
}

async function sideOf(_workspace: Workspace, paths: string[], fileAt: (path: string) => Promise<FileSnapshot | null>): Promise<TreeSide> {
  const files = new Map<string, SideFile>();
  const bytes = new Map<string, Uint8Array>();
  for (const path of paths) {
    const file = await fileAt(path);
    if (!file) continue;
    files.set(path, { mode: file.mode as FileMode, oid: await hashBlobBytes(file.content) });
    bytes.set(path, file.content);
  }
  return {
    files,
    read: async (path) => {
      const content = bytes.get(path);
      if (!content) throw new Error(`not on this side: ${path}`);
      return content;
    },
  };
}
