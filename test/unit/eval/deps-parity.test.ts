import { describe, expect, it } from 'vitest';
import {
  compareRepo,
  extractionFromLog,
  formatParity,
  normaliseName,
  pep503,
  totalsOf,
  versionClass,
  type MapManifest,
  type RenovateExtraction,
} from '../../../eval/deps/parity.js';

/** A Renovate JSON log as `LOG_FORMAT=json renovate --platform=local --dry-run=extract` writes it: one record a line. */
function renovateLog(packageFiles: RenovateExtraction): string {
  const base = { name: 'renovate', hostname: 'vm', pid: 1, logContext: 'x', repository: 'local', time: '2026-01-01T00:00:00.000Z', v: 0 };
  return [
    { ...base, level: 30, renovateVersion: '39.264.1', msg: 'Repository started' },
    { ...base, level: 30, baseBranch: '', stats: { managers: {}, total: { fileCount: 1, depCount: 1 } }, msg: 'Dependency extraction complete' },
    { ...base, level: 30, packageFiles, msg: 'Extracted dependencies' },
    { ...base, level: 30, msg: 'Repository finished' },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
}

const npmExtraction: RenovateExtraction = {
  npm: [
    {
      packageFile: 'packages/app/package.json',
      deps: [
        { depName: 'react', currentValue: '^18.2.0', depType: 'dependencies', datasource: 'npm' },
        { depName: 'react', currentValue: '>=17', depType: 'peerDependencies', datasource: 'npm' },
        { depName: 'vitest', currentValue: '^1.0.0', depType: 'devDependencies', datasource: 'npm' },
        { depName: 'node', currentValue: '>=20', depType: 'engines', datasource: 'node-version' },
        { depName: 'pnpm', currentValue: '9.1.0', depType: 'packageManager', datasource: 'npm' },
      ],
    },
  ],
  'github-actions': [{ packageFile: '.github/workflows/ci.yml', deps: [{ depName: 'actions/checkout', currentValue: 'v4', depType: 'action' }] }],
};

const npmManifests: MapManifest[] = [
  {
    path: 'packages/app/package.json',
    kind: 'package.json',
    dependencies: [
      { name: 'react', version: '>=17', scope: 'peerDependencies', kind: 'dependency' },
      { name: 'react', version: '^18.2.0', scope: 'dependencies', kind: 'dependency' },
      { name: 'left-pad', version: '1.0.0', scope: 'dependencies', kind: 'dependency' },
    ],
  },
];

describe('eval:deps: reading Renovate and comparing with the map', () => {
  it('reads packageFiles from the "Extracted dependencies" record of a JSON log, and says when there is none', () => {
    expect(extractionFromLog(renovateLog(npmExtraction))).toEqual(npmExtraction);
    expect(() => extractionFromLog('{"msg":"Repository started"}\n')).toThrow(/Extracted dependencies/);
  });

  it('normalises Python names by PEP 503 (case, runs of - _ ., extras) and Maven coordinates by their colon', () => {
    expect(pep503('Zope.Interface')).toBe('zope-interface');
    expect(pep503('typing__extensions')).toBe('typing-extensions');
    expect(pep503('requests[security,socks]')).toBe('requests');
    expect(normaliseName('pip_requirements', 'Sphinx_RTD.theme')).toBe('sphinx-rtd-theme');
    expect(normaliseName('maven', 'com.example : lib')).toBe('com.example:lib');
    // npm names are compared as written: case matters there.
    expect(normaliseName('npm', 'React')).not.toBe(normaliseName('npm', 'react'));
  });

  it('pairs a name declared twice in one file by section, so each Renovate dep matches its own declaration', () => {
    const r = compareRepo('o/n', 'c', npmExtraction, npmManifests);
    expect(r.managers.npm).toEqual({ renovate: 5, excluded: 2, counted: 3, matched: 2 });
    // Paired by type, the two react versions agree with their own sections: no disagreement.
    expect(r.versions).toEqual([]);
    expect(r.misses).toEqual([
      { manager: 'npm', packageFile: 'packages/app/package.json', name: 'vitest', depType: 'devDependencies', currentValue: '^1.0.0', reason: 'name-absent' },
    ]);
  });

  it('lists every exclusion with its count and every unclaimed manager, never dropping them silently', () => {
    const r = compareRepo('o/n', 'c', npmExtraction, npmManifests);
    expect(r.exclusions).toEqual({ 'npm-engines': 1, 'npm-package-manager': 1 });
    expect(r.unclaimed).toEqual({ 'github-actions': { files: 1, deps: 1 } });
    const text = formatParity([r]);
    expect(text).toContain('npm npm-engines: 1 — engines');
    expect(text).toContain('npm npm-package-manager: 1 — packageManager field');
    expect(text).toContain('gomod gomod-golang: 0');
    expect(text).toContain('github-actions 1 deps in 1 files');
  });

  it('recall is matched over counted, excluded deps out of the denominator, summed over repositories', () => {
    const a = compareRepo('o/a', 'c1', npmExtraction, npmManifests);
    const b = compareRepo('o/b', 'c2', { npm: [{ packageFile: 'package.json', deps: [{ depName: 'x', currentValue: '1', depType: 'dependencies' }] }] }, [
      { path: 'package.json', kind: 'package.json', dependencies: [{ name: 'x', version: '1', scope: 'dependencies', kind: 'dependency' }] },
    ]);
    const t = totalsOf([a, b]);
    expect(t.managers.npm).toEqual({ renovate: 6, excluded: 2, counted: 4, matched: 3, recall: 0.75 });
    expect(t.exclusions['npm-engines']).toBe(1);
    const table = formatParity([a, b]);
    expect(table).toMatch(/npm\s+6\s+2\s+4\s+3\s+75\.0%\s+below 98\.0%/);
  });

  it('matches a Gradle dependency through the file its version is written in (a catalog), and a plugin by its id', () => {
    const extraction: RenovateExtraction = {
      gradle: [
        {
          packageFile: 'gradle/libs.versions.toml',
          deps: [
            { depName: 'com.squareup.okio:okio', currentValue: '3.9.0', datasource: 'maven' },
            {
              depName: 'org.jetbrains.kotlin.jvm',
              packageName: 'org.jetbrains.kotlin.jvm:org.jetbrains.kotlin.jvm.gradle.plugin',
              currentValue: '2.0.0',
              depType: 'plugin',
            },
          ],
        },
      ],
    };
    const manifests: MapManifest[] = [
      {
        path: 'app/build.gradle.kts',
        kind: 'gradle-build',
        dependencies: [
          {
            name: 'com.squareup.okio:okio',
            version: 'libs.okio',
            resolvedVersion: '3.9.0',
            kind: 'dependency',
            scope: 'implementation',
            versionAt: { path: 'gradle/libs.versions.toml', line: 3 },
          },
          { name: 'org.jetbrains.kotlin.jvm', version: '2.0.0', kind: 'plugin', versionAt: { path: 'gradle/libs.versions.toml', line: 9 } },
        ],
      },
      {
        path: 'gradle/libs.versions.toml',
        kind: 'gradle-catalog',
        dependencies: [{ name: 'com.squareup.okio:okio', version: '3.9.0', kind: 'dependency', versionAt: { path: 'gradle/libs.versions.toml', line: 3 } }],
      },
    ];
    const r = compareRepo('o/n', 'c', extraction, manifests);
    expect(r.managers.gradle.matched).toBe(2);
    expect(r.versions).toEqual([]);
    // The catalog's own entry pairs first; the script's use of it is a second declaration, not an unknown extra.
    expect(r.extras).toEqual([
      {
        path: 'app/build.gradle.kts',
        kind: 'gradle-build',
        name: 'com.squareup.okio:okio',
        depKind: 'dependency',
        scope: 'implementation',
        reason: 'second-declaration',
      },
    ]);
  });

  it('says why a dep was missed: no map manifest at that path, a manifest that did not parse, or no such name', () => {
    const extraction: RenovateExtraction = {
      pip_requirements: [
        { packageFile: 'dev-requirements.txt', deps: [{ depName: 'tox' }] },
        { packageFile: 'requirements.txt', deps: [{ depName: 'Flask', currentValue: '==3.0.0' }] },
      ],
      poetry: [
        {
          packageFile: 'pyproject.toml',
          deps: [
            { depName: 'httpx', currentValue: '^0.27', depType: 'dependencies' },
            { depName: 'python', currentValue: '^3.9', depType: 'dependencies' },
          ],
        },
      ],
    };
    const manifests: MapManifest[] = [
      { path: 'requirements.txt', kind: 'requirements', dependencies: [{ name: 'flask', version: '==3.0.0', kind: 'dependency' }] },
      { path: 'pyproject.toml', kind: 'pyproject', parseError: 'line 3: invalid TOML', dependencies: [] },
    ];
    const r = compareRepo('o/n', 'c', extraction, manifests);
    expect(r.managers.pip_requirements).toEqual({ renovate: 2, excluded: 0, counted: 2, matched: 1 });
    expect(r.managers.poetry).toEqual({ renovate: 2, excluded: 1, counted: 1, matched: 0 });
    expect(r.misses.map((m) => [m.packageFile, m.name, m.reason])).toEqual([
      ['dev-requirements.txt', 'tox', 'no-manifest'],
      ['pyproject.toml', 'httpx', 'parse-error'],
    ]);
  });

  it('classes version disagreements and ignores whitespace and quotes', () => {
    expect(versionClass('>=1.0,<2', '>= 1.0, <2')).toBeUndefined();
    expect(versionClass('4.11.0', '${version.mockito}')).toBe('map-unresolved-reference');
    expect(versionClass(undefined, '1.0')).toBe('renovate-has-none');
    expect(versionClass('1.0', undefined)).toBe('map-has-none');
    expect(versionClass('1.0', '2.0')).toBe('different');
    expect(versionClass('(>=2.0.1,<3.0.0)', '>=2.0.1,<3.0.0', 'pep621')).toBeUndefined();
    expect(versionClass('[1.0,2.0)', '[1.0,2.0]', 'maven')).toBe('different');
    expect(versionClass('^3.0.0', 'npm:slash@^3.0.0', 'npm')).toBe('npm-alias-prefix-kept');
    const r = compareRepo(
      'o/n',
      'c',
      { maven: [{ packageFile: 'pom.xml', deps: [{ depName: 'org.mockito:mockito-core', currentValue: '4.11.0', depType: 'test' }] }] },
      [
        {
          path: 'pom.xml',
          kind: 'maven',
          dependencies: [{ name: 'org.mockito:mockito-core', version: '${version.mockito}', scope: 'test', kind: 'dependency' }],
        },
      ],
    );
    expect(r.versions).toEqual([
      {
        manager: 'maven',
        packageFile: 'pom.xml',
        name: 'org.mockito:mockito-core',
        renovate: '4.11.0',
        draftsman: '${version.mockito}',
        klass: 'map-unresolved-reference',
      },
    ]);
  });

  it('pairs a go.mod local replace by its target path and never with the require of the same module', () => {
    const extraction: RenovateExtraction = {
      gomod: [
        {
          packageFile: 'examples/go.mod',
          deps: [
            { depName: 'go', currentValue: '1.24', depType: 'golang' },
            { depName: 'google.golang.org/grpc', currentValue: 'v1.83.0', depType: 'require' },
            { depName: '../', depType: 'replace', skipReason: 'local-dependency' },
          ],
        },
      ],
    };
    const r = compareRepo('o/n', 'c', extraction, [
      {
        path: 'examples/go.mod',
        kind: 'go.mod',
        dependencies: [
          { name: 'google.golang.org/grpc', kind: 'path', target: '..' },
          { name: 'google.golang.org/grpc', version: 'v1.83.0', kind: 'dependency' },
        ],
      },
    ]);
    expect(r.managers.gomod).toEqual({ renovate: 3, excluded: 1, counted: 2, matched: 2 });
    expect(r.versions).toEqual([]);
    expect(r.exclusions).toEqual({ 'gomod-golang': 1 });
  });

  it('counts package files the map leaves out on purpose (fixture directories) as an exclusion, with the files listed', () => {
    const extraction: RenovateExtraction = {
      poetry: [
        {
          packageFile: 'tests/fixtures/demo/pyproject.toml',
          deps: [
            { depName: 'pendulum', currentValue: '^2', depType: 'dependencies' },
            { depName: 'cleo', depType: 'dev' },
          ],
        },
        { packageFile: 'pyproject.toml', deps: [{ depName: 'Requests', currentValue: '^2.31', depType: 'dependencies' }] },
      ],
    };
    const manifests: MapManifest[] = [
      { path: 'pyproject.toml', kind: 'pyproject', dependencies: [{ name: 'requests', version: '^2.31', scope: 'dependencies', kind: 'dependency' }] },
    ];
    const r = compareRepo('o/n', 'c', extraction, manifests, { leftOut: (p) => p.startsWith('tests/fixtures/') });
    expect(r.managers.poetry).toEqual({ renovate: 3, excluded: 2, counted: 1, matched: 1 });
    expect(r.misses).toEqual([]);
    expect(r.leftOutFiles).toEqual(['tests/fixtures/demo/pyproject.toml']);
    expect(formatParity([r])).toContain('any map-left-out-path: 2 in 1 files');
  });

  it('classes extras: versionless (BOM-managed), unknown to Renovate, in files Renovate did not extract', () => {
    const r = compareRepo('o/n', 'c', { maven: [{ packageFile: 'pom.xml', deps: [] }] }, [
      {
        path: 'pom.xml',
        kind: 'maven',
        dependencies: [
          { name: 'org.junit.jupiter:junit-jupiter', scope: 'test', kind: 'dependency' },
          { name: 'org.jacoco:jacoco-maven-plugin', version: '0.8.12', kind: 'plugin' },
        ],
      },
      { path: 'sub/pom.xml', kind: 'maven', dependencies: [{ name: 'a:b', version: '1', kind: 'dependency' }] },
    ]);
    expect(r.extras.map((e) => [e.name, e.reason])).toEqual([
      ['org.junit.jupiter:junit-jupiter', 'no-version'],
      ['org.jacoco:jacoco-maven-plugin', 'absent'],
      ['a:b', 'unextracted-file'],
    ]);
  });
});
