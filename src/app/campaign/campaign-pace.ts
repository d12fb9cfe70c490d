import { paceLimits, paceWindows, secondsToNextWindow } from '../../core/campaign/pace.js';
import type { CampaignItem } from '../../core/campaign/campaign-record.js';
import type { ArtifactStore } from '../../core/ports.js';
import type { LoadedCampaign } from './campaign-state.js';

export type SlotClaim = { ok: true; slots: string[] } | { ok: false; slots: string[]; waitSeconds: number };

/**
 * A start slot for one item in this minute's and this hour's window (docs/campaigns.md,
 * "Limits"). A slot is a key written once (putIfAbsent), so two items starting at once never
 * take the same one, and a window holds at most the campaign's limit of starts whatever the
 * concurrency. Slots the item already holds (an earlier try of the same start) are kept.
 */
export async function claimStartSlot(store: ArtifactStore, campaign: LoadedCampaign, item: CampaignItem, now: number): Promise<SlotClaim> {
  const limits = paceLimits(campaign.record.spec.pace.startsPerMinute);
  const windows = paceWindows(now);
  const slots = [...item.slots];
  const claims: { window: string; size: number; kind: 'hour' | 'minute' }[] = [
    { window: windows.hour, size: limits.perHour, kind: 'hour' },
    { window: windows.minute, size: limits.perMinute, kind: 'minute' },
  ];
  for (const { window, size, kind } of claims) {
    if (slots.some((s) => s.startsWith(`${window}/`))) continue;
    const taken = await takeSlot(store, campaign, window, size, `${item.repository}`);
    if (taken === undefined) return { ok: false, slots, waitSeconds: secondsToNextWindow(now, kind) };
    slots.push(`${window}/${taken}`);
  }
  return { ok: true, slots };
}

async function takeSlot(store: ArtifactStore, campaign: LoadedCampaign, window: string, size: number, holder: string): Promise<number | undefined> {
  const held = new Set((await store.list(campaign.keys.slotPrefix(window))).map((k) => Number(k.slice(k.lastIndexOf('/') + 1))));
  for (let n = 0; n < size; n++) {
    if (held.has(n)) continue;
    if (await store.putIfAbsent(campaign.keys.slot(window, n), holder)) return n;
  }
  return undefined;
}
