import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipe } from '../../../src/core/engines/recipe/apply-recipe.js';
import { recipeMatches } from '../../../src/core/engines/recipe/recipe-candidates.js';
import { applyRenameSymbol } from '../../../src/core/engines/recipe/rename-symbol-recipe.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const lines = (...l: string[]) => l.join('\n');

/** Apply one rename step to the files; returns every file's text afterwards, and the result. */
async function rename(files: Record<string, string>, step: Record<string, unknown>) {
  const repo = await createMemoryRepo(files);
  const result = await applyRecipe(RecipeStep.parse({ recipe: 'rename-symbol', ...step }), repo.workspace, {
    paths: repo.workspace.paths(),
    syntax,
    isEditable: () => true,
    rules: defaultPathRules(),
  });
  const texts: Record<string, string> = {};
  for (const path of Object.keys(files)) texts[path] = await repo.workspace.readText(path);
  return { texts, result, changed: result.changedFiles.map((f) => f.path) };
}

describe('TypeScript', () => {
  const options = lines(
    'export type Options = {',
    '  shouldDelegate: boolean;',
    '  retries: number;',
    '};',
    '',
    'export const defaults: Options = { shouldDelegate: false, retries: 3 };',
    '',
    'export function shouldDelegate(options: Options): boolean {',
    '  return options.shouldDelegate && options.retries > 0;',
    '}',
    '',
  );
  const run = lines(
    "import { defaults, shouldDelegate, type Options } from './options';",
    '',
    'export function run(input: Partial<Options>) {',
    '  const options = { ...defaults, ...input };',
    '  const { shouldDelegate: delegate } = options;',
    '  if (shouldDelegate(options)) return delegate;',
    '  return { shouldDelegate: options.shouldDelegate };',
    '}',
    '',
  );
  const report = lines(
    "import type { Options } from './options';",
    '',
    "export const describe = ({ shouldDelegate }: Options) => (shouldDelegate ? 'delegates' : 'runs');",
    '',
  );
  const files = { 'src/options.ts': options, 'src/run.ts': run, 'src/report.ts': report };

  it('kind field: a property of a type literal, its accesses and keys in every file; the function of the same name stays', async () => {
    const { texts, changed } = await rename(files, { from: 'shouldDelegate', to: 'delegateToWorker', kind: 'field' });
    expect(changed).toEqual(['src/options.ts', 'src/report.ts', 'src/run.ts']);
    expect(texts['src/options.ts']).toBe(
      options
        .replace('  shouldDelegate: boolean;', '  delegateToWorker: boolean;')
        .replace('{ shouldDelegate: false', '{ delegateToWorker: false')
        .replace('options.shouldDelegate &&', 'options.delegateToWorker &&'),
    );
    expect(texts['src/run.ts']).toBe(
      run
        .replace('{ shouldDelegate: delegate }', '{ delegateToWorker: delegate }')
        .replace('{ shouldDelegate: options.shouldDelegate }', '{ delegateToWorker: options.delegateToWorker }'),
    );
    // A shorthand binding keeps its local name and gets the new key.
    expect(texts['src/report.ts']).toBe(report.replace('({ shouldDelegate }: Options)', '({ delegateToWorker: shouldDelegate }: Options)'));
  });

  it('kind function: the declaration, its import and calls; object keys and property accesses stay', async () => {
    const { texts, result } = await rename(files, { from: 'shouldDelegate', to: 'mustDelegate', kind: 'function' });
    expect(result.notes).toContain(
      'rename-symbol left 6 line(s) where shouldDelegate names another kind of symbol than function: src/options.ts:2, src/options.ts:6, src/options.ts:9, src/report.ts:3, src/run.ts:5, src/run.ts:7',
    );
    expect(texts['src/options.ts']).toBe(options.replace('function shouldDelegate(', 'function mustDelegate('));
    expect(texts['src/run.ts']).toBe(
      run.replace('{ defaults, shouldDelegate,', '{ defaults, mustDelegate,').replace('if (shouldDelegate(options))', 'if (mustDelegate(options))'),
    );
    expect(texts['src/report.ts']).toBe(report);
  });

  it('kind field on an interface and the class that implements it; the type named like it stays', async () => {
    const src = lines(
      'export type size = number;',
      'export interface Store { size: size; resize(n: size): void }',
      'export class Memory implements Store {',
      '  size: size = 0;',
      '  resize(n: size) { this.size = n; }',
      '}',
      '',
    );
    const { texts } = await rename({ 'store.ts': src }, { from: 'size', to: 'capacity', kind: 'field' });
    expect(texts['store.ts']).toBe(
      lines(
        'export type size = number;',
        'export interface Store { capacity: size; resize(n: size): void }',
        'export class Memory implements Store {',
        '  capacity: size = 0;',
        '  resize(n: size) { this.capacity = n; }',
        '}',
        '',
      ),
    );
  });

  it('kind field on a constructor parameter property: the parameter, its uses in the constructor and this. accesses', async () => {
    const src = lines(
      'export class Worker {',
      '  constructor(private readonly shouldDelegate: boolean, retries: number) {',
      '    if (shouldDelegate) console.log(retries);',
      '  }',
      '  run() { return this.shouldDelegate; }',
      '}',
      '',
    );
    const { texts } = await rename({ 'w.ts': src }, { from: 'shouldDelegate', to: 'delegates', kind: 'field' });
    expect(texts['w.ts']).toBe(src.replace(/shouldDelegate/g, 'delegates'));
  });

  it('kind field on a props type: JSX attributes and props accesses; the handler variable of the same name stays', async () => {
    const dialog = lines(
      'export type DialogProps = { onClose: () => void };',
      'export function Dialog(props: DialogProps) {',
      '  return <button onClick={() => props.onClose()} />;',
      '}',
      '',
    );
    const page = lines(
      "import { Dialog } from './dialog';",
      'export function Page({ onClose }: { onClose: () => void }) {',
      '  return <Dialog onClose={onClose} />;',
      '}',
      '',
    );
    const { texts } = await rename({ 'dialog.tsx': dialog, 'page.tsx': page }, { from: 'onClose', to: 'onDismiss', kind: 'field' });
    expect(texts['dialog.tsx']).toBe(dialog.replace(/onClose/g, 'onDismiss'));
    expect(texts['page.tsx']).toBe(
      lines(
        "import { Dialog } from './dialog';",
        'export function Page({ onDismiss: onClose }: { onDismiss: () => void }) {',
        '  return <Dialog onDismiss={onClose} />;',
        '}',
        '',
      ),
    );
  });

  it('kind method: declarations and obj.m() calls, object-literal methods; a data key and a local of the same name stay', async () => {
    const src = lines(
      'class Queue {',
      '  flush(): void {}',
      '}',
      'const hooks = { flush() {}, options: { flush: true } };',
      'export function drain(q: Queue) {',
      '  const flush = q.flush();',
      '  hooks.flush();',
      '  return flush;',
      '}',
      '',
    );
    const { texts } = await rename({ 'queue.ts': src }, { from: 'flush', to: 'drainAll', kind: 'method' });
    expect(texts['queue.ts']).toBe(
      lines(
        'class Queue {',
        '  drainAll(): void {}',
        '}',
        'const hooks = { drainAll() {}, options: { flush: true } };',
        'export function drain(q: Queue) {',
        '  const flush = q.drainAll();',
        '  hooks.drainAll();',
        '  return flush;',
        '}',
        '',
      ),
    );
  });

  it('kind variable: a destructured binding gets an explicit key; the property of the same name stays', async () => {
    const src = lines('export function total(order: { count: number }) {', '  const { count } = order;', '  return count * 2 + order.count;', '}', '');
    const { texts } = await rename({ 'o.ts': src }, { from: 'count', to: 'quantity', kind: 'variable' });
    expect(texts['o.ts']).toBe(
      lines('export function total(order: { count: number }) {', '  const { count: quantity } = order;', '  return quantity * 2 + order.count;', '}', ''),
    );
  });
});

