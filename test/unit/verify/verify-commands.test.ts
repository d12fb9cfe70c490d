import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { shellLine, verifyCommands, verifyLimits } from '../../../src/core/pipeline/verify-commands.js';
import { pnpmWorkspaceRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

const policyOf = (text: string) => parsePolicy({ text });

async function pnpmMap() {
  const repo = await createMemoryRepo(pnpmWorkspaceRepo());
  return buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'demo', rules: pathRulesFor({}), policyDigest: 'p1' });
}

describe('which commands verification runs', () => {
  it("the policy's setup, then its agent.build.commands, each a test or a build by what it names", async () => {
    const policy = policyOf('version: 1\nagent:\n  build:\n    commands: ["npm run build", "npm test"]\n  verify:\n    runner: local\n    setup: ["npm ci"]\n');
    expect(verifyCommands(policy, await pnpmMap(), ['packages/core/src/math.ts'])).toEqual([
      { run: 'npm ci', cwd: '.', kind: 'setup', source: 'agent.verify.setup' },
      { run: 'npm run build', cwd: '.', kind: 'build', source: 'agent.build.commands' },
      { run: 'npm test', cwd: '.', kind: 'test', source: 'agent.build.commands' },
    ]);
  });

  it("without agent.build.commands: the map's build and test commands, the touched module first", async () => {
    const commands = verifyCommands(policyOf('version: 1\n'), await pnpmMap(), ['packages/web/src/server.ts']);
    expect(commands[0].source).toMatch(/^repository map: module .*web.* \(pnpm\), touched by the change$/);
    expect(commands.slice(0, 2).map((c) => c.kind)).toEqual(['build', 'test']);
    expect(commands.slice(0, 2).map((c) => c.run)).toEqual(['pnpm --filter @acme/web run build', 'pnpm --filter @acme/web run test']);
    // The other modules follow (the budget may leave them unrun), each command once.
    expect(commands.length).toBeGreaterThan(2);
    expect(commands.slice(2).every((c) => !c.source.includes('touched'))).toBe(true);
    expect(new Set(commands.map((c) => `${c.cwd} ${c.run}`)).size).toBe(commands.length);
  });

  it('quotes argv words for the shell, and takes its limits from the policy', () => {
    expect(shellLine(['python', '-m', 'pytest', '-q', 'tests/test a.py', "it's"])).toBe(`python -m pytest -q 'tests/test a.py' 'it'\\''s'`);
    expect(
      verifyLimits(policyOf('version: 1\nagent:\n  verify:\n    timeoutSeconds: 30\n    budgetSeconds: 90\n    memoryMb: 2048\n    network: true\n')),
    ).toEqual({
      commandTimeoutMs: 30_000,
      budgetMs: 90_000,
      maxOutputBytes: 4 * 1024 * 1024,
      memoryMb: 2048,
      network: true,
    });
  });
});

describe('symlinks in the sandbox checkout', () => {
  it('keeps a symlink only when it stays inside however it resolves', async () => {
    const { symlinkStaysInside } = await import('../../../src/app/local/sandbox-verifier.js');
    expect(symlinkStaysInside('docs/readme', '../README.md')).toBe(true);
    expect(symlinkStaysInside('a/b/c', '../../lib/x')).toBe(true);
    expect(symlinkStaysInside('readme', '../README.md')).toBe(false);
    expect(symlinkStaysInside('a/b', '/etc/passwd')).toBe(false);
    expect(symlinkStaysInside('a/b', 'up/../..')).toBe(false);
    expect(symlinkStaysInside('a/b', 'x/../y')).toBe(false);
    expect(symlinkStaysInside('link', '.')).toBe(true);
  });
});
