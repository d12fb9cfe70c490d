import { build } from 'esbuild';
import { ESLint } from 'eslint';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The dependency rule (docs/architecture.md) is enforced by eslint.config.js; these tests keep
// the rule itself honest: each probe breaks it once, in a file placed in the layer it targets.
const RULE = 'draftsman/layer-boundaries';
const AMBIENT_RULES = ['no-restricted-globals', 'no-restricted-syntax'];
// Probes are files that do not exist on disk, which a type-aware parse cannot place in the
// project: both instances run the project's configuration without the type-aware rules
// (`npm run lint` runs those).
const untyped = {
  languageOptions: { parserOptions: { projectService: false } },
  rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/switch-exhaustiveness-check': 'off' },
} as const;
const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: untyped });
/**
 * The same configuration without import-x/no-cycle, for the probes and the whole-tree pass that
 * count only the layer and ambient rules: the cycle rule follows every import of every file a
 * probe reaches (a probe importing a handler parses most of src), which was most of this file's
 * time. `npm run lint` runs the cycle rule over src, and its own probes below use `eslint`.
 */
const layersOnly = new ESLint({ cwd: process.cwd(), overrideConfig: { ...untyped, rules: { ...untyped.rules, 'import-x/no-cycle': 'off' } } });

async function problems(source: string, filePath: string, rules: string[] = [RULE]): Promise<string[]> {
  const [result] = await layersOnly.lintText(`${source}\nexport const probe = 1;\n`, { filePath });
  // A parse error would also make a probe "fail": surface it instead of counting it.
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => rules.includes(m.ruleId ?? '')).map((m) => m.message);
}

describe('architecture: the linter refuses imports that break the dependency rule', () => {
  it.each([
    ['core -> app', 'src/core/pipeline/probe.ts', "import { JsonLogger } from '../../app/logger.js';"],
    ['core -> handlers', 'src/core/probe.ts', "import { handler } from '../handlers/worker.js';"],
    ['core -> node:http', 'src/core/git/probe.ts', "import { createServer } from 'node:http';"],
    ['core -> node:child_process', 'src/core/probe.ts', "import { spawn } from 'node:child_process';"],
    ['core -> fs (bare builtin name)', 'src/core/probe.ts', "import { readFileSync } from 'fs';"],
    ['core dynamic import(node:fs)', 'src/core/workspace/probe.ts', "export const load = () => import('node:fs');"],
    ['core dynamic import of a computed name', 'src/core/probe.ts', 'export const load = (name: string) => import(name);'],
    ['core -> @aws-sdk', 'src/core/artifacts/probe.ts', "export { S3Client } from '@aws-sdk/client-s3';"],
    ['core -> @octokit', 'src/core/probe.ts', "import { Octokit } from '@octokit/rest';"],
    ['core -> probot', 'src/core/probe.ts', "import { Probot } from 'probot';"],
    ['core -> isomorphic-git transport', 'src/core/ingestion/probe.ts', "import http from 'isomorphic-git/http/node';"],
    ['app -> handlers', 'src/app/worker/probe.ts', "import { handler } from '../../handlers/worker.js';"],
  ])('%s is refused', async (_rule, filePath, source) => {
    expect(await problems(source, filePath)).toHaveLength(1);
  });

  it.each([
    ['core -> node:crypto', 'src/core/probe.ts', "import { createHash } from 'node:crypto';"],
    ['core -> node:zlib', 'src/core/probe.ts', "import { inflateSync } from 'node:zlib';"],
    [
      'core -> core and pure packages',
      'src/core/git/probe.ts',
      "import { AgentError } from '../errors.js';\nimport git from 'isomorphic-git';\nimport { z } from 'zod';",
    ],
    [
      'app -> node:fs, core and app',
      'src/app/worker/probe.ts',
      "import { readFile } from 'node:fs/promises';\nimport { AgentError } from '../../core/errors.js';\nimport { JsonLogger } from '../logger.js';",
    ],
    ['handlers -> app', 'src/handlers/probe.ts', "import { JsonLogger } from '../app/logger.js';"],
  ])('%s is allowed', async (_rule, filePath, source) => {
    expect(await problems(source, filePath)).toEqual([]);
  });

  it('the real src/core and src/app pass', async () => {
    const results = await layersOnly.lintFiles(['src/core/**/*.ts', 'src/app/**/*.ts']);
    const found = results.flatMap((r) =>
      r.messages.filter((m) => [RULE, ...AMBIENT_RULES].includes(m.ruleId ?? '') || m.fatal).map((m) => `${r.filePath}:${m.line}: ${m.message}`),
    );
    expect(found).toEqual([]);
    expect(results.length).toBeGreaterThan(100);
  });
});

