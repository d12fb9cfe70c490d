import { describe, expect, it } from 'vitest';
import { overriddenPackage, parsePackageJson, parsePnpmWorkspace } from '../../../src/core/manifests/npm-manifests.js';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';

/** The 1-based line of the first line containing `needle` (counted here, apart from the parser). */
function lineWith(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line with ${needle}`);
  return i + 1;
}

// The shape of a web app's package.json in a workspace: sections, a workspace link, overrides.
const PACKAGE = `{
  "name": "@acme/storefront",
  "version": "2.8.0",
  "private": true,
  "workspaces": ["packages/*"],
  "scripts": { "build": "vite build", "test": "vitest run" },
  "dependencies": {
    "@acme/ui": "workspace:^",
    "react": "^18.2.0",
    "react-dom": "^18.2.0",
    "local-config": "file:../config"
  },
  "devDependencies": {
    "typescript": "~5.4.5",
    "vite": "5.2.8"
  },
  "peerDependencies": { "react-router": ">=6" },
  "overrides": {
    "semver": "7.6.0",
    "react-dom": "$react-dom",
    "@babel/traverse": { ".": "7.24.1", "debug": "4.3.4" }
  },
  "resolutions": {
    "**/@types/react": "18.2.79",
    "webpack/terser@^5": "5.30.3"
  },
  "pnpm": {
    "overrides": { "foo>postcss": "8.4.38" }
  }
}
`;
const parsed = parsePackageJson(PACKAGE, 'apps/storefront/package.json');
const at = (needle: string) => ({ path: 'apps/storefront/package.json', line: lineWith(PACKAGE, needle) });
const find = (name: string, scope: string) => parsed.dependencies.find((d) => d.name === name && d.scope === scope);

describe('parsePackageJson', () => {
  it('every dependency section, each entry with its line; versionAt only for a registry version', () => {
    expect(parsed.dependencies.filter((d) => !['overrides', 'resolutions', 'pnpm.overrides'].includes(d.scope!))).toEqual([
      { name: '@acme/ui', version: 'workspace:^', scope: 'dependencies', kind: 'workspace', line: lineWith(PACKAGE, '"@acme/ui"') },
      { name: 'react', version: '^18.2.0', scope: 'dependencies', kind: 'dependency', line: lineWith(PACKAGE, '"react"'), versionAt: at('"react"') },
      {
        name: 'react-dom',
        version: '^18.2.0',
        scope: 'dependencies',
        kind: 'dependency',
        line: lineWith(PACKAGE, '"react-dom"'),
        versionAt: at('"react-dom"'),
      },
      { name: 'local-config', version: 'file:../config', scope: 'dependencies', kind: 'path', target: '../config', line: lineWith(PACKAGE, '"local-config"') },
      {
        name: 'typescript',
        version: '~5.4.5',
        scope: 'devDependencies',
        kind: 'dependency',
        line: lineWith(PACKAGE, 'typescript'),
        versionAt: at('typescript'),
      },
      { name: 'vite', version: '5.2.8', scope: 'devDependencies', kind: 'dependency', line: lineWith(PACKAGE, '"vite":'), versionAt: at('"vite":') },
      {
        name: 'react-router',
        version: '>=6',
        scope: 'peerDependencies',
        kind: 'dependency',
        line: lineWith(PACKAGE, 'react-router'),
        versionAt: at('react-router'),
      },
    ]);
    expect(parsed.members).toEqual(['packages/*']);
    expect(parsed.scripts).toEqual({ build: 'vite build', test: 'vitest run' });
  });

  it('overrides, resolutions and pnpm.overrides: top-level string values, named by the package they pin', () => {
    expect(find('semver', 'overrides')).toEqual({
      name: 'semver',
      version: '7.6.0',
      scope: 'overrides',
      kind: 'dependency',
      line: 19,
      versionAt: at('"semver"'),
    });
    // `$react-dom` takes the direct dependency's version: that line is the one a bump edits.
    expect(find('react-dom', 'overrides')).toEqual({
      name: 'react-dom',
      version: '$react-dom',
      resolvedVersion: '^18.2.0',
      versionRef: 'react-dom',
      scope: 'overrides',
      kind: 'dependency',
      line: 20,
      versionAt: at('"react-dom"'),
    });
    expect(find('@babel/traverse', 'overrides')).toBeUndefined();
    expect(find('@types/react', 'resolutions')).toMatchObject({ version: '18.2.79', line: 24, versionAt: at('@types/react') });
    expect(find('terser', 'resolutions')).toMatchObject({ version: '5.30.3', line: 25 });
    expect(find('postcss', 'pnpm.overrides')).toMatchObject({ version: '8.4.38', line: 28, versionAt: at('postcss') });
  });

  it('override keys name the package they pin', () => {
    expect(['**/@types/react', 'webpack/terser@^5', 'foo>postcss', 'postcss@<8', '@scope/pkg', 'a>@scope/pkg@1'].map(overriddenPackage)).toEqual([
      '@types/react',
      'terser',
      'postcss',
      'postcss',
      '@scope/pkg',
      '@scope/pkg',
    ]);
  });

  it('a pnpm catalog: reference names its catalog and has no versionAt in package.json', () => {
    const text = '{\n  "dependencies": {\n    "react": "catalog:",\n    "vue": "catalog:legacy"\n  }\n}\n';
    expect(parsePackageJson(text, 'package.json').dependencies).toEqual([
      { name: 'react', version: 'catalog:', scope: 'dependencies', kind: 'dependency', line: 3, versionRef: 'catalog:' },
      { name: 'vue', version: 'catalog:legacy', scope: 'dependencies', kind: 'dependency', line: 4, versionRef: 'catalog:legacy' },
    ]);
  });

  it('workspaces in the {packages: [...]} form; malformed JSON is reported', () => {
    expect(parsePackageJson('{"workspaces": {"packages": ["apps/*", "libs/*"], "nohoist": ["**/x"]}}', 'package.json').members).toEqual(['apps/*', 'libs/*']);
    expect(parseManifest('package.json', '{ "name": ', 'package.json').parseError).toBeTruthy();
  });
});

describe('parsePnpmWorkspace', () => {
  it('member globs and catalog versions with their lines', () => {
    const text = `packages:
  - 'apps/*'
  - 'packages/*'

catalog:
  react: ^18.3.1
  zod: 3.23.8

catalogs:
  legacy:
    react: ^17.0.2
`;
    const ws = parsePnpmWorkspace(text, 'pnpm-workspace.yaml');
    expect(ws.members).toEqual(['apps/*', 'packages/*']);
    expect(ws.dependencies).toEqual([
      { name: 'react', version: '^18.3.1', scope: 'catalog', kind: 'dependency', line: 6, versionAt: { path: 'pnpm-workspace.yaml', line: 6 } },
      { name: 'zod', version: '3.23.8', scope: 'catalog', kind: 'dependency', line: 7, versionAt: { path: 'pnpm-workspace.yaml', line: 7 } },
      { name: 'react', version: '^17.0.2', scope: 'catalog:legacy', kind: 'dependency', line: 11, versionAt: { path: 'pnpm-workspace.yaml', line: 11 } },
    ]);
    expect(parseManifest('pnpm-workspace', 'packages: [\n', 'pnpm-workspace.yaml').parseError).toBeTruthy();
  });
});
