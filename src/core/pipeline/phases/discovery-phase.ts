import { maxEditableBytes } from '../../policy/agent-policy.js';
import { z } from 'zod';
import { writeArtifact } from '../../artifacts/artifact-io.js';
import type { PhaseHandler } from '../../phases/orchestrator.js';
import { policyDigest } from '../../policy/policy-digest.js';
import { ownersFor } from '../../repomap/codeowners.js';
import { buildRepoMap } from '../../repomap/build-repo-map.js';
import { FileContents } from '../../repomap/file-contents.js';
import { loadOrBuildRepoMap } from '../../repomap/repo-map-cache.js';
import { REPO_MAP_SCANNER_VERSION, RepoMap } from '../../repomap/repo-map-schema.js';
import { SymbolIndex } from '../../repomap/symbol-index.js';
import { selectTargets } from '../../targets/select-targets.js';
import { TargetSelection } from '../../targets/target-selection-schema.js';
import { groundProse } from '../ground-prose.js';
import { InferredSteps } from '../inferred-steps.js';
import { editablePaths, viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { taskOf } from './intake-phase.js';

export const DiscoveryOutput = z.object({
  mapKey: z.string(),
  mapCacheHit: z.boolean(),
  targets: z.array(z.object({ path: z.string(), rank: z.number(), classification: z.string(), allowedToEdit: z.boolean(), reasons: z.array(z.string()) })),
  excluded: z.number().int(),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  strategy: z.string(),
  /** Reviewers from CODEOWNERS for the targets (last match wins). */
  owners: z.array(z.string()),
  modules: z.array(z.object({ path: z.string(), name: z.string(), buildSystem: z.string().optional() })),
  /** Steps read from the words when it has no task block, each grounded against the map (`agent.inferSteps`). */
  inferred: InferredSteps.optional(),
});
export type DiscoveryOutput = z.infer<typeof DiscoveryOutput>;

/** Discovery reports its files read on the progress line every this many files. */
export const FILES_READ_PROGRESS_EVERY = 250;

export function discoveryOf(outputs: Readonly<Record<string, unknown>>): DiscoveryOutput {
  return DiscoveryOutput.parse(outputs.discovery);
}

/**
 * Discovery: the repository map (cached by commit, scanner version and policy digest; never by
 * branch) and the traceable target selection. Both are stored as artifacts; nothing is edited.
 */
export function discoveryPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'discovery',
    async run(context) {
      const task = taskOf(context.outputs);
      const views = viewsFor(env, task);
      const workspace = context.workspace;
      // Reading files is what takes long on a large repository: the count goes to the progress line.
      const contents = new FileContents(workspace, maxEditableBytes(env.policy), (n) => {
        if (n % FILES_READ_PROGRESS_EVERY === 0) env.reporter?.progress?.(`files read: ${n.toLocaleString('en-US')}`);
      });
      await context.runtime.use('repo_map_query');
      const digest = policyDigest(env.policy);
      const { map, cacheHit, key } = await loadOrBuildRepoMap({
        store: env.store,
        key: { owner: env.owner, repo: env.repo, commit: workspace.baseCommitSha, scannerVersion: REPO_MAP_SCANNER_VERSION, policyDigest: digest },
        build: () => buildRepoMap({ workspace, owner: env.owner, repo: env.repo, rules: views.rules, policyDigest: digest, contents }),
      });
      const attemptKeys = env.keys.attempt(env.attempt);
      await writeArtifact(env.store, attemptKeys.repoMap, RepoMap, map);
      await context.runtime.use('code_search');
      // A follow-up with a model is the model's (followUpWork): the words are not read into recipe steps again.
      const inferred =
        task.steps.length === 0 && task.mode !== 'analysis' && env.policy.agent.inferSteps !== 'off' && !(env.followUp && env.model)
          ? await groundProse(
              { title: task.title, body: task.objective },
              {
                map,
                editable: editablePaths(workspace, views.rules),
                read: (path) => contents.text(path),
                isLockfile: views.rules.isLockfile,
                syntax: env.syntax,
              },
              { mode: env.policy.agent.inferSteps === 'run' ? 'run' : 'suggest' },
            )
          : undefined;
      const selection = await selectTargets({
        workspace,
        // The manifest lines and files the grounded steps change are the targets, ranked first.
        task: inferred && inferred.steps.length > 0 ? { ...task, steps: inferred.steps, kind: 'specific' } : task,
        map,
        rules: views.rules,
        contents,
        syntax: env.syntax,
        symbols: new SymbolIndex(env.syntax, contents),
      });
      await writeArtifact(env.store, attemptKeys.targetSelection, TargetSelection, selection);
      const owners = reviewersFor(
        map,
        selection.selectedFiles.filter((f) => f.allowedToEdit).map((f) => f.path),
      );
      const output: DiscoveryOutput = {
        mapKey: key,
        mapCacheHit: cacheHit,
        targets: selection.selectedFiles.map((f) => ({
          path: f.path,
          rank: f.rank,
          classification: f.classification,
          allowedToEdit: f.allowedToEdit,
          reasons: f.reasons,
        })),
        excluded: selection.excludedFiles.length,
        warnings: [
          ...selection.warnings.map((w) => ({ code: w.code, message: w.message })),
          // A reviewer should know what draftsman did not look inside.
          ...map.filesystem.submodules.map((path) => ({ code: 'SUBMODULE_OPAQUE', message: `submodule ${path} kept as it is: never fetched, read or edited` })),
        ],
        strategy: selection.strategy,
        owners,
        modules: map.modules.map((m) => ({ path: m.path, name: m.name ?? m.path, buildSystem: m.buildSystem })),
        ...(inferred ? { inferred } : {}),
      };
      const evidenceRefs = [attemptKeys.repoMap, attemptKeys.targetSelection];
      const forbidden = selection.warnings.find((w) => w.code === 'FORBIDDEN_PATH_IN_SCOPE');
      if (forbidden) {
        return {
          output,
          summary: forbidden.message,
          evidenceRefs,
          stop: { state: 'BLOCKED', reason: 'FORBIDDEN_PATH_IN_SCOPE', details: { message: forbidden.message } },
        };
      }
      if (selection.status === 'FAILED') {
        return {
          output,
          summary: selection.reason ?? 'target selection failed',
          evidenceRefs,
          stop: { state: 'FAILED', reason: 'TARGET_SELECTION_EMPTY', details: { reason: selection.reason } },
        };
      }
      return {
        output,
        summary: `${selection.selectedFiles.length} target(s) selected (${selection.strategy}); map ${cacheHit ? 'from cache' : 'built'}`,
        evidenceRefs,
        risks: selection.warnings.map((w) => `${w.code}: ${w.message}`),
      };
    },
  };
}

/** CODEOWNERS owners of the given paths, GitHub's last-match-wins rule, as reviewer logins. */
export function reviewersFor(map: Pick<RepoMap, 'ownership'>, paths: readonly string[]): string[] {
  const owners = new Set<string>();
  for (const path of paths) for (const owner of ownersFor(map.ownership?.rules ?? [], path).owners) owners.add(owner.replace(/^@/, ''));
  return [...owners].sort();
}
