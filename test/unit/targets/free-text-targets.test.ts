import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import type { RepoMap } from '../../../src/core/repomap/repo-map-schema.js';
import { SymbolIndex } from '../../../src/core/repomap/symbol-index.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { selectTargets, MAX_KEYWORD_ONLY_WITH_STRONG } from '../../../src/core/targets/select-targets.js';
import { parseTask } from '../../../src/core/task/parse-task.js';
import { taskWords } from '../../../src/core/task/search-terms.js';
import { createMemoryRepo, type MemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

const rules = pathRulesFor({});

/** Callers mention `total` far more often than the file that defines it: text counts alone rank them first. */
const FILES: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "shop"\n',
  'shop/__init__.py': '',
  'shop/billing/__init__.py': '',
  'shop/billing/invoice.py':
    'from decimal import Decimal\n\n\ndef total(lines):\n    return sum(l.price for l in lines)\n\n\ndef compute_tax(amount):\n    return amount * Decimal("0.2")\n',
  'shop/billing/report.py':
    'from shop.billing.invoice import total, compute_tax\n\n\ndef summary(orders):\n    grand = total(orders)\n    tax = compute_tax(total(orders))\n    return {"total": total(orders), "tax": tax, "grand": grand}\n\n\ndef totals(batches):\n    return [total(b) for b in batches] + [compute_tax(total(b)) for b in batches]\n',
  'shop/cart.py':
    'from shop.billing.invoice import total\n\n\nclass Cart:\n    def checkout(self):\n        return total(self.lines) + total(self.extra) + total(self.fees)\n',
  'shop/views.py': 'def render(order):\n    # show the total and tax of the order\n    return f"total: {order.total} tax: {order.tax}"\n',
  'tests/test_invoice.py': 'from shop.billing.invoice import total\n\n\ndef test_total():\n    assert total([]) == 0\n',
  // A stub in a test defines the name too, and mentions it more often: still not where the fix goes.
  'tests/conftest.py':
    'def compute_tax(amount):\n    return 0\n\n\ndef fake_rates():\n    return [compute_tax(1), compute_tax(2), compute_tax(3), compute_tax(4)]\n',
  'docs/billing.md': 'The total of an invoice is the sum of its lines. The total includes tax.\n',
  ...Object.fromEntries(
    Array.from({ length: 8 }, (_, i) => [
      `shop/pages/page${i}.py`,
      `def page${i}(order):\n    # the order total is shown here; compute_tax ran upstream\n    return order\n`,
    ]),
  ),
};

let syntax: TreeSyntaxService;
let repo: MemoryRepo;
let map: RepoMap;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
  repo = await createMemoryRepo(FILES);
  map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'shop', rules, policyDigest: 'p1' });
});

async function select(text: string, withSyntax = true) {
  const task = parseTask({ title: text, body: '', source: 'github' });
  const contents = new FileContents(repo.workspace);
  return selectTargets({ workspace: repo.workspace, task, map, rules, syntax, contents, symbols: withSyntax ? new SymbolIndex(syntax, contents) : undefined });
}