describe('Java', () => {
  it('kind field on a record component: the component, its uses in the record and accessor calls; locals of the same name stay', async () => {
    const range = lines(
      'public record Range(int start, int end) {',
      '  public Range {',
      '    if (end < start) throw new IllegalArgumentException("end");',
      '  }',
      '  public int length() { return end - start; }',
      '  @Override public int end() { return end; }',
      '}',
      '',
    );
    const use = lines('class Pager {', '  int last(Range r, Text t) {', '    int end = r.end();', '    return t.end(end - 1);', '  }', '}', '');
    const { texts } = await rename({ 'src/Range.java': range, 'src/Pager.java': use }, { from: 'end', to: 'endExclusive', kind: 'field' });
    expect(texts['src/Range.java']).toBe(
      lines(
        'public record Range(int start, int endExclusive) {',
        '  public Range {',
        '    if (endExclusive < start) throw new IllegalArgumentException("end");',
        '  }',
        '  public int length() { return endExclusive - start; }',
        '  @Override public int endExclusive() { return endExclusive; }',
        '}',
        '',
      ),
    );
    expect(texts['src/Pager.java']).toBe(use.replace('r.end()', 'r.endExclusive()'));
  });

  it('kind field on a class field: bare and this. uses; a parameter that shadows it and its uses stay', async () => {
    const src = lines(
      'class Counter {',
      '  private int count;',
      '  void add(int n) { count += n; this.count++; }',
      '  void set(int count) { this.count = count; }',
      '}',
      '',
    );
    const { texts } = await rename({ 'Counter.java': src }, { from: 'count', to: 'total', kind: 'field' });
    expect(texts['Counter.java']).toBe(
      lines(
        'class Counter {',
        '  private int total;',
        '  void add(int n) { total += n; this.total++; }',
        '  void set(int count) { this.total = count; }',
        '}',
        '',
      ),
    );
  });

  it('kind method: declaration, calls with and without a receiver; a local variable of the same name stays', async () => {
    const cache = lines('class Cache {', '  void evict(String key) {}', '  void clear() { evict("*"); }', '}', '');
    const user = lines('class User {', '  void trim(Cache cache) {', '    boolean evict = true;', '    if (evict) cache.evict("k");', '  }', '}', '');
    const { texts } = await rename({ 'Cache.java': cache, 'User.java': user }, { from: 'evict', to: 'remove', kind: 'method' });
    expect(texts['Cache.java']).toBe(lines('class Cache {', '  void remove(String key) {}', '  void clear() { remove("*"); }', '}', ''));
    expect(texts['User.java']).toBe(user.replace('cache.evict("k")', 'cache.remove("k")'));
  });
});

