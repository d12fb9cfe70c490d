import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import type { RepoMap } from '../../../src/core/repomap/repo-map-schema.js';
import { SymbolIndex } from '../../../src/core/repomap/symbol-index.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { selectTargets } from '../../../src/core/targets/select-targets.js';
import { TargetSelection } from '../../../src/core/targets/target-selection-schema.js';
import { parseTask } from '../../../src/core/task/parse-task.js';
import { createMemoryRepo, type MemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

const rules = pathRulesFor({});

/**
 * A small Python library shaped like the bug reports the selection must serve: a public API that
 * delegates to a helper module, an error message raised in one place, users of the API all over,
 * a towncrier fragments directory next to the generated CHANGELOG, and tests named after modules.
 */
export const FILES: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "kite"\n\n[tool.towncrier]\ndirectory = "changelog.d"\n',
  'CHANGELOG.md': '# Changelog\n\n- `Client.fetch` retries on timeouts.\n- merge_options keeps headers.\n',
  'changelog.d/101.bugfix.md': 'Fixed a crash.\n',
  'changelog.d/102.feature.md': 'Added retries.\n',
  'src/kite/__init__.py': 'from kite.client import Client\n',
  'src/kite/client.py':
    'from kite.options import merge_options\nfrom kite.transport import send\n\n\nclass Client:\n    def fetch(self, url, **kwargs):\n        options = merge_options(self.defaults, kwargs)\n        return send(url, options)\n\n    def close(self):\n        return None\n',
  'src/kite/options.py':
    'def merge_options(defaults, overrides):\n    merged = dict(defaults)\n    for key, value in overrides.items():\n        if value is not None:\n            merged[key] = value\n    return merged\n\n\ndef header_names(options):\n    return sorted(options.get("headers", {}))\n',
  'src/kite/transport.py':
    'from kite.errors import TransportError\n\n\ndef send(url, options):\n    if not url:\n        raise TransportError("url must not be empty")\n    return {"url": url, "options": options}\n',
  'src/kite/errors.py': 'class TransportError(Exception):\n    pass\n\n\nclass ConfigError(Exception):\n    pass\n',
  'src/kite/config.py':
    'from kite.errors import ConfigError\n\n\ndef load(path):\n    if not path.endswith(".toml"):\n        raise ConfigError("Invalid config file: expected a .toml file")\n    return {}\n',
  'src/kite/jsonparser.py': 'class JSONParser:\n    def parse(self, text):\n        return text\n',
  'tests/test_options.py': 'from kite.options import merge_options\n\n\ndef test_merge():\n    assert merge_options({}, {}) == {}\n',
  'tests/test_client.py': 'from kite.client import Client\n\n\ndef test_fetch():\n    Client().fetch("x")\n',
  'tests/test_config.py': 'from kite.config import load\n\n\ndef test_load():\n    load("a.toml")\n',
  // Users of the public API: each calls it, none defines it.
  ...Object.fromEntries(
    Array.from({ length: 6 }, (_, i) => [
      `examples/use${i}.py`,
      `from kite import Client\n\n\ndef run${i}():\n    c = Client()\n    c.fetch("a")\n    c.fetch("b")\n    c.fetch("c")\n    return c.fetch("d")\n`,
    ]),
  ),
};

let syntax: TreeSyntaxService;
let repo: MemoryRepo;
let map: RepoMap;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
  repo = await createMemoryRepo(FILES);
  map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'kite', rules, policyDigest: 'p1' });
});

async function select(title: string, body = '') {
  const task = parseTask({ title, body, source: 'github' });
  const contents = new FileContents(repo.workspace);
  const sel = await selectTargets({ workspace: repo.workspace, task, map, rules, syntax, contents, symbols: new SymbolIndex(syntax, contents) });
  expect(TargetSelection.parse(sel)).toEqual(sel);
  // Best first: a file placed below another never shows a higher rank.
  const ranks = sel.selectedFiles.map((f) => f.rank);
  expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
  return sel;
}

const paths = (sel: TargetSelection): string[] => sel.selectedFiles.map((f) => f.path);

