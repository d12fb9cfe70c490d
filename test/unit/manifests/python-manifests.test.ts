import { describe, expect, it } from 'vitest';
import type { ManifestDependency } from '../../../src/core/manifests/manifest-schema.js';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';
import { pep508 } from '../../../src/core/manifests/python-manifests.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

/** `name|version|scope|line|versionAt` for each dependency: every field a bump or the map relies on, in one string. */
const rows = (deps: ManifestDependency[]): string[] =>
  deps.map((d) => [d.name, d.version ?? '', d.scope ?? '', d.line ?? '', d.versionAt ? `${d.versionAt.path}:${d.versionAt.line}` : ''].join('|'));
const inScope = (deps: ManifestDependency[], scope: string) => rows(deps.filter((d) => d.scope === scope));

/** A hatchling project in PEP 621 form with PEP 735 groups (the shape of httpx's and anyio's). */
const PEP621 = `[build-system]
requires = ["hatchling>=1.18", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "tessera"
dynamic = ["version"]
description = "Tile server for vector maps"
readme = "README.md"
requires-python = ">=3.9"
license = { text = "BSD-3-Clause" }
dependencies = [
    "anyio>=3.7.1,<5",
    "httpx[http2] (>=0.25)",
    # typing backports
    "typing-extensions>=4.8.0; python_version < '3.11'",
    "certifi",
    "idna @ https://github.com/kjd/idna/archive/refs/tags/v3.6.zip",
]

[project.optional-dependencies]
cli = ["click==8.1.*", "rich>=10,<14"]
brotli = [
  "brotli; platform_python_implementation == 'CPython'",
  "brotlicffi>=1.1; platform_python_implementation != 'CPython'",
]

[project.scripts]
tessera = "tessera.cli:main"

[dependency-groups]
test = [
    "pytest>=8.0",
    "pytest-cov",
    "trio==0.25.0",
]
lint = ["ruff==0.4.4", "mypy>=1.10"]
dev = [
    { include-group = "test" },
    { include-group = "lint" },
    "pre-commit>=3.5",
]

[tool.pytest.ini_options]
addopts = "-ra --strict-markers"
`;

/** A Poetry project with every way Poetry writes a dependency. */
const POETRY = `[tool.poetry]
name = "harbor-sync"
version = "1.4.0"
description = "Mirror container images between registries"
authors = ["Ada Lovelace <ada@example.com>"]
readme = "README.md"
packages = [{ include = "harbor_sync", from = "src" }]

[tool.poetry.dependencies]
python = "^3.10"
boto3 = "^1.34.11"
pydantic = { version = "^2.5", extras = ["email"] }
"ruamel.yaml" = ">=0.18,<0.19"
harbor-core = { path = "../harbor-core", develop = true }
sentry-sdk = { git = "https://github.com/getsentry/sentry-python.git", tag = "1.39.1" }
numpy = [
    { version = "1.24.4", python = "<3.9" },
    { version = "^1.26", python = ">=3.9" },
]

[tool.poetry.dependencies.uvicorn]
version = "^0.25.0"
extras = ["standard"]

[tool.poetry.dev-dependencies]
black = "^23.12"

[tool.poetry.group.test.dependencies]
pytest = "^7.4.3"
moto = { extras = ["s3"], version = "^4.2" }

[tool.poetry.group.docs]
optional = true

[tool.poetry.group.docs.dependencies]
mkdocs-material = "9.5.3"

[tool.poetry.scripts]
harbor-sync = "harbor_sync.cli:app"

[build-system]
requires = ["poetry-core>=1.0.0"]
build-backend = "poetry.core.masonry.api"
`;

const pyproject = (text: string) => parseManifest('pyproject', text, 'svc/pyproject.toml');

