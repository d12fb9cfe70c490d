import { describe, expect, it } from 'vitest';
import { ArtifactStoreError } from '../../../src/core/artifacts/artifact-error.js';
import { Ledger, seqLabel } from '../../../src/core/phases/ledger.js';
import { RecordingArtifactStore } from '../../helpers/git-artifact-store.js';

const clock = { now: () => Date.parse('2026-02-03T04:05:06Z') };
const PREFIX = 'runs/o/r/x/attempts/1/ledger/';

describe('Ledger', () => {
  it('writes one object per entry under a zero-padded sequence, in order', async () => {
    const store = new RecordingArtifactStore();
    const ledger = await Ledger.open(store, PREFIX, clock);
    await ledger.append({ actor: 'orchestrator', phase: 'intake', type: 'PHASE_STARTED', payload: {} });
    await ledger.append({ actor: 'engine', type: 'NOTE', payload: { n: 1 }, evidenceRefs: ['k'] });
    expect(store.writes).toEqual([`${PREFIX}000000.json`, `${PREFIX}000001.json`]);
    expect(seqLabel(12)).toBe('000012');
    const second = JSON.parse(new TextDecoder().decode(store.objects.get(`${PREFIX}000001.json`)));
    expect(second).toEqual({ schemaVersion: 1, seq: 1, at: '2026-02-03T04:05:06.000Z', actor: 'engine', type: 'NOTE', payload: { n: 1 }, evidenceRefs: ['k'] });
  });

  it('a reopened ledger (a resumed worker) continues the sequence and sees earlier entries', async () => {
    const store = new RecordingArtifactStore();
    const first = await Ledger.open(store, PREFIX, clock);
    await first.append({ actor: 'a', type: 'ONE', payload: {} });
    await first.append({ actor: 'a', type: 'TWO', payload: {} });
    const resumed = await Ledger.open(store, PREFIX, clock);
    expect(resumed.entries().map((e) => e.type)).toEqual(['ONE', 'TWO']);
    expect((await resumed.append({ actor: 'a', type: 'THREE', payload: {} })).seq).toBe(2);
  });

  it('never overwrites: a stale writer skips to the next free sequence number', async () => {
    const store = new RecordingArtifactStore();
    const a = await Ledger.open(store, PREFIX, clock);
    const b = await Ledger.open(store, PREFIX, clock);
    await a.append({ actor: 'a', type: 'FROM_A', payload: {} });
    const fromB = await b.append({ actor: 'b', type: 'FROM_B', payload: {} });
    expect(fromB.seq).toBe(1);
    const reread = await Ledger.open(store, PREFIX, clock);
    expect(reread.entries().map((e) => [e.seq, e.type])).toEqual([
      [0, 'FROM_A'],
      [1, 'FROM_B'],
    ]);
  });

  it('refuses an entry that does not validate, on write and on read', async () => {
    const store = new RecordingArtifactStore();
    const ledger = await Ledger.open(store, PREFIX, clock);
    await expect(ledger.append({ actor: '', type: 'X', payload: {} })).rejects.toThrow();
    await expect(ledger.append({ actor: 'a', phase: 'nope' as never, type: 'X', payload: {} })).rejects.toThrow();
    // A refused entry takes no number: the sequence stays gap-free.
    expect((await ledger.append({ actor: 'a', type: 'OK', payload: {} })).seq).toBe(0);
    await store.delete(`${PREFIX}000000.json`);
    await store.put(`${PREFIX}000000.json`, '{"schemaVersion":1,"seq":0}');
    await expect(Ledger.open(store, PREFIX, clock)).rejects.toThrow();
  });

  it('a write that fails takes no number: the next append gets it, and the sequence stays gap-free', async () => {
    const store = new RecordingArtifactStore();
    const ledger = await Ledger.open(store, PREFIX, clock);
    await ledger.append({ actor: 'a', type: 'ONE', payload: {} });
    const putIfAbsent = store.putIfAbsent.bind(store);
    store.putIfAbsent = async () => {
      throw new ArtifactStoreError('STORE_UNAVAILABLE', 'S3 putIfAbsent still failing after 5 attempts', {});
    };
    await expect(ledger.append({ actor: 'a', type: 'LOST', payload: {} })).rejects.toThrow(ArtifactStoreError);
    store.putIfAbsent = putIfAbsent;
    expect((await ledger.append({ actor: 'a', type: 'TWO', payload: {} })).seq).toBe(1);
    const reread = await Ledger.open(store, PREFIX, clock);
    expect(reread.entries().map((e) => [e.seq, e.type])).toEqual([
      [0, 'ONE'],
      [1, 'TWO'],
    ]);
  });
});
