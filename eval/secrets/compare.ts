/**
 * Secret-scan precision and recall, ours against secretlint's recommended preset, on the same
 * corpora: findings over the added lines of real commits (every one a false positive) and
 * canaries found out of the synthetic real-format set.
 *
 *   npm run eval:secrets [-- --verbose] [-- --real <dir>]
 *
 * `--real <dir>` measures on another real-commit sample (from `build-corpus.ts --skip N --out <dir>`).
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { defaultPathRules } from '../../src/core/paths/path-rules.js';
import { scanChanges, scanLines } from '../../src/core/secrets/secret-scan.js';
import { CANARY_FILES } from '../../test/fixtures/secret-corpus/canaries.js';
import { hasRealCorpus, loadRealCorpus, realCommitCount, type AddedFile } from '../../test/fixtures/secret-corpus/corpus.js';

interface Hit {
  where: string;
  rule: string;
}

interface Scanner {
  name: string;
  real(file: AddedFile): Promise<Hit[]>;
  canary(path: string, content: string): Promise<Hit[]>;
}

const encoder = new TextEncoder();
/** The corpus repositories carry no policy: the default rules say what kind each file is. */
const rules = defaultPathRules();

const ours: Scanner = {
  name: 'draftsman',
  real: async (f) => scanLines(f.path, f.lines, rules).map((s) => ({ where: `${f.repo}@${f.commit.slice(0, 10)} ${s.path}:${s.line}`, rule: s.rule })),
  canary: async (path, content) =>
    scanChanges([{ path, newBytes: encoder.encode(content) }], rules).map((s) => ({ where: `${s.path}:${s.line}`, rule: s.rule })),
};

async function secretlint(path: string, content: string): Promise<{ line: number; rule: string }[]> {
  const result = await lintSource({
    source: { filePath: `/corpus/${path}`, content, contentType: 'text' },
    options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] }, maskSecrets: true },
  });
  return result.messages.map((m) => ({ line: m.loc.start.line, rule: m.ruleId }));
}

const secretlintScanner: Scanner = {
  name: 'secretlint recommended 13.1',
  real: async (f) =>
    (await secretlint(f.path, f.lines.map((l) => l.text).join('\n'))).map((m) => ({
      where: `${f.repo}@${f.commit.slice(0, 10)} ${f.path}:${f.lines[m.line - 1]?.line ?? '?'}`,
      rule: m.rule,
    })),
  canary: async (path, content) => (await secretlint(path, content)).map((m) => ({ where: `${path}:${m.line}`, rule: m.rule })),
};

export interface Measurement {
  scanner: string;
  commits: number;
  addedLines: number;
  falsePositives: Hit[];
  canariesFound: number;
  canaries: number;
  missed: string[];
}

const realAt = process.argv.indexOf('--real');
const REAL_DIR = realAt >= 0 ? process.argv[realAt + 1] : undefined;

export async function measure(scanner: Scanner): Promise<Measurement> {
  const real = hasRealCorpus(REAL_DIR) ? loadRealCorpus(REAL_DIR) : [];
  const falsePositives: Hit[] = [];
  for (const f of real) falsePositives.push(...(await scanner.real(f)));
  const missed: string[] = [];
  for (const c of CANARY_FILES) if ((await scanner.canary(c.path, c.content)).length === 0) missed.push(c.id);
  return {
    scanner: scanner.name,
    commits: realCommitCount(real),
    addedLines: real.reduce((n, f) => n + f.lines.length, 0),
    falsePositives,
    canariesFound: CANARY_FILES.length - missed.length,
    canaries: CANARY_FILES.length,
    missed,
  };
}

async function main() {
  const verbose = process.argv.includes('--verbose');
  const results = [await measure(ours), await measure(secretlintScanner)];
  const first = results[0];
  if (first.commits === 0) {
    console.log('No real-commit sample on this machine: build one from local clones (third-party text, never committed):');
    console.log('  node --import tsx eval/secrets/build-corpus.ts <name>=<path/to/repo.git> ...\n');
  }
  console.log(`real corpus: ${first.commits} commits, ${first.addedLines} added lines; canaries: ${first.canaries} files\n`);
  console.log('| scanner | findings on real commits (false positives) | canaries found | recall |');
  console.log('|---|---:|---:|---:|');
  for (const r of results)
    console.log(`| ${r.scanner} | ${r.falsePositives.length} | ${r.canariesFound}/${r.canaries} | ${((100 * r.canariesFound) / r.canaries).toFixed(1)}% |`);
  for (const r of results) {
    if (r.missed.length > 0) console.log(`\n${r.scanner} missed: ${r.missed.join(', ')}`);
    if (r.falsePositives.length === 0) continue;
    const byRule = new Map<string, number>();
    for (const h of r.falsePositives) byRule.set(h.rule, (byRule.get(h.rule) ?? 0) + 1);
    console.log(`\n${r.scanner} false positives by rule: ${[...byRule].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    for (const h of r.falsePositives.slice(0, verbose ? Infinity : 10)) console.log(`  ${h.rule}  ${h.where}`);
  }
}

await main();