describe('pyproject.toml', () => {
  it('PEP 621 [project].dependencies: names as written, versions with their operator, each on its own line, markers and URLs without a version', () => {
    const parsed = pyproject(PEP621);
    expect(parsed.parseError).toBeUndefined();
    expect(parsed.name).toBe('tessera');
    expect(inScope(parsed.dependencies, 'main')).toEqual([
      'anyio|>=3.7.1,<5|main|13|svc/pyproject.toml:13',
      'httpx|>=0.25|main|14|svc/pyproject.toml:14',
      'typing-extensions|>=4.8.0|main|16|svc/pyproject.toml:16',
      'certifi||main|17|',
      'idna||main|18|',
    ]);
    expect(parsed.facts).toEqual({ buildBackend: 'hatchling.build', testRunner: 'pytest' });
  });

  it('[project.optional-dependencies]: the extra is the scope; a one-line array puts both on its line', () => {
    const deps = pyproject(PEP621).dependencies;
    expect(inScope(deps, 'cli')).toEqual(['click|==8.1.*|cli|22|svc/pyproject.toml:22', 'rich|>=10,<14|cli|22|svc/pyproject.toml:22']);
    expect(inScope(deps, 'brotli')).toEqual(['brotli||brotli|24|', 'brotlicffi|>=1.1|brotli|25|svc/pyproject.toml:25']);
  });

  it('PEP 735 [dependency-groups]: the group is the scope, {include-group = …} entries are not dependencies', () => {
    const deps = pyproject(PEP621).dependencies;
    expect(inScope(deps, 'test')).toEqual([
      'pytest|>=8.0|test|33|svc/pyproject.toml:33',
      'pytest-cov||test|34|',
      'trio|==0.25.0|test|35|svc/pyproject.toml:35',
    ]);
    expect(inScope(deps, 'lint')).toEqual(['ruff|==0.4.4|lint|37|svc/pyproject.toml:37', 'mypy|>=1.10|lint|37|svc/pyproject.toml:37']);
    expect(inScope(deps, 'dev')).toEqual(['pre-commit|>=3.5|dev|41|svc/pyproject.toml:41']);
  });

  it('[build-system].requires: scope build-system', () => {
    expect(inScope(pyproject(PEP621).dependencies, 'build-system')).toEqual([
      'hatchling|>=1.18|build-system|2|svc/pyproject.toml:2',
      'hatch-vcs||build-system|2|',
    ]);
    expect(inScope(pyproject(POETRY).dependencies, 'build-system')).toEqual(['poetry-core|>=1.0.0|build-system|42|svc/pyproject.toml:42']);
  });

  it('Poetry main dependencies: strings, {version = …} tables, quoted keys and a [tool.poetry.dependencies.x] table; python is not one', () => {
    const parsed = pyproject(POETRY);
    expect(parsed).toMatchObject({ name: 'harbor-sync', version: '1.4.0' });
    const main = parsed.dependencies.filter((d) => d.scope === 'main' && d.kind === 'dependency' && d.name !== 'sentry-sdk' && d.name !== 'numpy');
    expect(rows(main)).toEqual([
      'boto3|^1.34.11|main|11|svc/pyproject.toml:11',
      'pydantic|^2.5|main|12|svc/pyproject.toml:12',
      'ruamel.yaml|>=0.18,<0.19|main|13|svc/pyproject.toml:13',
      // The table's header is the declaration; its `version =` line is what a bump edits.
      'uvicorn|^0.25.0|main|21|svc/pyproject.toml:22',
    ]);
    expect(parsed.dependencies.some((d) => d.name === 'python')).toBe(false);
  });

  it('Poetry dev-dependencies and groups: scope dev and the group name', () => {
    const deps = pyproject(POETRY).dependencies;
    expect(inScope(deps, 'dev')).toEqual(['black|^23.12|dev|26|svc/pyproject.toml:26']);
    expect(inScope(deps, 'test')).toEqual(['pytest|^7.4.3|test|29|svc/pyproject.toml:29', 'moto|^4.2|test|30|svc/pyproject.toml:30']);
    expect(inScope(deps, 'docs')).toEqual(['mkdocs-material|9.5.3|docs|36|svc/pyproject.toml:36']);
  });

  it('Poetry {path = …} is a path dependency with its target, {git = …} has no version', () => {
    const deps = pyproject(POETRY).dependencies;
    expect(deps.find((d) => d.name === 'harbor-core')).toEqual({ name: 'harbor-core', scope: 'main', kind: 'path', target: '../harbor-core', line: 14 });
    expect(deps.find((d) => d.name === 'sentry-sdk')).toEqual({ name: 'sentry-sdk', scope: 'main', kind: 'dependency', line: 15 });
  });

  it('Poetry multiple constraints: one dependency per constraint table, each on its line', () => {
    expect(rows(pyproject(POETRY).dependencies.filter((d) => d.name === 'numpy'))).toEqual([
      'numpy|1.24.4|main|17|svc/pyproject.toml:17',
      'numpy|^1.26|main|18|svc/pyproject.toml:18',
    ]);
  });

  it('flit [tool.flit.metadata] requires and requires-extra (a table of its own or inline)', () => {
    const flit = `[build-system]
requires = ["flit_core >=2,<4"]
build-backend = "flit_core.buildapi"

[tool.flit.metadata]
module = "figlet_cli"
author = "Grace Hopper"
requires = [
    "requests >=2.20",
    "docopt",
]
requires-python = ">=3.6"

[tool.flit.metadata.requires-extra]
test = [
    "pytest >=2.7.3",
    "pytest-cov",
]
doc = ["sphinx"]
`;
    const deps = pyproject(flit).dependencies;
    expect(inScope(deps, 'main')).toEqual(['requests|>=2.20|main|9|svc/pyproject.toml:9', 'docopt||main|10|']);
    expect(inScope(deps, 'test')).toEqual(['pytest|>=2.7.3|test|16|svc/pyproject.toml:16', 'pytest-cov||test|17|']);
    expect(inScope(deps, 'doc')).toEqual(['sphinx||doc|19|']);
    expect(inScope(deps, 'build-system')).toEqual(['flit_core|>=2,<4|build-system|2|svc/pyproject.toml:2']);
  });

  it('PDM [tool.pdm.dev-dependencies] groups and uv [tool.uv] dev-dependencies', () => {
    const text = `[project]
name = "ledger"
dependencies = ["sqlalchemy>=2.0"]

[tool.pdm.dev-dependencies]
test = ["pytest>=7.4"]

[tool.uv]
dev-dependencies = [
    "ruff>=0.5",
]
`;
    const deps = pyproject(text).dependencies;
    expect(inScope(deps, 'test')).toEqual(['pytest|>=7.4|test|6|svc/pyproject.toml:6']);
    expect(inScope(deps, 'dev')).toEqual(['ruff|>=0.5|dev|10|svc/pyproject.toml:10']);
  });

  it('a multi-line string before the array does not shift its lines', () => {
    const text = `[project]
name = "docs-heavy"
description = """
dependencies = [
  "not-a-dependency",
]"""
dependencies = [
  "attrs>=23.1",
]
`;
    expect(rows(pyproject(text).dependencies)).toEqual(['attrs|>=23.1|main|8|svc/pyproject.toml:8']);
  });

  it('malformed TOML is a parse error with its line', () => {
    const parsed = pyproject('[project]\nname = "broken"\ndependencies = [\n  "requests",\n  oops\n]\n');
    expect(parsed.parseError).toMatch(/^line 5: /);
    expect(parsed.dependencies).toEqual([]);
  });
});

