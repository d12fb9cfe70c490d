import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appOperations } from './app-operations.js';
import { USAGE_DIR_ENV } from './live-standins.js';

/**
 * vitest globalSetup: collects, across all test processes, which GitHub operations the stand-ins
 * answered and with which token, and prints the listing when the run ends (docs/github-api.md
 * holds the same operations, generated from the source).
 */
export function setup(): void {
  process.env[USAGE_DIR_ENV] = mkdtempSync(join(tmpdir(), 'github-usage-'));
}

export function teardown(): void {
  const dir = process.env[USAGE_DIR_ENV];
  if (!dir) return;
  const seen = new Map<string, { calls: number; tokens: Set<string> }>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)) {
      const { operationId, token } = JSON.parse(line) as { operationId: string; token: string };
      const entry = seen.get(operationId) ?? { calls: 0, tokens: new Set<string>() };
      entry.calls += 1;
      entry.tokens.add(token);
      seen.set(operationId, entry);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  if (seen.size === 0) return;
  const inSource = new Set(appOperations().map((o) => o.operationId));
  const rows = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b));
  const lines = rows.map(
    ([id, e]) => `  ${id.padEnd(44)} ${String(e.calls).padStart(6)}  ${[...e.tokens].sort().join(', ')}${inSource.has(id) ? '' : '  (tests only)'}`,
  );
  console.log(`\nGitHub operations answered by the stand-in (calls, tokens); the App's are listed in docs/github-api.md:\n${lines.join('\n')}\n`);
}
