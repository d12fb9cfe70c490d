import { describe, expect, it } from 'vitest';
import { writeArtifact } from '../../../../src/core/artifacts/artifact-io.js';
import { buildRepoMap } from '../../../../src/core/repomap/build-repo-map.js';
import { RepoMap } from '../../../../src/core/repomap/repo-map-schema.js';
import { NAVIGATION_READ_LIMITS } from '../../../../src/core/repomap/repo-navigator.js';
import { toolBench } from './tool-fixture.js';
import { defaultPathRules } from '../../../../src/core/paths/path-rules.js';

const TOTAL = [
  'export interface Line { price: number }',
  '',
  'export function computeTotal(lines: Line[]): number {',
  '  return lines.reduce((s, l) => s + l.price, 0);',
  '}',
  '',
  'export class Invoice {',
  '  total(): number { return 0; }',
  '}',
  '',
].join('\n');

const files = {
  'package.json': '{ "name": "shop", "version": "1.0.0", "scripts": { "test": "vitest" } }\n',
  '.github/CODEOWNERS': '* @acme/all\nsrc/billing/ @acme/billing\n',
  'src/app.ts': "import { computeTotal } from './billing/total.js';\nexport function run() { return computeTotal([]); }\n",
  'src/report.ts': "import { computeTotal } from './billing/total';\nexport const r = computeTotal([]);\n",
  'src/notes.ts': '// computeTotal lives in billing/total\nexport const n = 1;\n',
  'src/billing/total.ts': TOTAL,
  'src/billing/total.test.ts': "import { computeTotal } from './total.js';\nexport const t = computeTotal([]);\n",
  'src/other/cart.ts': 'export class Cart {\n  total(): number { return 1; }\n}\n',
};

async function bench() {
  return toolBench(files, { segmentPaths: [] });
}

interface Answer {
  head: string;
  results: { path: string; score: number; reason: string; evidence: string[] }[];
  truncated?: string;
}

/** Reads a navigator answer back from its text: the head line, one result per line, a bound note. */
function parseAnswer(text: string): Answer {
  const [head, ...rest] = text.split('\n');
  const answer: Answer = { head, results: [] };
  for (const line of rest) {
    const note = /^\[(.*)\]$/.exec(line);
    if (note) {
      answer.truncated = note[1];
      continue;
    }
    const m = /^\d+\. (\S+) \(score ([\d.]+)\): (.*?)(?: \[([^\]]*)\])?$/.exec(line);
    if (!m) throw new Error(`not a result line: ${line}`);
    answer.results.push({ path: m[1], score: Number(m[2]), reason: m[3], evidence: m[4] ? m[4].split(', ') : [] });
  }
  return answer;
}

async function ask(b: Awaited<ReturnType<typeof bench>>, tool: string, args: Record<string, unknown>) {
  return parseAnswer(await b.call(tool, args));
}

