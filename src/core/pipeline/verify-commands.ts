import type { AgentPolicy } from '../policy/agent-policy.js';
import type { Command, RepoMap } from '../repomap/repo-map-schema.js';
import type { VerifyCommand, VerifyLimits } from '../verify/verifier.js';

/**
 * Which commands verification runs: the policy's setup commands first, then the policy's
 * `agent.build.commands`, or, where it lists none, the commands the repository map inferred
 * (build, then unit tests) for the modules the change touches first and the other modules after,
 * which the time budget may leave unrun.
 */

const SAFE_WORD = /^[\w@%+=:,./-]+$/;

/** An argv as one shell line, each word quoted unless it is plain. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((word) => (SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/** A policy command is a test run when it names one (`npm test`, `pytest`, `go test`, `mvn verify`, `gradle check`). */
function kindOfPolicyCommand(line: string): VerifyCommand['kind'] {
  return /\b(test|tests|pytest|unittest|verify|check|jest|vitest|mocha)\b/.test(line) ? 'test' : 'build';
}

/** The module a path belongs to: the deepest module whose directory holds it. */
export function moduleOf(map: RepoMap, path: string): string | undefined {
  let best: { id: string; depth: number } | undefined;
  for (const mod of map.modules) {
    const inside = mod.path === '.' || path === mod.path || path.startsWith(`${mod.path}/`);
    const depth = mod.path === '.' ? 0 : mod.path.split('/').length;
    if (inside && (!best || depth > best.depth)) best = { id: mod.id, depth };
  }
  return best?.id;
}

function fromMap(map: RepoMap, changed: readonly string[]): VerifyCommand[] {
  const touched = new Set(changed.map((p) => moduleOf(map, p)).filter((id): id is string => id !== undefined));
  const profiles = [...map.build].sort((a, b) => Number(touched.has(b.moduleId)) - Number(touched.has(a.moduleId)));
  const out: VerifyCommand[] = [];
  const seen = new Set<string>();
  const add = (command: Command | undefined, kind: VerifyCommand['kind'], source: string) => {
    if (!command) return;
    const run = shellLine(command.argv);
    const key = `${command.cwd}\0${run}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ run, cwd: command.cwd, kind, source });
  };
  for (const profile of profiles) {
    const source = `repository map: module ${profile.moduleId} (${profile.buildSystem})${touched.has(profile.moduleId) ? ', touched by the change' : ''}`;
    add(profile.compile, 'build', source);
    add(profile.unitTest, 'test', source);
  }
  return out;
}

export function verifyCommands(policy: AgentPolicy, map: RepoMap | undefined, changed: readonly string[]): VerifyCommand[] {
  const setup = policy.agent.verify.setup.map((run) => ({ run, cwd: '.', kind: 'setup' as const, source: 'agent.verify.setup' }));
  const declared = policy.agent.build.commands.map((run) => ({ run, cwd: '.', kind: kindOfPolicyCommand(run), source: 'agent.build.commands' }));
  return [...setup, ...(declared.length > 0 ? declared : map ? fromMap(map, changed) : [])];
}

/** The runner's limits from the policy. */
export function verifyLimits(policy: AgentPolicy): VerifyLimits {
  const v = policy.agent.verify;
  return {
    commandTimeoutMs: v.timeoutSeconds * 1000,
    budgetMs: v.budgetSeconds * 1000,
    maxOutputBytes: v.maxOutputBytes,
    ...(v.memoryMb ? { memoryMb: v.memoryMb } : {}),
    network: v.network,
  };
}
