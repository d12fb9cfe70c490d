import type { PhaseContext } from '../phases/orchestrator.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Segment } from './phases/planning-phase.js';
import type { PipelineEnv } from './pipeline-env.js';

export interface SegmentPromptInput {
  env: PipelineEnv;
  context: PhaseContext;
  task: TaskContract;
  segment: Segment;
}

/** What a model segment is told before its first tool call: the system prompt and the repository context. */
export function segmentPrompt({ segment }: SegmentPromptInput): { system: string; context: string } {
  const allowed = [...new Set(segment.paths)];
  return {
    system: `You are draftsman, making one bounded change in a repository. Only these files may change: ${allowed.join(', ') || '(none)'}. Keep the change minimal.`,
    context: `Files you may change:\n${allowed.join('\n')}`,
  };
}
