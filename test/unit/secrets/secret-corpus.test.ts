import { describe, expect, it } from 'vitest';
import { redactSecrets, scanChanges, scanLines } from '../../../src/core/secrets/secret-scan.js';
import { CANARY_FILES } from '../../fixtures/secret-corpus/canaries.js';
import { hasRealCorpus, loadRealCorpus, realCommitCount } from '../../fixtures/secret-corpus/corpus.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const encoder = new TextEncoder();

// The real-commit sample is third-party text: built locally (eval/secrets/build-corpus.ts), not
// committed. Without it these two tests are skipped; the canaries below always run.
describe.runIf(hasRealCorpus())('secret scan on real commits (local sample)', () => {
  const real = hasRealCorpus() ? loadRealCorpus() : [];

  it('has a real corpus of a few hundred commits in several languages, with the files false positives came from', () => {
    expect(realCommitCount(real)).toBeGreaterThanOrEqual(300);
    expect(new Set(real.map((f) => f.repo)).size).toBeGreaterThanOrEqual(6);
    const names = new Set(real.map((f) => f.path.slice(f.path.lastIndexOf('/') + 1)));
    for (const n of ['go.sum', 'pom.xml', 'package.json', 'pnpm-lock.yaml', 'package-lock.json', 'README.md']) expect(names).toContain(n);
    expect(real.some((f) => f.lines.some((l) => /"packageManager": "pnpm@[^"]*\+sha512\./.test(l.text)))).toBe(true);
    expect(real.some((f) => f.lines.some((l) => /xsi:schemaLocation/.test(l.text)))).toBe(true);
  });

  it('finds nothing in the added lines of real commits of public repositories', () => {
    const findings = real.flatMap((f) =>
      scanLines(f.path, f.lines, defaultPathRules()).map((s) => `${f.repo}@${f.commit.slice(0, 10)} ${s.path}:${s.line} ${s.rule}`),
    );
    expect(findings).toEqual([]);
  });
});

describe('secret scan on canaries', () => {
  it.each(CANARY_FILES.map((c) => [c.id, c] as const))('finds canary %s with its rule, naming file and line, never the secret', (_id, canary) => {
    const findings = scanChanges([{ path: canary.path, newBytes: encoder.encode(canary.content) }], defaultPathRules());
    expect(findings.map((f) => f.rule).filter((r) => canary.rules.includes(r))).not.toEqual([]);
    const lines = canary.content.split('\n');
    for (const f of findings) {
      expect(f.path).toBe(canary.path);
      expect(lines[f.line - 1]).toBeDefined();
      expect(f.redactedPreview).not.toContain(canary.value);
    }
  });

  it('redacts every canary before text leaves for a model', () => {
    for (const c of CANARY_FILES) expect(redactSecrets(c.content, { path: c.path, rules: defaultPathRules() }).text).not.toContain(c.value);
  });
});