describe('Go', () => {
  const job = lines(
    'package job',
    '',
    'type Status int',
    '',
    'type Job struct {',
    '\tID     string',
    '\tStatus Status',
    '}',
    '',
    'type Doner interface {',
    '\tDone() bool',
    '}',
    '',
    'func (j *Job) Done() bool { return j.Status == 2 }',
    '',
    'func New(id string) *Job { return &Job{ID: id, Status: Status(0)} }',
    '',
  );

  it('kind field: the struct field, selectors and keyed elements; the type of the same name stays', async () => {
    const { texts } = await rename({ 'job/job.go': job }, { from: 'Status', to: 'State', kind: 'field' });
    // gofmt realigns the struct: the field column follows the longest name, now State.
    expect(texts['job/job.go']).toBe(
      job
        .replace('\tID     string\n\tStatus Status', '\tID    string\n\tState Status')
        .replace('j.Status == 2', 'j.State == 2')
        .replace('Status: Status(0)', 'State: Status(0)'),
    );
  });

  it('kind type: the type and its uses; the field of the same name stays', async () => {
    const { texts } = await rename({ 'job/job.go': job }, { from: 'Status', to: 'Phase', kind: 'type' });
    expect(texts['job/job.go']).toBe(
      job.replace('type Status int', 'type Phase int').replace('\tStatus Status', '\tStatus Phase').replace('Status: Status(0)', 'Status: Phase(0)'),
    );
  });

  it('kind method: the receiver method, the interface method and calls through a package', async () => {
    const main = lines('package main', '', 'import "example.com/app/job"', '', 'func main() { j := job.New("a"); _ = j.Done() }', '');
    const { texts } = await rename({ 'job/job.go': job, 'main.go': main }, { from: 'Done', to: 'Finished', kind: 'method' });
    expect(texts['job/job.go']).toBe(job.replace('\tDone() bool', '\tFinished() bool').replace('func (j *Job) Done()', 'func (j *Job) Finished()'));
    expect(texts['main.go']).toBe(main.replace('j.Done()', 'j.Finished()'));
  });
});