describe('pep508', () => {
  it('reads extras, parenthesised versions, URLs and markers', () => {
    expect(pep508('requests[security,socks]>=2.31', 'main')).toEqual({ name: 'requests', version: '>=2.31', scope: 'main', kind: 'dependency' });
    expect(pep508('fastapi[all] (>=0.110, <1)', 'main')?.version).toBe('>=0.110, <1');
    expect(pep508('pip @ https://github.com/pypa/pip/archive/22.0.2.zip', 'main')).toEqual({ name: 'pip', scope: 'main', kind: 'dependency' });
    expect(pep508('pywin32>=306 ; sys_platform == "win32"', 'main')?.version).toBe('>=306');
    expect(pep508('https://example.com/pkg.whl', 'main')).toBeUndefined();
    expect(pep508('./vendor/pkg', 'main')).toBeUndefined();
  });
});

/** A Pyramid add-on's setup.cfg (the declarative setuptools layout). */
const SETUP_CFG = `[metadata]
name = pyramid-sessions
version = attr: pyramid_sessions.__version__
description = Server-side sessions for Pyramid
long_description = file: README.rst
classifiers =
    Framework :: Pyramid
    Programming Language :: Python :: 3

[options]
package_dir =
    = src
packages = find:
python_requires = >=3.8
install_requires =
    pyramid>=2.0
    # signing
    itsdangerous>=2.0,<3
    importlib-metadata>=4.6; python_version < "3.10"

    webob
setup_requires = setuptools_scm>=6.2
tests_require =
    pytest>=7
    webtest

[options.packages.find]
where = src

[options.extras_require]
redis =
    redis>=4.5.1  # 4.5.0 leaked connections
testing = pytest; pytest-cov>=4; coverage[toml]; python_version >= "3.8"

[tool:pytest]
testpaths = tests
addopts = -ra

[flake8]
max-line-length = 100
`;