describe('navigator tools', () => {
  it('find_definition: the defining file first, with path:line evidence, then the references', async () => {
    const b = await bench();
    const res = await ask(b, 'repo_map_find_definition', { name: 'computeTotal' });
    expect(res.head).toMatch(/^find_definition name=computeTotal limit=20: \d+ results$/);
    expect(res.results[0]).toEqual({
      path: 'src/billing/total.ts',
      score: 1,
      reason: 'function computeTotal defined at line 3: export function computeTotal(lines: Line[]): number {',
      evidence: ['src/billing/total.ts:3', 'symbol_index:definition'],
    });
    const rest = res.results.slice(1);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((r: { score: number }) => r.score < 1)).toBe(true);
    expect(rest.map((r: { evidence: string[] }) => r.evidence[0])).toContain('src/app.ts:2');
  });

  it('find_definition: Type.member narrows to that type', async () => {
    const b = await bench();
    const all = await ask(b, 'repo_map_find_definition', { name: 'total' });
    expect(
      all.results.filter((r: { evidence: string[] }) => r.evidence[1] === 'symbol_index:definition').map((r: { evidence: string[] }) => r.evidence[0]),
    ).toEqual(['src/billing/total.ts:8', 'src/other/cart.ts:2']);
    const narrowed = await ask(b, 'repo_map_find_definition', { name: 'Cart.total' });
    expect(narrowed.results.filter((r: { score: number }) => r.score === 1).map((r: { evidence: string[] }) => r.evidence[0])).toEqual(['src/other/cart.ts:2']);
  });

  it('find_definition without a parser for the language: a definition keyword before the name, ranked below parsed definitions', async () => {
    const b = await toolBench(
      {
        'lib/invoice.rb': 'class Invoice\n  def self.total(items)\n    items.sum(&:price)\n  end\nend\n',
        'app/checkout.rb': 'class Checkout\n  def run\n    Invoice.total(@items)\n  end\nend\n',
        'src/total.py': 'def total(items):\n    return 0\n',
      },
      { segmentPaths: [] },
    );
    const res = await ask(b, 'repo_map_find_definition', { name: 'total' });
    expect(res.results.map((r: { path: string; score: number; evidence: string[] }) => [r.path, r.score, r.evidence])).toEqual([
      ['src/total.py', 1, ['src/total.py:1', 'symbol_index:definition']],
      ['lib/invoice.rb', 0.7, ['lib/invoice.rb:2', 'text_pattern:definition']],
    ]);
  });

  it('find_importers: files that import the module, not those that only mention it', async () => {
    const b = await bench();
    const res = await ask(b, 'repo_map_find_importers', { path: 'src/billing/total.ts' });
    expect(res.results.map((r: { path: string; evidence: string[] }) => [r.path, r.evidence])).toEqual([
      ['src/app.ts', ['src/app.ts:1', 'file_imports']],
      ['src/billing/total.test.ts', ['src/billing/total.test.ts:1', 'file_imports']],
      ['src/report.ts', ['src/report.ts:1', 'file_imports']],
    ]);
  });

  it('find_tests, owners, explain_path, find_files', async () => {
    const b = await bench();
    const tests = await ask(b, 'repo_map_find_tests', { path: 'src/billing/total.ts' });
    expect(tests.results[0]).toMatchObject({ path: 'src/billing/total.test.ts', evidence: expect.arrayContaining(['test_name_match']) });
    expect(await b.call('repo_map_owners', { path: 'src/billing/total.ts' })).toBe(
      'find_owners path=src/billing/total.ts: 1 result\n1. src/billing/total.ts (score 1): owned by @acme/billing (rule src/billing/, the last match) [.github/CODEOWNERS:2]',
    );
    expect((await ask(b, 'repo_map_owners', { path: 'src/app.ts' })).results[0].reason).toMatch(/^owned by @acme\/all /);
    const explained = (await b.call('repo_map_explain_path', { path: 'src/billing/total.ts' })).split('\n');
    expect(explained[0]).toBe('src/billing/total.ts: exists, role source');
    expect(explained).toContain('owners: @acme/billing (rule .github/CODEOWNERS:2 src/billing/)');
    expect(explained.some((l) => l.startsWith('module: '))).toBe(true);
    expect(await b.call('repo_map_explain_path', { path: 'src/none.ts' })).toMatch(/^src\/none\.ts: does not exist, role /);
    expect(await b.call('repo_map_find_files', { pattern: '*.nothing' })).toBe('find_files_by_pattern pattern=*.nothing limit=100: no results');
    const found = await ask(b, 'repo_map_find_files', { pattern: '*.test.ts' });
    expect(found.results.map((r: { path: string }) => r.path)).toEqual(['src/billing/total.test.ts']);
  });

  it('answers from the map discovery stored for the attempt', async () => {
    const b = await bench();
    const map = await buildRepoMap({ workspace: b.repo.workspace, owner: 'acme', repo: 'shop', policyDigest: 'p', rules: defaultPathRules() });
    map.ownership.rules = [{ pattern: 'src/', owners: ['@acme/stored'], source: 'CODEOWNERS', line: 7 }];
    await writeArtifact(b.env.store, b.env.keys.attempt(1).repoMap, RepoMap, map);
    expect((await ask(b, 'repo_map_owners', { path: 'src/app.ts' })).results).toMatchObject([
      { reason: expect.stringMatching(/^owned by @acme\/stored /), evidence: ['CODEOWNERS:7'] },
    ]);
  });

  it('content queries are bounded and say so', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < NAVIGATION_READ_LIMITS.matches + 5; i++) many[`gen/f${String(i).padStart(3, '0')}.ts`] = `export const v${i} = needle;\n`;
    many['gen/zz.ts'] = 'export function needle() {}\n';
    const b = await toolBench(many, { segmentPaths: [] });
    const res = await ask(b, 'repo_map_find_definition', { name: 'needle' });
    expect(res.truncated).toBe(`more than ${NAVIGATION_READ_LIMITS.matches} files mention it; only the first were examined`);
    expect(res.results.filter((r: { score: number }) => r.score === 1)).toEqual([]);
    // A file named after the symbol is read first, so the bound does not hide it.
    many['gen/needle.ts'] = 'export function needle() {}\n';
    const named = await toolBench(many, { segmentPaths: [] });
    expect((await ask(named, 'repo_map_find_definition', { name: 'needle' })).results[0]).toMatchObject({ path: 'gen/needle.ts', score: 1 });
  }, 60_000);
});
