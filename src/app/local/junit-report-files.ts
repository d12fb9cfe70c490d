import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isJUnitReportPath, JUNIT_LIMITS, JUNIT_SKIPPED_DIRS } from '../../core/verify/junit-reports.js';

/**
 * The JUnit report files in the checkout (`isJUnitReportPath`) and their modification times,
 * within `JUNIT_LIMITS.maxEntries` entries visited. Symbolic links are neither followed nor
 * listed: a report is read from the checkout only, whatever the project put there.
 */
export async function reportFiles(src: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const queue: string[] = [''];
  let visited = 0;
  while (queue.length > 0 && visited < JUNIT_LIMITS.maxEntries) {
    const dir = queue.shift()!;
    const entries = await readdir(join(src, dir), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++visited > JUNIT_LIMITS.maxEntries) break;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !JUNIT_SKIPPED_DIRS.has(entry.name)) queue.push(path);
      else if (entry.isFile() && isJUnitReportPath(path)) {
        const info = await lstat(join(src, path)).catch(() => undefined);
        if (info?.isFile()) found.set(path, info.mtimeMs);
      }
    }
  }
  return found;
}

/** The reports a command wrote: files not there before it ran, or changed since; the newest first, within `JUNIT_LIMITS`. */
export async function collectReports(src: string, before: Map<string, number>): Promise<{ path: string; text: string }[]> {
  const written = [...(await reportFiles(src))].filter(([path, mtime]) => before.get(path) !== mtime);
  written.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const reports: { path: string; text: string }[] = [];
  for (const [path] of written.slice(0, JUNIT_LIMITS.maxFiles)) {
    const text = await readBounded(join(src, path), JUNIT_LIMITS.maxBytes);
    if (text !== undefined) reports.push({ path, text });
  }
  return reports;
}

/** At most `max` bytes of a regular file, opened without following a symbolic link. */
async function readBounded(file: string, max: number): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