const setupCfg = (text: string) => parseManifest('setup-cfg', text, 'setup.cfg');

describe('setup.cfg', () => {
  it('[options] install_requires: continuation lines, comments, markers and a blank line inside the value', () => {
    const parsed = setupCfg(SETUP_CFG);
    expect(inScope(parsed.dependencies, 'install_requires')).toEqual([
      'pyramid|>=2.0|install_requires|16|setup.cfg:16',
      'itsdangerous|>=2.0,<3|install_requires|18|setup.cfg:18',
      'importlib-metadata|>=4.6|install_requires|19|setup.cfg:19',
      'webob||install_requires|21|',
    ]);
    expect(parsed.name).toBe('pyramid-sessions');
    expect(parsed.version).toBeUndefined();
  });

  it('setup_requires on the key line and tests_require on continuation lines', () => {
    const deps = setupCfg(SETUP_CFG).dependencies;
    expect(inScope(deps, 'setup_requires')).toEqual(['setuptools_scm|>=6.2|setup_requires|22|setup.cfg:22']);
    expect(inScope(deps, 'tests_require')).toEqual(['pytest|>=7|tests_require|24|setup.cfg:24', 'webtest||tests_require|25|']);
  });

  it('[options.extras_require]: the extra is the scope; a one-line value is split on ; and its marker piece dropped', () => {
    const deps = setupCfg(SETUP_CFG).dependencies;
    expect(inScope(deps, 'redis')).toEqual(['redis|>=4.5.1|redis|32|setup.cfg:32']);
    expect(inScope(deps, 'testing')).toEqual(['pytest||testing|33|', 'pytest-cov|>=4|testing|33|setup.cfg:33', 'coverage||testing|33|']);
  });

  it('[tool:pytest] makes pytest the test runner; file: lists are includes', () => {
    expect(setupCfg(SETUP_CFG).facts).toEqual({ testRunner: 'pytest' });
    const parsed = parseManifest('setup-cfg', '[options]\ninstall_requires = file: requirements/base.in\n', 'pkg/setup.cfg');
    expect(parsed.includes).toEqual(['pkg/requirements/base.in']);
    expect(setupCfg('[metadata]\nname = plain\n').facts).toEqual({});
  });

  it('malformed: a line that is no key, a key before any section, an unclosed header, a section twice', () => {
    expect(setupCfg('[options]\ninstall_requires =\n    requests\nsix\n').parseError).toBe(
      'line 4: neither a [section], a key = value nor an indented continuation: six',
    );
    expect(setupCfg('install_requires = requests\n[options]\n').parseError).toBe('line 1: key install_requires before any [section]');
    expect(setupCfg('[metadata]\nname = x\n[options\n').parseError).toBe('line 3: section header without a closing ]');
    expect(setupCfg('[options]\nzip_safe = False\n\n[options]\n').parseError).toBe('line 4: section [options] appears twice');
  });
});

