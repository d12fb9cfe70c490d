import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../src/app/logger.js';
import type { ScheduleFire } from '../../../src/app/schedules/schedule-backend.js';
import { InProcessScheduler, type SchedulerTimers } from '../../../src/app/serve/in-process-scheduler.js';
import { MapStore } from '../../helpers/map-store.js';

/** A fixed clock and timers that run only when the test moves the clock past them. */
function fakeTime(start: string) {
  let now = Date.parse(start);
  let pending: { at: number; fn: () => void; id: number }[] = [];
  let ids = 0;
  const timers: SchedulerTimers = {
    set(ms, fn) {
      const id = ++ids;
      pending.push({ at: now + ms, fn, id });
      return id;
    },
    clear(handle) {
      pending = pending.filter((t) => t.id !== handle);
    },
  };
  return {
    clock: { now: () => now },
    timers,
    pendingCount: () => pending.length,
    /** Move the clock to `to`, running each timer due on the way at its own time. */
    advanceTo(to: string) {
      const end = Date.parse(to);
      for (;;) {
        const next = pending.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        pending = pending.filter((t) => t !== next);
        now = Math.max(now, next.at);
        next.fn();
      }
      now = end;
    },
  };
}

const fire = (schedule: string, cron: string): ScheduleFire => ({ installationId: 7, repositoryId: 42, owner: 'acme', repo: 'orders', schedule, cron });

describe('serve’s in-process scheduler (croner, UTC, injected clock)', () => {
  it('fires each schedule at its cron times in UTC, once per due time, with the due time as scheduledTime', async () => {
    const time = fakeTime('2026-02-02T05:59:30Z'); // a Monday
    const fired: ScheduleFire[] = [];
    const scheduler = new InProcessScheduler({ clock: time.clock, timers: time.timers, logger: new CapturingLogger(), onFire: (f) => void fired.push(f) });
    expect(await scheduler.put('i7-r42-weekly', fire('weekly', '0 6 * * 1'))).toBe('created');
    expect(await scheduler.put('i7-r42-nightly', fire('nightly', '30 2 * * *'))).toBe('created');
    expect(new Date(scheduler.dueTimes().get('i7-r42-weekly')!).toISOString()).toBe('2026-02-02T06:00:00.000Z');
    time.advanceTo('2026-02-10T00:00:00Z');
    expect(fired.map((f) => `${f.schedule}@${f.scheduledTime}`)).toEqual([
      'weekly@2026-02-02T06:00:00.000Z',
      'nightly@2026-02-03T02:30:00.000Z',
      'nightly@2026-02-04T02:30:00.000Z',
      'nightly@2026-02-05T02:30:00.000Z',
      'nightly@2026-02-06T02:30:00.000Z',
      'nightly@2026-02-07T02:30:00.000Z',
      'nightly@2026-02-08T02:30:00.000Z',
      'nightly@2026-02-09T02:30:00.000Z',
      'weekly@2026-02-09T06:00:00.000Z',
    ]);
  });

  it('a changed schedule moves to its new time, a removed one never fires again', async () => {
    const time = fakeTime('2026-02-02T00:00:00Z');
    const fired: string[] = [];
    const scheduler = new InProcessScheduler({
      clock: time.clock,
      timers: time.timers,
      logger: new CapturingLogger(),
      onFire: (f) => void fired.push(`${f.schedule}@${f.scheduledTime}`),
    });
    await scheduler.put('i7-r42-a', fire('a', '0 6 * * *'));
    await scheduler.put('i7-r42-b', fire('b', '0 7 * * *'));
    expect(await scheduler.put('i7-r42-a', fire('a', '0 9 * * *'))).toBe('updated');
    await scheduler.remove('i7-r42-b');
    expect(await scheduler.list('i7-r42-')).toEqual(['i7-r42-a']);
    // One timer left: the changed schedule's old one and the removed schedule's are cleared.
    expect(time.pendingCount()).toBe(1);
    time.advanceTo('2026-02-02T23:00:00Z');
    expect(fired).toEqual(['a@2026-02-02T09:00:00.000Z']);
    expect(time.pendingCount()).toBe(1);
  });

  it('a yearly schedule beyond one timer’s reach waits in steps and fires at its time; the store brings it back after a restart', async () => {
    const time = fakeTime('2026-02-02T00:00:00Z');
    const store = new MapStore();
    const fired: string[] = [];
    const first = new InProcessScheduler({ clock: time.clock, timers: time.timers, logger: new CapturingLogger(), store, onFire: () => undefined });
    await first.put('i7-r42-yearly', fire('yearly', '0 0 1 1 *'));
    first.stop();
    const second = new InProcessScheduler({
      clock: time.clock,
      timers: time.timers,
      logger: new CapturingLogger(),
      store,
      onFire: (f) => void fired.push(`${f.schedule}@${f.scheduledTime}`),
    });
    expect(await second.load()).toBe(1);
    time.advanceTo('2026-12-31T23:59:00Z');
    expect(fired).toEqual([]);
    time.advanceTo('2027-01-01T00:00:00Z');
    expect(fired).toEqual(['yearly@2027-01-01T00:00:00.000Z']);
  });
});