describe('Go scoping', () => {
  it('kind variable: a local that shadows an imported package; uses of the package before the declaration stay', async () => {
    const src = lines(
      'package gin',
      '',
      'import (',
      '\t"net/http"',
      ')',
      '',
      'func TestH2c(t *testing.T) {',
      '\tgo func() {',
      '\t\t_ = http.Serve(ln, r.Handler())',
      '\t}()',
      '\thttp := http.Client{}',
      '\tres, err := http.Get(url)',
      '\t_ = res',
      '}',
      '',
    );
    const { texts } = await rename({ 'gin_test.go': src }, { from: 'http', to: 'httpClient', kind: 'variable' });
    expect(texts['gin_test.go']).toBe(src.replace('\thttp := http.Client{}', '\thttpClient := http.Client{}').replace('http.Get(url)', 'httpClient.Get(url)'));
  });
});

describe('Python', () => {
  const batch = lines(
    'class Batch:',
    '    size = 10',
    '',
    '    def __init__(self, items):',
    '        self.items = items  # the items to send',
    '',
    '    def chunks(self):',
    '        """Yield the items in order."""',
    '        for item in self.items:',
    '            yield item',
    '        with open("log") as item:',
    '            print(item)',
    '        try:',
    '            pass',
    '        except ValueError as item:',
    '            print(item)',
    '        if (item := self.items[0]):',
    '            print(item)',
    '        return [item for item in self.items if item]',
    '',
  );

  it('kind variable: loop, with, except, walrus and comprehension targets with their uses', async () => {
    const { texts, result } = await rename({ 'batch.py': batch }, { from: 'item', to: 'entry', kind: 'variable' });
    expect(result.notes.join('\n')).not.toMatch(/no variable named/);
    expect(texts['batch.py']).toBe(batch.replace(/\bitem\b/g, 'entry'));
  });

  it('kind variable: a module-level loop target (the only binding of the name)', async () => {
    const src = lines('import sys', '', 'for line in sys.stdin:', '    print(line.strip())', '');
    const { texts } = await rename({ 'cat.py': src }, { from: 'line', to: 'row', kind: 'variable' });
    expect(texts['cat.py']).toBe(src.replace(/\bline\b/g, 'row'));
  });

  it('kind variable: a module variable used in a method is not the class attribute of the same name', async () => {
    const src = lines('size = 3', '', 'class Batch:', '    size = 10', '', '    def grow(self):', '        return size * self.size', '');
    const { texts } = await rename({ 'b.py': src }, { from: 'size', to: 'limit', kind: 'variable' });
    expect(texts['b.py']).toBe(lines('limit = 3', '', 'class Batch:', '    size = 10', '', '    def grow(self):', '        return limit * self.size', ''));
  });

  it('kind field: self attributes and their accesses; the parameter of the same name and the docstring stay', async () => {
    const { texts } = await rename({ 'batch.py': batch }, { from: 'items', to: 'entries', kind: 'field' });
    expect(texts['batch.py']).toBe(batch.replace('self.items = items', 'self.entries = items').replaceAll('self.items', 'self.entries'));
  });

  it('comments: true also updates whole-word mentions in comments and docstrings', async () => {
    const { texts } = await rename({ 'batch.py': batch }, { from: 'items', to: 'entries', kind: 'field', comments: true });
    expect(texts['batch.py']).toBe(
      batch
        .replace('self.items = items  # the items to send', 'self.entries = items  # the entries to send')
        .replace('Yield the items in order', 'Yield the entries in order')
        .replaceAll('self.items', 'self.entries'),
    );
  });

  it('kind method: a def in a class and attribute calls; a module function of the same name stays', async () => {
    const src = lines('def send(batch):', '    batch.send()', '', 'class Client:', '    def send(self):', '        return 1', '', 'send(Client())', '');
    const { texts } = await rename({ 'c.py': src }, { from: 'send', to: 'submit', kind: 'method' });
    expect(texts['c.py']).toBe(src.replace('batch.send()', 'batch.submit()').replace('def send(self)', 'def submit(self)'));
  });
});