/** A requests-style setup.py: requirement lists in module-level variables and in the call. */
const SETUP_PY = `#!/usr/bin/env python
import os
import sys

from setuptools import find_packages, setup

here = os.path.abspath(os.path.dirname(__file__))

with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
    long_description = f.read()

requires = [
    "charset_normalizer>=2,<4",
    "idna>=2.5,<4",
    'urllib3>=1.21.1,<3',  # 2.x drops OpenSSL < 1.1.1
    "certifi>=2017.4.17",
]
test_requirements = [
    "pytest-httpbin==2.0.0",
    "pytest-cov",
    "pytest>=3",
]

setup(
    name="courier",
    version="2.31.0",
    description="HTTP for couriers.",
    long_description=long_description,
    packages=find_packages(exclude=["tests", "tests.*"]),
    python_requires=">=3.7",
    install_requires=requires,
    setup_requires=["wheel"],
    tests_require=test_requirements,
    extras_require={
        "security": [],
        "socks": ["PySocks>=1.5.6, !=1.5.7"],
        "use_chardet_on_py3": [
            "chardet>=3.0.2,<6",
        ],
    },
)
`;

describe('setup.py (read, never run)', () => {
  const deps = parseManifest('setup-py', SETUP_PY, 'setup.py').dependencies;

  it('install_requires=NAME follows the module-level literal list', () => {
    expect(inScope(deps, 'install_requires')).toEqual([
      'charset_normalizer|>=2,<4|install_requires|13|setup.py:13',
      'idna|>=2.5,<4|install_requires|14|setup.py:14',
      'urllib3|>=1.21.1,<3|install_requires|15|setup.py:15',
      'certifi|>=2017.4.17|install_requires|16|setup.py:16',
    ]);
  });

  it('setup_requires and tests_require literals, extras_require dict entries by extra', () => {
    expect(inScope(deps, 'setup_requires')).toEqual(['wheel||setup_requires|32|']);
    expect(inScope(deps, 'tests_require')).toEqual([
      'pytest-httpbin|==2.0.0|tests_require|19|setup.py:19',
      'pytest-cov||tests_require|20|',
      'pytest|>=3|tests_require|21|setup.py:21',
    ]);
    expect(inScope(deps, 'socks')).toEqual(['PySocks|>=1.5.6, !=1.5.7|socks|36|setup.py:36']);
    expect(inScope(deps, 'use_chardet_on_py3')).toEqual(['chardet|>=3.0.2,<6|use_chardet_on_py3|38|setup.py:38']);
    expect(deps).toHaveLength(10);
  });

  it('lists built by code (a call, a comprehension, an f-string, NAME + [...]) are skipped', () => {
    const computed = `from pathlib import Path

from setuptools import setup

SPHINX_MIN = "7.2"
DEV = ["pytest>=7", "pytest-xdist", "tox>=4"]


def read_requirements(name):
    lines = Path(name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


setup(
    name="legacy-tool",
    install_requires=read_requirements("requirements.txt"),
    tests_require=[req for req in DEV if req.startswith("pytest")],
    extras_require={
        "docs": [f"sphinx>={SPHINX_MIN}", "furo"],
        "dev": DEV + ["pre-commit"],
        "yaml": ["PyYAML>=6.0"],
    },
)
`;
    expect(rows(parseManifest('setup-py', computed, 'setup.py').dependencies)).toEqual(['PyYAML|>=6.0|yaml|21|setup.py:21']);
  });
});

/** A pip-compile output with hashes, includes, an editable local package and options. */
const PROD_TXT = `#
# This file is autogenerated by pip-compile with Python 3.11
# by the following command:
#
#    pip-compile --generate-hashes --output-file=requirements/prod.txt requirements/prod.in
#
--index-url https://pypi.org/simple
-r base.txt
-c ../constraints.txt
--requirement=shared/../lint.txt
-r https://example.com/remote.txt
-r ../../outside.txt
asgiref==3.7.2 \\
    --hash=sha256:89b2ef2247e3b562a16eef663bc0e2e703ec6468e2fa8a5cd61cd449786d4f6e \\
    --hash=sha256:9e0ce3aa93a819ba5b45120216b23878cf6e8525eb3848653452b4192b92afed
    # via django
django==4.2.8 \\
    --hash=sha256:6cb5dcea9e3d12c47834d32156b8841f533a4493c688e2718cafd51aa430ba6d
    # via -r requirements/prod.in
psycopg[binary]==3.1.16 ; sys_platform != "win32" \\
    --hash=sha256:0e99c4a2e4b4e1a1f7fd8d4f1f2ab0d0c4bbf0e1b4f8f4bdd2b4d5f4fa2ab6f0
cryptography \\
    >=41.0.7
gunicorn>=21.2  # production server
uvloop ; platform_system != "Windows"
-e ./libs/billing-core
-e git+https://github.com/acme/thing.git@v1.0#egg=thing
https://files.example.com/wheels/custom-1.0-py3-none-any.whl
`;