describe('architecture: src/core keeps its floor plan', () => {
  // Each probe is placed in the folder it names and imports one folder: down is allowed, up or
  // across a floor is refused, and a folder the plan does not know is refused until it is given a floor.
  it.each([
    ['ports -> ingestion (up)', 'src/core/probe.ts', "import type { PackCatalog } from './ingestion/pack-catalog.js';"],
    ['util -> objects (same floor)', 'src/core/util/probe.ts', "import { ZERO_OID } from '../objects/object-format.js';"],
    ['paths -> repomap (up)', 'src/core/paths/probe.ts', "import type { RepoMap } from '../repomap/repo-map-schema.js';"],
    ['git -> phases (same floor)', 'src/core/git/probe.ts', "import { evaluateScope } from '../phases/scope-guard.js';"],
    ['publish -> pipeline (up, type only)', 'src/core/publish/probe.ts', "import type { PipelineDeps } from '../pipeline/run-pipeline.js';"],
    ['task -> runs (up, dynamic)', 'src/core/task/probe.ts', "export const load = () => import('../runs/run-status.js');"],
    ['a folder with no floor', 'src/core/newfolder/probe.ts', "import { AgentError } from '../errors.js';"],
  ])('%s is refused', async (_rule, filePath, source) => {
    expect(await problems(source, filePath)).toHaveLength(1);
  });

  it.each([
    ['pipeline -> publish (down)', 'src/core/pipeline/probe.ts', "import type { Publisher } from '../publish/publication.js';"],
    ['risk -> paths (down)', 'src/core/risk/probe.ts', "import { defaultPathRules } from '../paths/path-rules.js';"],
    ['within a folder', 'src/core/git/probe.ts', "import { commitTree } from './git-objects.js';"],
    ['any floor -> errors', 'src/core/objects/probe.ts', "import { AgentError } from '../errors.js';"],
  ])('%s is allowed', async (_rule, filePath, source) => {
    expect(await problems(source, filePath)).toEqual([]);
  });

  it('every folder of src/core has exactly one floor', async () => {
    const entries = await readdir('src/core', { withFileTypes: true });
    const folders = entries.map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.ts$/, ''))).sort();
    const config = await eslint.calculateConfigForFile('src/core/probe.ts');
    const floors = (config.rules[RULE] as [string, { coreFloors: string[][] }])[1].coreFloors;
    expect(floors.flat().sort()).toEqual(folders);
  });
});

describe('architecture: no import cycle', () => {
  // Two modules on disk that import each other at run time: the cycle rule must see it.
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join('src', 'core', 'util', 'cycle-probe-'));
    await writeFile(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b();\n");
    await writeFile(join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = (): unknown => a;\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a runtime cycle between two modules is refused', async () => {
    const [result] = await eslint.lintFiles([join(dir, 'a.ts')]);
    expect(result.messages.filter((m) => m.ruleId === 'import-x/no-cycle')).toHaveLength(1);
  });

  it('a module imported one way only passes', async () => {
    await writeFile(join(dir, 'b.ts'), 'export const b = (): unknown => 1;\n');
    const [result] = await eslint.lintFiles([join(dir, 'a.ts')]);
    expect(result.messages.filter((m) => m.ruleId === 'import-x/no-cycle')).toEqual([]);
    expect(relative('src/core/util', dir)).toMatch(/^cycle-probe-/);
  });
});

describe('architecture: src/core reads no clock, no randomness and no environment', () => {
  it.each([
    ['process.env', 'export const region = process.env.AWS_REGION;'],
    ['Date.now()', 'export const now = Date.now();'],
    ['new Date()', 'export const today = new Date();'],
    ['Math.random()', 'export const id = Math.random();'],
    ['global fetch', "export const get = () => fetch('https://example.com');"],
  ])('%s is refused in src/core and allowed in src/app', async (_what, source) => {
    expect(await problems(source, 'src/core/probe.ts', AMBIENT_RULES)).toHaveLength(1);
    expect(await problems(source, 'src/app/probe.ts', AMBIENT_RULES)).toEqual([]);
  });

  it('a date from a value is allowed in src/core', async () => {
    expect(await problems('export const at = (ms: number) => new Date(ms).toISOString();', 'src/core/probe.ts', AMBIENT_RULES)).toEqual([]);
  });
});