describe('selectTargets on bug reports', () => {
  it('a quoted error message selects the file that raises it, first', async () => {
    const sel = await select('Loading fails', 'I get `ConfigError: Invalid config file: expected a .toml file` when the path is right.');
    expect(paths(sel)[0]).toBe('src/kite/config.py');
    expect(sel.selectedFiles[0].reasons).toContain('holds the quoted text "Invalid config file: expected a .toml file"');
  });

  it('an error type the report names is a symptom: the file that raises it ranks above its class', async () => {
    const sel = await select('`ConfigError` for a valid path', 'Loading a config that exists raises ConfigError.');
    expect(paths(sel).indexOf('src/kite/config.py')).toBeLessThan(paths(sel).indexOf('src/kite/errors.py'));
    expect(sel.selectedFiles.find((f) => f.path === 'src/kite/errors.py')?.reasons).toContain(
      'the definitions are error types the report names: a symptom, not the place of the fix',
    );
  });

  it('a message a program fills in is found by its fixed parts', async () => {
    const sel = await select('Crash', 'It says "url must not be empty" for https://x');
    expect(paths(sel)[0]).toBe('src/kite/transport.py');
    const filled = await select('Crash', 'Raised: "Invalid config file: expected a .yaml file"');
    expect(paths(filled)[0]).toBe('src/kite/config.py');
    expect(filled.selectedFiles[0].reasons.some((r) => r.includes('part of'))).toBe(true);
  });

  it('a Python stack-trace frame from site-packages selects the repository file', async () => {
    const body = [
      'Traceback (most recent call last):',
      '  File "/home/me/venv/lib/python3.12/site-packages/kite/transport.py", line 6, in send',
      '    raise TransportError(msg)',
      'kite.errors.TransportError: boom',
    ].join('\n');
    const sel = await select('Crash on send', `\`\`\`\n${body}\n\`\`\``);
    expect(paths(sel)[0]).toBe('src/kite/transport.py');
    expect(sel.selectedFiles[0].reasons.some((r) => r.startsWith('in a stack-trace frame of the report'))).toBe(true);
  });

  it('the definition of a named API ranks above the files that only call it, and brings its test', async () => {
    const sel = await select('`Client.fetch` drops the timeout');
    expect(paths(sel)[0]).toBe('src/kite/client.py');
    const users = paths(sel).filter((p) => p.startsWith('examples/'));
    for (const u of users) expect(paths(sel).indexOf(u)).toBeGreaterThan(0);
    expect(paths(sel)).toContain('tests/test_client.py');
  });

  it('from a named public API, a call step reaches the helper that holds the report terms', async () => {
    const sel = await select('`Client.fetch` ignores overrides', 'Options passed to fetch are merged wrongly: a None override keeps the default.');
    const helper = sel.selectedFiles.find((f) => f.path === 'src/kite/options.py');
    expect(helper?.reasons.some((r) => r.startsWith('defines merge_options, called by fetch'))).toBe(true);
    expect(paths(sel).indexOf('src/kite/options.py')).toBeLessThan(5);
  });

  it('a named symbol spelled with other letter case than the code is still found', async () => {
    const sel = await select('`JsonParser.parse` returns the raw text');
    expect(paths(sel)[0]).toBe('src/kite/jsonparser.py');
    expect(sel.searchTerms).toContain('JSONParser');
  });

  it('reads the changelog convention; a history file never takes the place of a source', async () => {
    const sel = await select('`merge_options` keeps None values');
    expect(sel.changelog).toEqual({ kind: 'fragments', directory: 'changelog.d' });
    expect(paths(sel)).not.toContain('CHANGELOG.md');
    expect(sel.excludedFiles).toContainEqual({
      path: 'CHANGELOG.md',
      reason: 'history file: the project adds a changelog fragment under changelog.d/ instead',
    });
    expect(paths(sel)[0]).toBe('src/kite/options.py');
    expect(paths(sel)).toContain('tests/test_options.py');
  });

  it('lists what the cap drops with rank and reason, and selected files best first', async () => {
    const sel = await select('`Client.fetch` drops the timeout');
    const ranks = sel.selectedFiles.map((f) => f.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    const capped = sel.excludedFiles.filter((e) => e.rank !== undefined);
    expect(capped.length).toBeGreaterThan(0);
    for (const e of capped) {
      expect(e.reason).toMatch(/^left out by the cap on files that /);
      expect(e.rank!).toBeLessThan(ranks[0]);
    }
    const cappedRanks = capped.map((e) => e.rank!);
    expect(cappedRanks).toEqual([...cappedRanks].sort((a, b) => b - a));
    const warning = sel.warnings.find((w) => w.code === 'SELECTION_CAPPED')!;
    expect(warning.message).toBe(
      `${capped.length} more file(s) matched the task less well and were left out of the working set (listed with their rank in the target selection)`,
    );
  });

  it('says the classpath is not resolved only where JVM sources exist', async () => {
    const py = await select('`merge_options` keeps None values');
    expect(py.warnings.map((w) => w.code)).not.toContain('SYMBOL_RESOLUTION_PARTIAL');
    const java = await createMemoryRepo({ ...FILES, 'jvm/src/main/java/a/Options.java': 'class Options { void mergeOptions() {} }\n' });
    const javaMap = await buildRepoMap({ workspace: java.workspace, owner: 'acme', repo: 'kite', rules, policyDigest: 'p1' });
    const contents = new FileContents(java.workspace);
    const task = parseTask({ title: '`merge_options` keeps None values', body: '', source: 'github' });
    const sel = await selectTargets({ workspace: java.workspace, task, map: javaMap, rules, syntax, contents, symbols: new SymbolIndex(syntax, contents) });
    expect(sel.warnings.find((w) => w.code === 'SYMBOL_RESOLUTION_PARTIAL')?.message).toContain('the classpath is not resolved');
  });
});