describe('requirements files', () => {
  const parsed = parseManifest('requirements', PROD_TXT, 'requirements/prod.txt');

  it('hashes, markers, comments and continuation lines: the requirement line, and the line its version is on', () => {
    expect(rows(parsed.dependencies.filter((d) => d.kind === 'dependency'))).toEqual([
      'asgiref|==3.7.2|main|13|requirements/prod.txt:13',
      'django|==4.2.8|main|17|requirements/prod.txt:17',
      'psycopg|==3.1.16|main|20|requirements/prod.txt:20',
      'cryptography|>=41.0.7|main|22|requirements/prod.txt:23',
      'gunicorn|>=21.2|main|24|requirements/prod.txt:24',
      'uvloop||main|25|',
      'thing||main|27|',
    ]);
  });

  it('-e ./dir is a path dependency; an editable VCS URL is its #egg= project at no version; a bare wheel URL is not a dependency', () => {
    expect(parsed.dependencies.filter((d) => d.kind === 'path')).toEqual([
      { name: 'billing-core', scope: 'main', kind: 'path', target: './libs/billing-core', line: 26 },
    ]);
    expect(parsed.dependencies.find((d) => d.name === 'thing')).toEqual({ name: 'thing', scope: 'main', kind: 'dependency', line: 27 });
    expect(parseManifest('requirements', '-e git+https://github.com/acme/thing.git@v1.0\n', 'requirements.txt').dependencies).toEqual([]);
    expect(parsed.dependencies).toHaveLength(8);
  });

  it('-r / --requirement= / -c includes resolve against the file directory; URLs and paths leaving the repository are dropped', () => {
    expect(parsed.includes).toEqual(['requirements/base.txt', 'constraints.txt', 'requirements/lint.txt']);
    expect(parseManifest('requirements', 'flask==3.0.0\n', 'requirements.txt').includes).toBeUndefined();
  });
});

describe('requirements includes in the repository map', () => {
  it('a -r include with any name is read as requirements; a missing one is a warning; includes of includes are followed once', async () => {
    const repo = await createMemoryRepo({
      'requirements.txt': '-r deps/common.txt\n-c deps/pins.cfg\nflask==3.0.0\n',
      'deps/common.txt': '# shared by the web and worker images\nrequests==2.31.0\n-r ../deps/extra.txt\n',
      'deps/extra.txt': '-r common.txt\ncelery[redis]>=5.3\n',
      'app.py': 'import flask\n',
    });
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'web', rules: pathRulesFor({}), policyDigest: 'p1' });
    const byPath = (path: string) => map.manifests.find((m) => m.path === path);
    expect(byPath('requirements.txt')!.includes).toEqual(['deps/common.txt', 'deps/pins.cfg']);
    expect(byPath('deps/common.txt')).toMatchObject({ kind: 'requirements', includes: ['deps/extra.txt'] });
    expect(rows(byPath('deps/common.txt')!.dependencies)).toEqual(['requests|==2.31.0|main|2|deps/common.txt:2']);
    expect(rows(byPath('deps/extra.txt')!.dependencies)).toEqual(['celery|>=5.3|main|2|deps/extra.txt:2']);
    expect(map.manifests.filter((m) => m.path === 'deps/common.txt')).toHaveLength(1);
    expect(map.warnings.filter((w) => w.code.startsWith('MANIFEST_'))).toEqual([
      { code: 'MANIFEST_INCLUDE_MISSING', message: 'requirements.txt includes deps/pins.cfg, which is not a file of the repository', path: 'requirements.txt' },
    ]);
  });
});
