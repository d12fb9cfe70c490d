import { z } from 'zod';
import type { RunReportInput } from '../phases/run-report-schema.js';
import { RecipeStep } from '../task/recipe-steps.js';
import { TaskContract } from '../task/task-contract.js';

/** One request read from the words, and whether the repository confirmed it. */
export const InferredReading = z.object({
  /** The words it was read from (clipped). */
  text: z.string(),
  source: z.enum(['title', 'body', 'table', 'list']),
  wordingSource: z.enum(['dependabot', 'renovate', 'person']).optional(),
  /** The step as read (and, once grounded, as it runs: a package spelled as the manifests spell it). */
  step: z.record(z.string(), z.unknown()),
  grounded: z.boolean(),
  /** Why it does not run (not declared, defined twice, a downgrade…), or what grounding changed. */
  why: z.string().optional(),
  /** Files the step changes, as the recipe engine found them without writing. */
  files: z.array(z.string()).default([]),
});
export type InferredReading = z.infer<typeof InferredReading>;

/**
 * The steps read from an issue without a task block (`agent.inferSteps`), kept in the discovery
 * phase's output: `run` runs the grounded steps as if the block had named them; `suggest` only
 * offers them. `block` is the ```` ```agent ```` block of the grounded steps, which parses back to
 * the same steps.
 */
export const InferredSteps = z.object({
  mode: z.enum(['run', 'suggest']),
  steps: z.array(RecipeStep),
  block: z.string().optional(),
  readings: z.array(InferredReading),
  unread: z.array(z.object({ text: z.string(), why: z.string() })),
  /** Someone without write access wrote the words: the steps wait for a maintainer's approval. */
  outsider: z.string().optional(),
  /** Domains the grounded steps write that no file of the repository contained: the PR body's risk section names them. */
  newDomains: z.array(z.string()).default([]),
});
export type InferredSteps = z.infer<typeof InferredSteps>;

/** The inferred steps in a checkpoint's outputs (the discovery phase's), when there are any. */
export function inferredOf(outputs: Readonly<Record<string, unknown>>): InferredSteps | undefined {
  const discovery = outputs.discovery as { inferred?: unknown } | undefined;
  if (!discovery?.inferred) return undefined;
  return InferredSteps.parse(discovery.inferred);
}

/** The block of steps read from prose that this run carried out, and the requests it left, when it ran such steps (the PR body opens with them). */
export function understoodOf(outputs: Readonly<Record<string, unknown>>): Pick<RunReportInput, 'understood'> {
  const inferred = inferredOf(outputs);
  if (!inferred?.block || inferred.mode !== 'run' || !outputs.intake || TaskContract.parse(outputs.intake).steps.length > 0) return {};
  return {
    understood: {
      block: inferred.block,
      notDone: [
        ...inferred.readings.filter((r) => !r.grounded).map((r) => ({ text: r.text, why: r.why ?? 'not confirmed by the repository' })),
        ...inferred.unread,
      ],
    },
  };
}

/**
 * What grounding found, for a model that makes the change when nothing read from the words ran
 * (no step confirmed, or `agent.inferSteps: suggest`): each request as read, and what the
 * repository says about it. Empty when there is nothing to tell.
 */
export function groundedFacts(inferred: InferredSteps | undefined): string[] {
  if (!inferred || (inferred.readings.length === 0 && inferred.unread.length === 0)) return [];
  const lines = ["The issue's words were read as these requests and checked against the repository:"];
  for (const r of inferred.readings.slice(0, 20)) {
    const what = `“${r.text}” as ${JSON.stringify(r.step)}`;
    lines.push(r.grounded ? `- ${what}: confirmed; it changes ${r.files.slice(0, 5).join(', ')}` : `- ${what}: not confirmed: ${r.why ?? 'no file changes'}`);
  }
  for (const u of inferred.unread.slice(0, 10)) lines.push(`- “${u.text}”: not read: ${u.why}`);
  return lines;
}