describe('selectTargets on free text', () => {
  it.each([
    ['tree-sitter symbols', true],
    ['textual fallback', false],
  ])('a bare symbol name ranks the defining file above its callers (%s)', async (_label, withSyntax) => {
    const sel = await select('compute_tax rounds the wrong way', withSyntax);
    const paths = sel.selectedFiles.map((f) => f.path);
    expect(paths[0]).toBe('shop/billing/invoice.py');
    expect(paths.indexOf('shop/billing/report.py')).toBeGreaterThan(0);
    expect(sel.selectedFiles[0].reasons).toContain('defines compute_tax');
    expect(sel.selectedFiles[0].evidence).toContainEqual(expect.objectContaining({ type: 'symbol', line: 8, detail: 'definition' }));
    expect(sel.selectedFiles.find((f) => f.path === 'shop/billing/report.py')!.reasons).toContain('calls compute_tax');
  });

  it('a bare file name selects that file at any depth, first, with its test as context', async () => {
    const sel = await select('Fix the rounding in invoice.py');
    expect(sel.status).not.toBe('FAILED');
    expect(sel.strategy).toContain('named_files');
    expect(sel.selectedFiles[0]).toMatchObject({ path: 'shop/billing/invoice.py', rank: 1 });
    expect(sel.selectedFiles[0].reasons).toContain('file named in the task: invoice.py');
    const test = sel.selectedFiles.find((f) => f.path === 'tests/test_invoice.py')!;
    expect(test.reasons.some((r) => r.startsWith('test covering shop/billing/invoice.py'))).toBe(true);
    expect(sel.selectedFiles.find((f) => f.path === 'shop/billing/report.py')!.reasons).toContain('imports shop/billing/invoice.py');
  });

  it('"fix the total function in invoice.py": the file and its definition of total come first', async () => {
    const sel = await select('fix the total function in invoice.py');
    expect(sel.selectedFiles[0].path).toBe('shop/billing/invoice.py');
    expect(sel.selectedFiles[0].reasons).toEqual(expect.arrayContaining(['file named in the task: invoice.py', 'defines total (named as code in the task)']));
  });

  it('a plain word next to "function" is matched against definitions of the same name', async () => {
    const sel = await select('The total function ignores discounts');
    expect(sel.strategy).toContain('word_definitions');
    expect(sel.selectedFiles[0].path).toBe('shop/billing/invoice.py');
    expect(sel.selectedFiles[0].evidence).toContainEqual(expect.objectContaining({ type: 'symbol', line: 4, term: 'total', detail: 'definition' }));
  });

  it('a name mentioned in many files does not select them all: keyword-only matches are capped and explained', async () => {
    const sel = await select('compute_tax rounds the wrong way');
    const keywordOnly = sel.selectedFiles.filter((f) => f.path.startsWith('shop/pages/'));
    expect(keywordOnly).toHaveLength(MAX_KEYWORD_ONLY_WITH_STRONG);
    expect(sel.warnings).toContainEqual(
      expect.objectContaining({
        code: 'SELECTION_CAPPED',
        data: { keywordOnlyDropped: 8 - MAX_KEYWORD_ONLY_WITH_STRONG, referenceOnlyDropped: 0, relatedDropped: 0, calleeDropped: 0, strongEvidence: true },
      }),
    );
    expect(sel.selectedFiles[0].path).toBe('shop/billing/invoice.py');
    expect(sel.selectedFiles.map((f) => f.path)).toContain('shop/billing/report.py');
  });
});

describe('selectTargets: words too common to single out', () => {
  it('reports TASK_WORDS_TOO_COMMON and selects nothing for a word defined or used everywhere', async () => {
    const files = Object.fromEntries(Array.from({ length: 205 }, (_, i) => [`w/m${i}.py`, `def widget_${i}():\n    return widget\n`]));
    const many = await createMemoryRepo({ ...files, 'w/core.py': 'def widget():\n    return 1\n' });
    const manyMap = await buildRepoMap({ workspace: many.workspace, owner: 'acme', repo: 'w', rules, policyDigest: 'p1' });
    const task = parseTask({ title: 'the widget function is slow', body: '', source: 'github' });
    const sel = await selectTargets({ workspace: many.workspace, task, map: manyMap, rules, syntax });
    expect(sel.warnings).toContainEqual(expect.objectContaining({ code: 'TASK_WORDS_TOO_COMMON', data: { words: ['widget'] } }));
    expect(sel.selectedFiles.map((f) => f.path)).not.toContain('w/core.py');
  });
});

describe('taskWords', () => {
  it('keeps words that may name code, marks the ones written as code, pairs adjacent words, drops prose and dotted names', () => {
    expect(taskWords({ title: 'fix the total function in invoice.py', objective: 'The ETA of register user() breaks Service.apply' })).toEqual([
      { word: 'total', hinted: true },
      { word: 'eta', hinted: false },
      { word: 'register', hinted: false },
      { word: 'user', hinted: true },
      { word: 'register_user', hinted: true, parts: ['register', 'user'] },
      { word: 'breaks', hinted: false },
      { word: 'user_breaks', hinted: true, parts: ['user', 'breaks'] },
    ]);
  });
});
