import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArtifactError } from '../../../src/core/artifacts/artifact-error.js';
import {
  canonicalPrettyJson,
  putArtifactIfAbsent,
  putArtifactIfMatch,
  readArtifact,
  readArtifactIfPresent,
  readArtifactVersioned,
  writeArtifact,
} from '../../../src/core/artifacts/artifact-io.js';
import { MapStore } from '../../helpers/map-store.js';
const Run = z.object({
  schemaVersion: z.literal(1),
  status: z.enum(['RUNNING', 'COMPLETED']),
  attempts: z.number().int().positive(),
  timings: z.object({ startedAt: z.string(), phasesMs: z.record(z.string(), z.number()) }),
  notes: z.array(z.string()).optional(),
});

const value = {
  schemaVersion: 1 as const,
  status: 'RUNNING' as const,
  attempts: 1,
  timings: { startedAt: '2025-01-01T00:00:00.000Z', phasesMs: { ingest: 10, map: 5 } },
};

function reasonOf(error: unknown): string | undefined {
  return error instanceof ArtifactError ? error.reason : undefined;
}

describe('artifact I/O', () => {
  it('writes canonical pretty JSON: sorted keys, 2-space indent, trailing newline', async () => {
    const store = new MapStore();
    await writeArtifact(store, 'a.json', Run, value);
    expect(store.text('a.json')).toBe(
      '{\n  "attempts": 1,\n  "schemaVersion": 1,\n  "status": "RUNNING",\n  "timings": {\n    "phasesMs": {\n      "ingest": 10,\n      "map": 5\n    },\n    "startedAt": "2025-01-01T00:00:00.000Z"\n  }\n}\n',
    );
  });

  it('gives byte-identical artifacts (and etags) for equal values built in different key orders', async () => {
    const store = new MapStore();
    const reordered = {
      timings: { phasesMs: { map: 5, ingest: 10 }, startedAt: value.timings.startedAt },
      attempts: 1,
      status: 'RUNNING' as const,
      schemaVersion: 1 as const,
    };
    const e1 = await writeArtifact(store, 'a.json', Run, value);
    const e2 = await writeArtifact(store, 'b.json', Run, reordered);
    expect(store.text('a.json')).toBe(store.text('b.json'));
    expect(e1).toBe(e2);
  });

  it('adds nothing implicit and round-trips the value', async () => {
    const store = new MapStore();
    await writeArtifact(store, 'a.json', Run, value);
    expect(JSON.parse(store.text('a.json')!)).toEqual(value);
    expect(await readArtifact(store, 'a.json', Run)).toEqual(value);
  });

  it('refuses to write an invalid value and writes nothing', async () => {
    const store = new MapStore();
    const bad = { ...value, attempts: 0, secret: 'x' };
    const error = await writeArtifact(store, 'a.json', Run, bad).catch((e: unknown) => e);
    expect(reasonOf(error)).toBe('ARTIFACT_INVALID');
    expect((error as ArtifactError).data.key).toBe('a.json');
    expect((error as ArtifactError).data.issues).toEqual([expect.objectContaining({ path: ['attempts'], code: 'too_small' })]);
    expect(store.objects.size).toBe(0);
  });

  it('validates on read: schema failure, bad JSON and bad UTF-8 are ARTIFACT_INVALID', async () => {
    const store = new MapStore();
    await store.put('wrong.json', JSON.stringify({ ...value, status: 'EXPLODED' }));
    await store.put('notjson.json', '{"schemaVersion": 1,');
    await store.put('bytes.json', new Uint8Array([0x7b, 0xff, 0x7d]));
    for (const key of ['wrong.json', 'notjson.json', 'bytes.json']) {
      const error = await readArtifact(store, key, Run).catch((e: unknown) => e);
      expect(reasonOf(error), key).toBe('ARTIFACT_INVALID');
      expect((error as ArtifactError).data.key).toBe(key);
    }
    const error = (await readArtifact(store, 'wrong.json', Run).catch((e: unknown) => e)) as ArtifactError;
    expect(error.data.issues).toEqual([expect.objectContaining({ path: ['status'] })]);
    // the offending input is not copied into the error data
    expect(JSON.stringify(error.toJSON())).not.toContain('EXPLODED');
  });

  it('ARTIFACT_MISSING for a required artifact; undefined for an optional one', async () => {
    const store = new MapStore();
    const error = await readArtifact(store, 'none.json', Run).catch((e: unknown) => e);
    expect(reasonOf(error)).toBe('ARTIFACT_MISSING');
    expect((error as ArtifactError).data.key).toBe('none.json');
    expect(await readArtifactIfPresent(store, 'none.json', Run)).toBeUndefined();
  });

  it('putArtifactIfAbsent writes once; putArtifactIfMatch swaps only on the current etag', async () => {
    const store = new MapStore();
    expect(await putArtifactIfAbsent(store, 'r.json', Run, value)).toBe(true);
    expect(await putArtifactIfAbsent(store, 'r.json', Run, { ...value, attempts: 2 })).toBe(false);
    const read = await readArtifactVersioned(store, 'r.json', Run);
    expect(read?.value.attempts).toBe(1);
    expect(await putArtifactIfMatch(store, 'r.json', Run, { ...value, attempts: 2 }, read!.etag)).toBe(true);
    expect(await putArtifactIfMatch(store, 'r.json', Run, { ...value, attempts: 3 }, read!.etag)).toBe(false);
    expect((await readArtifact(store, 'r.json', Run)).attempts).toBe(2);
  });

  it('canonicalPrettyJson sorts nested keys inside arrays and drops undefined', () => {
    expect(canonicalPrettyJson({ b: [{ d: 1, c: undefined, a: 2 }], a: null })).toBe(
      '{\n  "a": null,\n  "b": [\n    {\n      "a": 2,\n      "d": 1\n    }\n  ]\n}\n',
    );
  });
});
