import { describe, expect, it } from 'vitest';
import { describeSpendRefusal, readSpend, reserveSpend, RESERVATION_TTL_MS, settleSpend, type SpendAccount } from '../../../src/core/budget/spend.js';
import { MapStore } from '../../helpers/map-store.js';

const NOW = Date.parse('2026-12-06T07:00:00.000Z');
const task: SpendAccount = { cap: 'task', key: 'spend/runs/acme/orders/r1.json', limitMicroUsd: 100_000 };
const repo: SpendAccount = { cap: 'repository', key: 'spend/repos/acme/orders/2026-12.json', limitMicroUsd: 50_000 };

describe('spend records', () => {
  it('a refusal in a later account releases the reservations made before it; nothing stays reserved', async () => {
    const store = new MapStore();
    expect(await reserveSpend(store, [task, repo], { id: 'a', microUsd: 40_000, now: NOW })).toBeUndefined();
    const refusal = await reserveSpend(store, [task, repo], { id: 'b', microUsd: 20_000, now: NOW });
    expect(refusal).toEqual({ cap: 'repository', limitMicroUsd: 50_000, spentMicroUsd: 40_000, neededMicroUsd: 20_000 });
    expect(Object.keys((await readSpend(store, task.key)).reserved)).toEqual(['a']);
    await settleSpend(store, [task, repo], 'a', { tokensIn: 10, tokensOut: 20, costMicroUsd: 30_000 });
    expect(await readSpend(store, task.key)).toMatchObject({ calls: 1, tokensIn: 10, tokensOut: 20, costMicroUsd: 30_000, reserved: {} });
  });

  it('a reservation nobody settled within the TTL counts at its worst case, and a late settle adds nothing', async () => {
    const store = new MapStore();
    await reserveSpend(store, [task], { id: 'lost', microUsd: 70_000, now: NOW });
    const later = NOW + RESERVATION_TTL_MS + 1;
    const refusal = await reserveSpend(store, [task], { id: 'next', microUsd: 40_000, now: later });
    expect(refusal).toMatchObject({ cap: 'task', spentMicroUsd: 70_000 });
    expect(await readSpend(store, task.key)).toMatchObject({ costMicroUsd: 70_000, expired: 1, reserved: {} });
    await settleSpend(store, [task], 'lost', { tokensIn: 1, tokensOut: 1, costMicroUsd: 1_000 });
    expect(await readSpend(store, task.key)).toMatchObject({ costMicroUsd: 70_000, calls: 0 });
  });

  it('a record another writer changed since this process wrote it is read as it now is, not as it was written', async () => {
    const store = new MapStore();
    const key = 'spend/runs/acme/orders/written-elsewhere.json';
    const account: SpendAccount = { cap: 'task', key, limitMicroUsd: 100_000 };
    await reserveSpend(store, [account], { id: 'a', microUsd: 10_000, now: NOW });
    await settleSpend(store, [account], 'a', { tokensIn: 1, tokensOut: 1, costMicroUsd: 10_000 });
    // Another model-call process settles 80,000 into the same record.
    const elsewhere = { ...(await readSpend(store, key)), calls: 2, costMicroUsd: 90_000 };
    await store.put(key, `${JSON.stringify(elsewhere)}\n`);
    const refusal = await reserveSpend(store, [account], { id: 'b', microUsd: 20_000, now: NOW });
    expect(refusal).toMatchObject({ cap: 'task', spentMicroUsd: 90_000 });
  });

  it.each([
    ['task', "The task's spend cap agent.budgets.maxCostUsd = $0.2000 stopped the run: $0.1800 spent over all its attempts"],
    ['repository', "This repository's monthly spend cap agent.budgets.monthlyCostUsd = $0.2000 stopped the run: $0.1800 spent this month (UTC)"],
    ['installation', "This installation's monthly spend cap INSTALLATION_MONTHLY_COST_USD = $0.2000 stopped the run"],
  ] as const)('the %s cap is named with the spend and the setting to raise', (cap, start) => {
    const sentence = describeSpendRefusal({ cap, limitMicroUsd: 200_000, spentMicroUsd: 180_000, neededMicroUsd: 30_000 });
    expect(sentence.startsWith(start)).toBe(true);
    expect(sentence).toContain('the next model call could cost up to $0.0300');
    expect(sentence.split('. ')).toHaveLength(1);
  });
});
