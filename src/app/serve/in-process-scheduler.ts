import { Cron } from 'croner';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import { readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { ScheduleFire, type ScheduleBackend } from '../schedules/schedule-backend.js';

/** Timers, injected so a test drives them with its own clock. */
export interface SchedulerTimers {
  set(ms: number, fn: () => void): unknown;
  clear(handle: unknown): void;
}

export const NODE_TIMERS: SchedulerTimers = {
  set: (ms, fn) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Node's timers hold at most about 24.8 days; a later run is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface InProcessSchedulerOptions {
  clock: Clock;
  logger: Logger;
  /** Called when a schedule is due, with the time it was due as `scheduledTime`. */
  onFire: (fire: ScheduleFire) => void;
  timers?: SchedulerTimers;
  /** Where the schedules are kept across restarts (`schedules/<name>.json`); absent, in memory only. */
  store?: ArtifactStore;
}

const keyOf = (name: string) => `schedules/${name}.json`;

/**
 * `serve`'s scheduler: the same backend contract as EventBridge Scheduler, with croner (the
 * library that validates `agent.schedules`) computing each next run in UTC from the injected
 * clock. One timer per schedule; a schedule fires once per due time, then is armed for the next.
 * With a store, the schedules outlive a restart (`load`).
 */
export class InProcessScheduler implements ScheduleBackend {
  private readonly jobs = new Map<string, { fire: ScheduleFire; due: number; handle: unknown }>();
  private readonly timers: SchedulerTimers;

  constructor(private readonly options: InProcessSchedulerOptions) {
    this.timers = options.timers ?? NODE_TIMERS;
  }

  /** Arm every schedule the store keeps (after a restart). */
  async load(): Promise<number> {
    const store = this.options.store;
    if (!store) return 0;
    let n = 0;
    for (const key of await store.list('schedules/')) {
      const fire = await readArtifactIfPresent(store, key, ScheduleFire);
      if (!fire) continue;
      this.arm(key.slice('schedules/'.length, -'.json'.length), fire, this.options.clock.now());
      n++;
    }
    return n;
  }

  list(prefix: string): Promise<string[]> {
    return Promise.resolve([...this.jobs.keys()].filter((name) => name.startsWith(prefix)).sort());
  }

  get(name: string): Promise<ScheduleFire | undefined> {
    return Promise.resolve(this.jobs.get(name)?.fire);
  }

  async put(name: string, fire: ScheduleFire): Promise<'created' | 'updated'> {
    const existed = this.jobs.has(name);
    if (this.options.store) await writeArtifact(this.options.store, keyOf(name), ScheduleFire, fire);
    this.arm(name, fire, this.options.clock.now());
    return existed ? 'updated' : 'created';
  }

  async remove(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (job) this.timers.clear(job.handle);
    this.jobs.delete(name);
    if (this.options.store) await this.options.store.delete(keyOf(name));
  }

  /** The next due time of every schedule (epoch ms), by name. */
  dueTimes(): Map<string, number> {
    return new Map([...this.jobs].map(([name, job]) => [name, job.due]));
  }

  stop(): void {
    for (const job of this.jobs.values()) this.timers.clear(job.handle);
    this.jobs.clear();
  }

  /** Arm `name` for its first run strictly after `after`. */
  private arm(name: string, fire: ScheduleFire, after: number): void {
    const previous = this.jobs.get(name);
    if (previous) this.timers.clear(previous.handle);
    const next = new Cron(fire.cron, { timezone: 'UTC', mode: '5-part', paused: true }).nextRun(new Date(after));
    if (!next) {
      this.jobs.delete(name);
      return;
    }
    const due = next.getTime();
    this.wait(name, fire, due);
  }

  private wait(name: string, fire: ScheduleFire, due: number): void {
    const ms = Math.min(Math.max(0, due - this.options.clock.now()), MAX_TIMER_MS);
    const handle = this.timers.set(ms, () => this.wake(name, fire, due));
    this.jobs.set(name, { fire, due, handle });
  }

  private wake(name: string, fire: ScheduleFire, due: number): void {
    if (this.jobs.get(name)?.due !== due) return;
    if (this.options.clock.now() < due) return this.wait(name, fire, due);
    this.options.logger.info('schedule due', { schedule: name, due: new Date(due).toISOString() });
    try {
      this.options.onFire({ ...fire, scheduledTime: new Date(due).toISOString() });
    } finally {
      this.arm(name, fire, Math.max(due, this.options.clock.now()));
    }
  }
}
