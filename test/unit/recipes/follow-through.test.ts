import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { goNestedModuleRepo, pythonPackageRepo } from '../../fixtures/realistic-repos.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const migrate = (files: Record<string, string>, step: Record<string, unknown>) => runRecipeStep(syntax, files, { recipe: 'migrate-import', ...step });

const goFile = (pkg: string) =>
  `package ${pkg}\n\nimport (\n\t"fmt"\n\n\t"github.com/golang/protobuf/proto"\n)\n\nfunc Size(m proto.Message) string { return fmt.Sprint(proto.Size(m)) }\n`;

/** The nested-module Go repository, where both modules import the deprecated protobuf API. */
function goRepo(): Record<string, string> {
  const files = goNestedModuleRepo();
  files['go.mod'] = files['go.mod'].replace(
    '\tgithub.com/google/uuid v1.6.0\n',
    '\tgithub.com/golang/protobuf v1.5.4\n\tgithub.com/google/uuid v1.6.0\n\tgopkg.in/yaml.v3 v3.0.1\n',
  );
  files['internal/store/size.go'] = goFile('store');
  files['tools/size.go'] = goFile('tools');
  return files;
}

describe('migrate-import follow-through: Go modules', () => {
  const step = { from: 'github.com/golang/protobuf', to: 'google.golang.org/protobuf' };

  it('with a version, adds the require to each owning go.mod (sorted into the block, or a line of its own) and refreshes each go.sum in its module', async () => {
    const { changed, text, result } = await migrate(goRepo(), { ...step, version: '1.34.2' });
    expect(changed).toEqual(['go.mod', 'internal/store/size.go', 'tools/go.mod', 'tools/size.go']);
    // Nothing in the module imports the old module now: it becomes indirect, as `go mod tidy` keeps
    // a module a dependency still needs (tidy drops it otherwise), never deleted outright.
    expect(await text('go.mod')).toBe(
      goRepo()
        ['go.mod'].replace('\tgithub.com/golang/protobuf v1.5.4\n', '\tgithub.com/golang/protobuf v1.5.4 // indirect\n')
        .replace('\tgithub.com/google/uuid v1.6.0\n', '\tgithub.com/google/uuid v1.6.0\n\tgoogle.golang.org/protobuf v1.34.2\n'),
    );
    expect(await text('tools/go.mod')).toBe('module github.com/acme/svc/tools\n\ngo 1.22\n\nrequire google.golang.org/protobuf v1.34.2\n');
    expect(result.notes).toEqual(
      expect.arrayContaining([
        'go.mod: require github.com/golang/protobuf v1.5.4 is now `// indirect` (nothing in the module imports it); `go mod tidy` drops it unless a dependency needs it',
        'go.mod: added require google.golang.org/protobuf v1.34.2 for the new import google.golang.org/protobuf',
      ]),
    );
    expect(result.lockfilesToRefresh).toEqual([
      { lockfile: 'go.sum', command: 'go mod tidy' },
      { lockfile: 'tools/go.sum', command: 'go mod tidy (in tools)' },
    ]);
  });

  it('names the go.sum of every module whose Go files changed, a nested module included, without a version too', async () => {
    const { result } = await migrate(goRepo(), step);
    expect(result.lockfilesToRefresh).toEqual([
      { lockfile: 'go.sum', command: 'go mod tidy' },
      { lockfile: 'tools/go.sum', command: 'go mod tidy (in tools)' },
    ]);
  });

  it('keeps the old requirement while a file of the module still imports from it (a step scoped to one package)', async () => {
    const files = { ...goRepo(), 'cmd/svc/size.go': goFile('main') };
    const { text, result } = await migrate(files, { ...step, version: '1.34.2', paths: ['internal', 'go.mod'] });
    expect(await text('go.mod')).toContain('\tgithub.com/golang/protobuf v1.5.4\n');
    expect(await text('go.mod')).toContain('\tgoogle.golang.org/protobuf v1.34.2\n');
    expect(result.notes).toContain('go.mod:7 still requires github.com/golang/protobuf v1.5.4; `go mod tidy` drops it once nothing imports it');
  });

  it('without a version, names each go.mod and the requirement to add, and edits none', async () => {
    const { changed, result } = await migrate(goRepo(), step);
    expect(changed).toEqual(['internal/store/size.go', 'tools/size.go']);
    expect(result.notes).toContain(
      'tools/go.mod does not require google.golang.org/protobuf, so the change does not build: add `require google.golang.org/protobuf <version>` (or run `go get google.golang.org/protobuf` in tools)',
    );
  });

  it('a move to the standard library or inside an already required module needs nothing', async () => {
    const files = {
      'go.mod': 'module example.com/app\n\ngo 1.22\n\nrequire github.com/jackc/pgx/v5 v5.5.0\n',
      'db.go': 'package app\n\nimport "golang.org/x/net/context"\nimport "github.com/jackc/pgx/v4"\n',
    };
    expect((await migrate(files, { from: 'golang.org/x/net/context', to: 'context' })).result.notes.filter((n) => n.includes('go.mod'))).toEqual([]);
    const pgx = await migrate(files, { from: 'github.com/jackc/pgx/v4', to: 'github.com/jackc/pgx/v5/pgxpool', version: 'v5.5.0' });
    expect(pgx.changed).toEqual(['db.go']);
  });
});

