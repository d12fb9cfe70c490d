import type { PhaseHandler } from '../../phases/orchestrator.js';
import { TaskError } from '../../task/task-error.js';
import { followUpWork, taskWithFollowUp } from '../../runs/follow-up-task.js';
import { taskFromSnapshot } from '../../runs/snapshot-task.js';
import { inferredOf } from '../inferred-steps.js';
import { TaskContract } from '../../task/task-contract.js';
import type { PipelineEnv } from '../pipeline-env.js';

/** The task as the request states it (validated, since it comes from a checkpoint): what the publisher recomputes risk from. */
export function requestedTaskOf(outputs: Readonly<Record<string, unknown>>): TaskContract {
  return TaskContract.parse(outputs.intake);
}

/**
 * The task the run carries out: the request's, with the steps read from its words and grounded
 * by discovery when it had none and the policy runs them (`agent.inferSteps: run`).
 */
export function taskOf(outputs: Readonly<Record<string, unknown>>): TaskContract {
  const task = requestedTaskOf(outputs);
  const inferred = inferredOf(outputs);
  if (task.steps.length > 0 || inferred?.mode !== 'run' || inferred.steps.length === 0) return task;
  return { ...task, steps: inferred.steps, kind: 'specific' };
}

/** Intake: the request snapshot becomes a TaskContract; the mode must be one the policy allows. */
export function intakePhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'intake',
    async run(context) {
      await context.runtime.use('task_parse');
      const { request } = env;
      let task: TaskContract;
      try {
        task = taskFromSnapshot(request, env.policy.triggers.commandPrefix);
      } catch (error) {
        if (!(error instanceof TaskError)) throw error;
        return {
          output: null,
          summary: `the task block is invalid: ${error.message}\n${error.format()}`,
          stop: { state: 'FAILED', reason: error.reason, details: { problems: error.data.problems } },
        };
      }
      // The CLI's `--paths` is the task's scope when the task block names none (and narrows it otherwise, see policyViews).
      if (request.paths && request.paths.length > 0 && !(task.paths && task.paths.length > 0)) task = { ...task, paths: [...request.paths] };
      if (env.followUp) {
        const f = env.followUp;
        const work = followUpWork(f, env.model !== undefined, task.title);
        task = taskWithFollowUp(task, f, env.model !== undefined);
        await context.ledger.append({
          actor: 'orchestrator',
          phase: 'intake',
          type: 'FOLLOW_UP',
          payload: {
            kind: f.kind,
            sender: f.sender,
            source: f.source,
            onto: f.onto,
            instructions: f.instructions,
            reviewComments: f.reviewComments.length,
            ciFailures: f.ciFailures?.failures.map((x) => x.name) ?? [],
            work,
          },
        });
        // Free text needs a model to follow it; the publisher tells the PR how to ask with steps instead.
        if (work === 'needs-model') {
          return {
            output: task,
            summary: 'the revision asks in free text and no model is configured: nothing can follow it',
            stop: { state: 'FAILED', reason: 'REVISION_NEEDS_MODEL' },
          };
        }
      }
      // The kill switch: the App ignores triggers of a disabled repository; a run started another way (the CLI) ends here, before any work.
      if (!env.policy.agent.enabled) {
        return {
          output: task,
          summary: 'draftsman is disabled in this repository (agent.enabled: false in .agent-policy.yaml)',
          stop: { state: 'BLOCKED', reason: 'AGENT_DISABLED' },
        };
      }
      if (!env.policy.agent.allowedModes.includes(task.mode)) {
        return {
          output: task,
          summary: `mode ${task.mode} is not allowed by agent.allowedModes`,
          stop: { state: 'BLOCKED', reason: 'MODE_NOT_ALLOWED', details: { mode: task.mode, allowed: env.policy.agent.allowedModes } },
        };
      }
      await env.reporter?.report({
        runId: request.runId,
        attempt: env.attempt,
        status: 'RUNNING',
        phases: [],
        taskEcho: echoTask(task),
      });
      return {
        output: task,
        summary: `${task.kind} task in ${task.mode} mode with ${task.steps.length} step(s)`,
        decisions: [`mode: ${task.mode}`, `kind: ${task.kind}`],
      };
    },
  };
}

/** The parsed task, echoed back to the maintainer before work starts. */
export function echoTask(task: TaskContract): string {
  const lines = [`mode: ${task.mode}`, `kind: ${task.kind}`];
  if (task.base) lines.push(`base: ${task.base}`);
  if (task.paths) lines.push(`paths: [${task.paths.join(', ')}]`);
  if (task.steps.length > 0) {
    lines.push('steps:');
    for (const step of task.steps) lines.push(`  - ${JSON.stringify(step)}`);
  }
  const budgets = Object.entries(task.budgets).filter(([, v]) => v !== undefined);
  if (budgets.length > 0) lines.push(`budgets: {${budgets.map(([k, v]) => `${k}: ${v}`).join(', ')}}`);
  if (task.objective.trim()) lines.push(`objective: ${JSON.stringify(task.objective.trim().slice(0, 500))}`);
  return lines.join('\n');
}
