import { describe, expect, it } from 'vitest';
import { parseGoMod } from '../../../src/core/manifests/go-manifests.js';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

// The shape of a service module's go.mod (toolchain line, direct block, `// indirect` block, replaces).
const GO_MOD = `module github.com/acme/ledger

go 1.22.1

toolchain go1.22.3

require (
	github.com/go-chi/chi/v5 v5.0.12
	github.com/jackc/pgx/v5 v5.5.5 // pinned: see #412
	google.golang.org/grpc v1.63.2
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/puddle/v2 v2.2.1 // indirect; pulled in by pgx
	golang.org/x/crypto v0.22.0 // indirect
)

require github.com/stretchr/testify v1.9.0

exclude golang.org/x/net v0.20.0

replace (
	github.com/acme/ledger/proto => ./proto
	golang.org/x/crypto v0.22.0 => github.com/acme-forks/crypto v0.22.1-acme.1
)

replace google.golang.org/grpc => /home/dev/grpc-go

retract v1.0.1 // published by mistake
`;

const parsed = parseGoMod(GO_MOD, 'services/ledger/go.mod');
const at = (line: number) => ({ path: 'services/ledger/go.mod', line });
const byName = (name: string) => parsed.dependencies.filter((d) => d.name === name);

describe('parseGoMod', () => {
  it('requirements with their lines; `// indirect` marked, other comments not', () => {
    expect(parsed.name).toBe('github.com/acme/ledger');
    expect(parsed.facts).toEqual({ go: '1.22.1', toolchain: 'go1.22.3' });
    expect(byName('github.com/jackc/pgx/v5')).toEqual([{ name: 'github.com/jackc/pgx/v5', version: 'v5.5.5', kind: 'dependency', line: 9, versionAt: at(9) }]);
    expect(byName('github.com/jackc/pgpassfile')).toEqual([
      { name: 'github.com/jackc/pgpassfile', version: 'v1.0.0', kind: 'dependency', line: 14, versionAt: at(14), indirect: true },
    ]);
    expect(byName('github.com/jackc/puddle/v2')[0]).toMatchObject({ indirect: true, line: 15 });
    expect(byName('github.com/stretchr/testify')).toEqual([
      { name: 'github.com/stretchr/testify', version: 'v1.9.0', kind: 'dependency', line: 19, versionAt: at(19) },
    ]);
    expect(parsed.dependencies.filter((d) => d.indirect).map((d) => d.name)).toEqual([
      'github.com/jackc/pgpassfile',
      'github.com/jackc/puddle/v2',
      'golang.org/x/crypto',
    ]);
  });

  it('replace: a local path stays a path dependency; a module replacement is listed with its version; exclude and absolute paths add nothing', () => {
    expect(byName('github.com/acme/ledger/proto')).toEqual([{ name: 'github.com/acme/ledger/proto', kind: 'path', target: './proto', line: 24 }]);
    expect(byName('github.com/acme-forks/crypto')).toEqual([
      { name: 'github.com/acme-forks/crypto', version: 'v0.22.1-acme.1', scope: 'replace', kind: 'dependency', line: 25, versionAt: at(25) },
    ]);
    expect(byName('golang.org/x/net')).toEqual([]);
    expect(byName('google.golang.org/grpc')).toHaveLength(1);
    expect(parsed.dependencies).toHaveLength(9);
  });

  it('a malformed go.mod is reported with its line', () => {
    expect(parseManifest('go.mod', 'module x\n\nrequire (\n\tgithub.com/a/b v1.0.0\n', 'go.mod').parseError).toBe('line 3: the require block is never closed');
    expect(() => parseGoMod('module x\nrequire github.com/a/b\n', 'go.mod')).toThrow('line 2: require needs a module path and a version');
    expect(() => parseGoMod('go 1.22\n', 'go.mod')).toThrow('go.mod has no module directive');
  });

  it("a nested module's go.mod is its own manifest: its requirements stay out of the root's", async () => {
    const repo = await createMemoryRepo({
      'go.mod': 'module github.com/acme/svc\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n',
      'main.go': 'package main\n\nfunc main() {}\n',
      'tools/go.mod':
        'module github.com/acme/svc/tools\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/tools v0.20.0\n\tgithub.com/golangci/golangci-lint v1.57.2 // indirect\n)\n',
      'tools/tools.go': '//go:build tools\n\npackage tools\n',
    });
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'svc', rules: pathRulesFor({}), policyDigest: 'p' });
    const names = (path: string) => map.manifests.find((m) => m.path === path)!.dependencies.map((d) => d.name);
    expect(names('go.mod')).toEqual(['github.com/google/uuid']);
    expect(names('tools/go.mod')).toEqual(['golang.org/x/tools', 'github.com/golangci/golangci-lint']);
    expect(map.manifests.find((m) => m.path === 'tools/go.mod')!.dependencies[1]).toMatchObject({
      indirect: true,
      versionAt: { path: 'tools/go.mod', line: 7 },
    });
  });
});