describe('migrate-import follow-through: package.json', () => {
  const pkg = (deps: Record<string, string>) => `${JSON.stringify({ name: '@acme/web', version: '0.1.0', dependencies: deps }, null, 2)}\n`;
  const files = () => ({
    'package.json': `${JSON.stringify({ name: 'acme', private: true, workspaces: ['packages/*'], devDependencies: { typescript: '5.4.0' } }, null, 2)}\n`,
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'packages/web/package.json': pkg({ '@acme/core': 'workspace:*', express: '^4.19.2', moment: '^2.30.1' }),
    'packages/web/src/date.ts': "import moment from 'moment';\nimport { add } from '@acme/core';\nexport const now = () => moment().format();\n",
  });

  it('with a version, adds the package to the nearest package.json in order and drops the old one nothing imports; the lockfile refreshes at the workspace root', async () => {
    const { text, result } = await migrate(files(), { from: 'moment', to: 'dayjs', version: '^1.11.13' });
    expect(await text('packages/web/package.json')).toBe(pkg({ '@acme/core': 'workspace:*', dayjs: '^1.11.13', express: '^4.19.2' }));
    expect(result.notes).toContain('packages/web/package.json: removed moment; nothing it owns imports it any more');
    expect(result.lockfilesToRefresh).toEqual([{ lockfile: 'pnpm-lock.yaml', command: 'pnpm install --lockfile-only' }]);
  });

  it('keeps the old package while a file the manifest owns still imports it (a step scoped to one folder)', async () => {
    const more = { ...files(), 'packages/web/src/legacy.js': "const moment = require('moment');\nmodule.exports = moment;\n" };
    const { text, result } = await migrate(more, {
      from: 'moment',
      to: 'dayjs',
      version: '^1.11.13',
      paths: ['packages/web/src/date.ts', 'packages/web/package.json'],
    });
    expect(await text('packages/web/package.json')).toContain('"moment": "^2.30.1"');
    expect(result.notes).toContain('packages/web/package.json:7 still declares moment; remove it once nothing imports it');
  });

  it('a scoped package without a version is named with its section; one declared at the workspace root needs nothing', async () => {
    const scoped = await migrate(files(), { from: 'moment', to: '@date-fns/utc' });
    expect(scoped.result.notes).toContain('packages/web/package.json does not declare @date-fns/utc; add "@date-fns/utc": "<version>" to dependencies');
    const rooted = await migrate(files(), { from: 'moment', to: 'typescript' });
    expect(rooted.result.notes.filter((n) => n.includes('does not declare'))).toEqual([]);
  });
});

describe('migrate-import follow-through: Python projects', () => {
  const repo = () => {
    const files = pythonPackageRepo();
    files['pyproject.toml'] = files['pyproject.toml'].replace('  "pydantic",\n', '  "pydantic",\n  "toml>=0.10",\n');
    files['src/acme_billing/config.py'] = 'import toml\n\n\ndef load(path):\n    return toml.load(path)\n';
    return files;
  };

  it("with a version, adds the distribution to pyproject dependencies in the file's style, and flags the old one", async () => {
    const { text, result } = await migrate(repo(), { from: 'toml', to: 'tomli', version: '2.0.1' });
    expect(await text('pyproject.toml')).toBe(repo()['pyproject.toml'].replace('  "toml>=0.10",\n', '  "toml>=0.10",\n  "tomli>=2.0.1",\n'));
    expect(result.notes).toContain('pyproject.toml still declares toml; remove it once nothing imports toml');
  });

  it('maps import names to distributions and adds to requirements.txt in order; the standard library and the project itself need nothing', async () => {
    const files = { 'requirements.txt': 'click==8.1.7\nrequests==2.32.3\n', 'app/__init__.py': '', 'app/conf.py': 'import json\nimport app.util\n' };
    const yaml = await migrate(files, { from: 'json', to: 'yaml', version: '6.0.1' });
    expect(await yaml.text('requirements.txt')).toBe('click==8.1.7\nPyYAML==6.0.1\nrequests==2.32.3\n');
    expect((await migrate({ ...files, 'app/conf.py': 'import simplejson\n' }, { from: 'simplejson', to: 'json' })).result.notes).toEqual([]);
    expect((await migrate({ ...files, 'app/conf.py': 'from app.util import x\n' }, { from: 'app.util', to: 'app.helpers' })).result.notes).toEqual([]);
    const noted = await migrate(files, { from: 'json', to: 'yaml' });
    expect(noted.result.notes).toEqual(['requirements.txt does not declare PyYAML; add "PyYAML" to requirements.txt']);
  });
});
