import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { describeCommand, describeFailure } from '../../verify/command-result.js';
import { runProjectChecks } from '../project-checks.js';
import type { SegmentToolsInput } from './tool-context.js';

/** Calls of the checks tool one segment may make: each runs the project's commands in the sandbox. */
export const MAX_CHECK_CALLS = 3;

/**
 * `verify_commands`: the project's own build and test commands on the change so far, in the
 * sandbox verification uses (agent.verify), with each command's result, its parsed failures and
 * the end of its output (scrubbed). Offered only where the policy runs the commands and a runner
 * exists; bounded per segment.
 */
export function checkTools({ env, context }: SegmentToolsInput): LlmTool<any>[] {
  if (env.policy.agent.verify.runner === 'none' || !env.verifier) return [];
  let calls = 0;
  return [
    defineLlmTool({
      name: 'verify_commands',
      description: `Run the project's build and test commands on the change so far, as verification will, and see what fails (at most ${MAX_CHECK_CALLS} calls).`,
      args: z.object({}),
      run: async () => {
        if (calls >= MAX_CHECK_CALLS) return `No more runs in this segment (${MAX_CHECK_CALLS} used): fix what the last run showed.`;
        calls += 1;
        const checks = await runProjectChecks(env, context);
        if (checks.commands.length === 0) return `Nothing ran: ${checks.notRun.map((n) => `${n.name}: ${n.why}`).join('; ')}`;
        return checks.commands
          .map((c) =>
            [
              `$ ${describeCommand(c)}`,
              ...c.failures.slice(0, 10).map((f) => `  failure: ${describeFailure(f)}`),
              ...(c.status === 'PASSED' || !c.excerpt ? [] : [c.excerpt]),
            ].join('\n'),
          )
          .join('\n\n');
      },
    }),
  ];
}