describe('architecture: only the token functions bundle key handling', () => {
  // What each Lambda bundle contains, from esbuild's own account of its inputs (the same
  // bundler and entries as scripts/build.mjs), so a stray import cannot hide behind minifying.
  const KEY_HANDLING = [
    /node_modules\/@octokit\/auth-app\//,
    /node_modules\/universal-github-app-jwt\//,
    /^src\/app\/tokens\/(mint-installation-token|token-handler)\.ts$/,
  ];
  const TOKEN_FUNCTIONS = ['token-read', 'token-write'];
  let inputs: Map<string, { path: string; importers: string[] }[]>;
  const importsOf = new Map<string, string[]>();
  /** What `entry` reaches without passing through a module under `skip`. */
  const reachable = (entry: string, skip: string): Set<string> => {
    const seen = new Set<string>();
    const walk = (path: string): void => {
      if (seen.has(path) || path.startsWith(skip)) return;
      seen.add(path);
      for (const next of importsOf.get(path) ?? []) walk(next);
    };
    walk(entry);
    return seen;
  };

  beforeAll(async () => {
    const entries = (await readdir('src/handlers')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, ''));
    const result = await build({
      entryPoints: entries.map((name) => ({ in: `src/handlers/${name}.ts`, out: name })),
      outdir: 'dist-probe',
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      logLevel: 'silent',
      external: ['web-tree-sitter/tree-sitter.wasm'],
    });
    const importersOf = new Map<string, string[]>();
    for (const [path, input] of Object.entries(result.metafile.inputs)) {
      for (const imported of input.imports) importersOf.set(imported.path, [...(importersOf.get(imported.path) ?? []), path]);
      importsOf.set(
        path,
        input.imports.map((i) => i.path),
      );
    }
    inputs = new Map(
      Object.values(result.metafile.outputs)
        .filter((o) => o.entryPoint)
        .map((o) => [
          o.entryPoint!.replace(/^src\/handlers\/|\.ts$/g, ''),
          Object.keys(o.inputs).map((path) => ({ path, importers: (importersOf.get(path) ?? []).filter((importer) => importer in o.inputs) })),
        ]),
    );
  }, 120_000);

  it('token-read and token-write bundle @octokit/auth-app and the minting code', () => {
    for (const name of TOKEN_FUNCTIONS) {
      const paths = inputs.get(name)!.map((i) => i.path);
      for (const pattern of KEY_HANDLING)
        expect(
          paths.some((p) => pattern.test(p)),
          `${name} ${pattern}`,
        ).toBe(true);
    }
  });

  it('no other function bundles key handling (the intake only through Probot, which gets no key)', () => {
    const others = [...inputs.keys()].filter((name) => !TOKEN_FUNCTIONS.includes(name));
    // `draftsman serve` is the App in one process on a developer's machine and mints its own
    // tokens (and `doctor`, under src/app/serve/, checks that setup's key with GitHub); every
    // other CLI command must reach no key handling.
    const cliWithoutServe = reachable('src/handlers/cli.ts', 'src/app/serve/');
    expect(others).toEqual(expect.arrayContaining(['worker', 'publisher', 'webhook', 'intake', 'sweeper', 'cli']));
    const found = others.flatMap((name) =>
      inputs
        .get(name)!
        .filter((input) => KEY_HANDLING.some((pattern) => pattern.test(input.path)))
        // Probot's own auth strategy (octokit-auth-probot) always imports auth-app; the intake
        // gives Probot no private key, so that code never signs anything. The webhook has no Probot.
        .filter(
          (input) =>
            !(name === 'intake' && input.importers.every((p) => /node_modules\/(octokit-auth-probot|@octokit\/auth-app|universal-github-app-jwt)\//.test(p))),
        )
        .filter((input) => !(name === 'cli' && !cliWithoutServe.has(input.path)))
        .map((input) => `${name}: ${input.path} (imported by ${input.importers.join(', ')})`),
    );
    expect(found).toEqual([]);
  });
});
