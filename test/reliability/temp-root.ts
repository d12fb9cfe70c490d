import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for one test file (real path, so snapshots compare like for like). */
export function tempRoot(name: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `draftsman-rel-${name}-`)));
}

export function removeRoot(root: string | undefined): void {
  if (root) rmSync(root, { recursive: true, force: true });
}
