import { manifestKindFor } from '../../manifests/manifest-kinds.js';
import { lockfileRefreshCommand, lockfilesForManifest } from '../../policy/lockfiles.js';
import type { Workspace } from '../../workspace/workspace.js';
import { dirname } from './manifests/follow-types.js';
import type { LockfileRefresh } from './recipe-types.js';

/**
 * For each changed manifest, the lockfiles of its ecosystem in its directory or the nearest
 * ancestor that has one (npm, pnpm and Cargo workspaces lock at their root). A Go module's
 * go.sum always sits beside its own go.mod, so a nested module is refreshed in its directory.
 */
export function lockfilesFor(changedPaths: string[], workspace: Workspace, pkg: string): LockfileRefresh[] {
  const all = new Set(workspace.paths());
  const out = new Map<string, LockfileRefresh>();
  for (const path of changedPaths) {
    const kind = manifestKindFor(path);
    const names = kind ? lockfilesForManifest(kind) : [];
    if (names.length === 0) continue;
    for (let dir: string | undefined = dirname(path); dir !== undefined; dir = dir === '' ? undefined : dirname(dir)) {
      const here = names.map((name) => (dir ? `${dir}/${name}` : name));
      const found = kind === 'go.mod' ? here : here.filter((p) => all.has(p));
      if (!found.length) continue;
      for (const lockfile of found) {
        const command = lockfileRefreshCommand(lockfile, pkg)!;
        out.set(lockfile, { lockfile, command: dir ? `${command} (in ${dir})` : command });
      }
      break;
    }
  }
  return [...out.values()].sort((a, b) => (a.lockfile < b.lockfile ? -1 : 1));
}