describe('clashes', () => {
  it('refuses a field rename onto another member of the same type literal, naming the place', async () => {
    const src = lines(
      'type Options = {',
      '  shouldDelegate: boolean;',
      '  delegate: boolean;',
      '};',
      'const o: Options = { shouldDelegate: true, delegate: false };',
      '',
    );
    const { result, texts } = await rename({ 'src/options.ts': src }, { from: 'shouldDelegate', to: 'delegate', kind: 'field' });
    expect(result.changedFiles).toEqual([]);
    expect(texts['src/options.ts']).toBe(src);
    expect(result.notes.join('\n')).toMatch(/refused: delegate is already bound .*src\/options\.ts:3\b.*src\/options\.ts:5\b.*nothing was renamed/);
  });

  it('the per-file preview still shows where the rename would apply, and names the clash', () => {
    const src = lines('type Options = {', '  shouldDelegate: boolean;', '  delegate: boolean;', '};', '');
    const step = RecipeStep.parse({ recipe: 'rename-symbol', from: 'shouldDelegate', to: 'delegate', kind: 'field' });
    expect(recipeMatches(step, { path: 'o.ts', text: src }, { syntax }, defaultPathRules().isLockfile).map((m) => m.line)).toEqual([2]);
    if (step.recipe !== 'rename-symbol') throw new Error('not a rename');
    expect(applyRenameSymbol(step, { path: 'o.ts', text: src }, { syntax })?.notes.join('\n')).toMatch(/refused: delegate is already bound .*o\.ts:3/);
  });

  it('refuses a variable rename onto a local of an enclosing scope, in whichever file it is', async () => {
    const ok = 'export const limit = 1;\n';
    const loop = lines('def total(xs):', '    entry = 0', '    for item in xs:', '        entry += item', '    return entry', '');
    const { result, changed } = await rename({ 'a.py': ok, 'b.py': loop }, { from: 'item', to: 'entry', kind: 'variable' });
    expect(changed).toEqual([]);
    expect(result.notes.join('\n')).toMatch(/refused: entry is already bound .*b\.py:2\b/);
  });

  it('refuses a function rename onto an existing top-level definition of an edited file', async () => {
    const src = lines('export function load() {}', 'export function fetchAll() {}', 'load();', '');
    const { result, changed } = await rename({ 'a.ts': src }, { from: 'load', to: 'fetchAll', kind: 'function' });
    expect(changed).toEqual([]);
    expect(result.notes.join('\n')).toMatch(/a\.ts:2\b/);
  });

  it('does not count a binding in an unrelated scope as a clash', async () => {
    const src = lines('function a() { const item = 1; return item; }', 'function b() { const entry = 2; return entry; }', '');
    const { texts } = await rename({ 'a.ts': src }, { from: 'item', to: 'entry', kind: 'variable' });
    expect(texts['a.ts']).toBe(src.replace(/\bitem\b/g, 'entry'));
  });

  const controller = lines(
    'class OwnerController {',
    '\tprivate final OwnerRepository owners;',
    '',
    '\tOwnerController(OwnerRepository clinicService) {',
    '\t\tthis.owners = clinicService;',
    '\t}',
    '',
    '\tvoid list(OwnerRepository clinicService) {',
    '\t\tclinicService.findAll();',
    '\t}',
    '}',
    '',
  );

  it('a Java parameter may take the name of the field it is assigned to (this.owners = owners)', async () => {
    const { texts, result } = await rename({ 'OwnerController.java': controller }, { from: 'clinicService', to: 'owners', kind: 'variable' });
    expect(result.notes.join('\n')).not.toMatch(/refused/);
    expect(texts['OwnerController.java']).toBe(controller.replace(/\bclinicService\b/g, 'owners'));
  });

  it('refuses a Java parameter rename that would capture a bare use of the field', async () => {
    const src = controller.replace('\t\tclinicService.findAll();', '\t\tclinicService.findAll();\n\t\towners.count();');
    const { texts, result } = await rename({ 'OwnerController.java': src }, { from: 'clinicService', to: 'owners', kind: 'variable' });
    expect(result.notes.join('\n')).toMatch(/refused: owners is already bound .*OwnerController\.java:2\b/);
    expect(texts['OwnerController.java']).toBe(src);
  });
});
