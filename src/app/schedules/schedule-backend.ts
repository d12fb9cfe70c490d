import { z } from 'zod';

/**
 * What a schedule carries to the function it fires (its target's input): the repository by
 * installation, id and name, the policy entry's name and cron. The fire function reads the
 * policy again and starts nothing for an entry that is gone; `scheduledTime` is the time the
 * schedule was due (EventBridge Scheduler fills it in), so a repeated delivery is the same run.
 */
export const ScheduleFire = z.strictObject({
  installationId: z.number().int().positive(),
  repositoryId: z.number().int().positive(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  schedule: z.string().min(1),
  cron: z.string().min(1),
  scheduledTime: z.string().optional(),
});
export type ScheduleFire = z.infer<typeof ScheduleFire>;

/**
 * Where the schedules live: Amazon EventBridge Scheduler in the deployed App
 * (eventbridge-schedules.ts), an in-process scheduler in `serve` (src/app/serve/in-process-scheduler.ts).
 * Names are unique in the backend; `put` creates or replaces.
 */
export interface ScheduleBackend {
  /** Names of the schedules starting with `prefix`. */
  list(prefix: string): Promise<string[]>;
  /** What schedule `name` fires with, or undefined when there is no such schedule. */
  get(name: string): Promise<ScheduleFire | undefined>;
  /** Create schedule `name` (or replace it when it exists). */
  put(name: string, fire: ScheduleFire): Promise<'created' | 'updated'>;
  /** Delete schedule `name`; one that is gone already is fine. */
  remove(name: string): Promise<void>;
}

/** `i<installation>-r<repository>-`: every schedule of one repository, and nothing of another (the dash ends each number). */
export function repositoryPrefix(installationId: number, repositoryId: number): string {
  return `${installationPrefix(installationId)}r${repositoryId}-`;
}

export function installationPrefix(installationId: number): string {
  return `i${installationId}-`;
}

/** The schedule's name: the same installation, repository and entry always give the same name (at most 64 characters). */
export function scheduleName(installationId: number, repositoryId: number, entry: string): string {
  return `${repositoryPrefix(installationId, repositoryId)}${entry}`;
}
