import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { constrainDeclared, parseMavenRange, parseRangeInput } from '../../../src/core/engines/recipe/constrain-range.js';
import { recipeCandidates } from '../../../src/core/engines/recipe/recipe-candidates.js';
import { recipeFor } from '../../../src/core/engines/recipe/registry.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';
import { suggestRecipeSteps } from '../../../src/core/pipeline/suggest-recipe.js';
import { describeSteps } from '../../../src/core/publish/pr-text.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const constrain = (pkg: string, range: string, extra: Record<string, unknown> = {}) => ({ recipe: 'constrain-dependency', package: pkg, range, ...extra });

describe('constrain-dependency: Python', () => {
  it('caps a requirement and keeps its lower bound, its extras, its marker and the lines around it', async () => {
    const reqs = '# HTTP stack\nrequests[socks]>=2.28 ; python_version >= "3.8"\nurllib3>=1.26\r\nidna==3.7 \\\n    --hash=sha256:abc\ncertifi  # no pin\n';
    const run = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('urllib3', '<3'));
    expect(await run.text('requirements.txt')).toBe(reqs.replace('urllib3>=1.26\r', 'urllib3>=1.26,<3\r'));
    const extras = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('Requests', '<3'));
    expect(await extras.text('requirements.txt')).toBe(reqs.replace('requests[socks]>=2.28 ;', 'requests[socks]>=2.28,<3 ;'));
    const hashed = await runRecipeStep(syntax, { 'requirements.txt': 'idna==3.7 --hash=sha256:abc\n' }, constrain('idna', '<4'));
    expect(await hashed.text('requirements.txt')).toBe('idna>=3.7,<4 --hash=sha256:abc\n');
  });

  it('adds a cap to a name declared without a version, and keeps ~= as its lower bound (a widen)', async () => {
    const reqs = 'certifi  # no pin\nurllib3~=1.26.5\n';
    const bare = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('certifi', '<2025'));
    expect(await bare.text('requirements.txt')).toBe('certifi<2025  # no pin\nurllib3~=1.26.5\n');
    const widen = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('urllib3', '<3'));
    expect(await widen.text('requirements.txt')).toBe('certifi  # no pin\nurllib3>=1.26.5,<3\n');
  });

  it('pins by replacing the whole specifier set, and writes a neutral range as PEP 440 keeping ", " spacing', async () => {
    const reqs = 'requests>=2.20, <3\n';
    const pin = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('requests', '=2.31.0'));
    expect(await pin.text('requirements.txt')).toBe('requests==2.31.0\n');
    const widen = await runRecipeStep(syntax, { 'requirements.txt': reqs }, constrain('requests', '>=2.20 <4'));
    expect(await widen.text('requirements.txt')).toBe('requests>=2.20, <4\n');
  });

  it('refuses a range below the declared minimum unless allowDowngrade, editing nothing', async () => {
    const files = { 'requirements.txt': 'urllib3>=2.0\n' };
    const refused = await runRecipeStep(syntax, files, constrain('urllib3', '<2'));
    expect(refused.changed).toEqual([]);
    expect(refused.result.notes).toEqual([
      'requirements.txt: urllib3: ">=2.0,<2" admits no version from the declared minimum 2.0 (">=2.0") up: a downgrade; left alone (add `allowDowngrade: true` to the step to apply it)',
    ]);
    const pinDown = await runRecipeStep(syntax, { 'requirements.txt': 'urllib3==2.2.1\n' }, constrain('urllib3', '==1.26.18'));
    expect(pinDown.changed).toEqual([]);
    const allowed = await runRecipeStep(syntax, { 'requirements.txt': 'urllib3==2.2.1\n' }, constrain('urllib3', '==1.26.18', { allowDowngrade: true }));
    expect(await allowed.text('requirements.txt')).toBe('urllib3==1.26.18\n');
    // Raising the minimum is no downgrade.
    const raise = await runRecipeStep(syntax, { 'requirements.txt': 'urllib3>=1.26\n' }, constrain('urllib3', '==2.2.1'));
    expect(await raise.text('requirements.txt')).toBe('urllib3==2.2.1\n');
  });

  it('pyproject: PEP 621 strings in dependency lists only, never a same-named project or keyword', async () => {
    const pyproject = [
      '[project]',
      'name = "urllib3"',
      'keywords = ["urllib3", "http"]',
      'dependencies = [',
      '    "urllib3>=1.26",',
      "    'idna',",
      ']',
      '',
      '[project.optional-dependencies]',
      'socks = ["urllib3[socks]>=1.26; extra == \'socks\'"]',
      '',
      '[dependency-groups]',
      'dev = ["idna>=3"]',
      '',
    ].join('\n');
    const run = await runRecipeStep(syntax, { 'pyproject.toml': pyproject }, constrain('urllib3', '<3'));
    expect(await run.text('pyproject.toml')).toBe(pyproject.replace('"urllib3>=1.26",', '"urllib3>=1.26,<3",').replace('[socks]>=1.26;', '[socks]>=1.26,<3;'));
    const idna = await runRecipeStep(syntax, { 'pyproject.toml': pyproject }, constrain('idna', '<4'));
    expect(await idna.text('pyproject.toml')).toBe(pyproject.replace("'idna',", "'idna<4',").replace('"idna>=3"', '"idna>=3,<4"'));
  });

  it('Poetry: a caret keeps its lower bound under a cap, a pin is written bare, and an inline table is edited in place', async () => {
    const pyproject =
      '[tool.poetry.dependencies]\npython = "^3.9"\nrequests = "^2.25.1"\nhttpx = { version = "~0.27", extras = ["http2"] }\n\n[tool.poetry.group.dev.dependencies]\npytest = "^8.0"\n';
    const cap = await runRecipeStep(syntax, { 'pyproject.toml': pyproject }, constrain('requests', '<3'));
    expect(await cap.text('pyproject.toml')).toBe(pyproject.replace('requests = "^2.25.1"', 'requests = ">=2.25.1,<3"'));
    const pin = await runRecipeStep(syntax, { 'pyproject.toml': pyproject }, constrain('httpx', '==0.27.2'));
    expect(await pin.text('pyproject.toml')).toBe(pyproject.replace('"~0.27"', '"0.27.2"'));
    const native = await runRecipeStep(syntax, { 'pyproject.toml': pyproject }, constrain('pytest', '^8.2'));
    expect(await native.text('pyproject.toml')).toBe(pyproject.replace('"^8.0"', '"^8.2"'));
  });

  it('setup.cfg and setup.py: requirement values, a bare name only inside a list', async () => {
    const cfg = '[metadata]\nname = app\n\n[options]\ninstall_requires =\n    requests>=2.28\n    urllib3\n';
    const run = await runRecipeStep(syntax, { 'setup.cfg': cfg }, constrain('urllib3', '<3'));
    expect(await run.text('setup.cfg')).toBe(cfg.replace('    urllib3\n', '    urllib3<3\n'));
    const py = 'from setuptools import setup\n\nsetup(\n    name="urllib3",\n    install_requires=["urllib3", "requests>=2.28"],\n)\n';
    const setupPy = await runRecipeStep(syntax, { 'setup.py': py }, constrain('urllib3', '<3'));
    expect(await setupPy.text('setup.py')).toBe(py.replace('["urllib3"', '["urllib3<3"'));
  });
});

describe('constrain-dependency: npm and Cargo', () => {
  it('package.json: a cap keeps the caret lower bound, a pin is exact, a native range is validated by semver', async () => {
    const pkg = '{\n  "dependencies": {\n    "express": "^4.19.2"\n  },\n  "devDependencies": {\n    "vitest": "~1.6.0"\n  }\n}\n';
    const cap = await runRecipeStep(syntax, { 'package.json': pkg, 'package-lock.json': '{}\n' }, constrain('express', '<5'));
    expect(await cap.text('package.json')).toBe(pkg.replace('"^4.19.2"', '">=4.19.2 <5"'));
    expect(cap.result.lockfilesToRefresh).toEqual([{ lockfile: 'package-lock.json', command: 'npm install --package-lock-only' }]);
    const pin = await runRecipeStep(syntax, { 'package.json': pkg }, constrain('vitest', '==1.6.1'));
    expect(await pin.text('package.json')).toBe(pkg.replace('"~1.6.0"', '"1.6.1"'));
    const widen = await runRecipeStep(syntax, { 'package.json': pkg }, constrain('express', '>=4.19.2 <6'));
    expect(await widen.text('package.json')).toBe(pkg.replace('"^4.19.2"', '">=4.19.2 <6"'));
    const native = await runRecipeStep(syntax, { 'package.json': pkg }, constrain('express', '^4.21 || ^5.0.1'));
    expect(await native.text('package.json')).toBe(pkg.replace('"^4.19.2"', '"^4.21 || ^5.0.1"'));
    const invalid = await runRecipeStep(syntax, { 'package.json': pkg }, constrain('express', '^^4'));
    expect(invalid.changed).toEqual([]);
    expect(invalid.result.notes).toEqual(['package.json: express: "^^4" is not a valid npm range; left alone']);
  });

  it('Cargo.toml: a bare requirement is a caret, so a cap keeps it as the lower bound; a pin is =', async () => {
    const cargo =
      '[package]\nname = "app"\n\n[dependencies]\nserde = { version = "1.0.190", features = ["derive"] }\n\n[dependencies.tokio]\nversion = "1.37"\n';
    const cap = await runRecipeStep(syntax, { 'Cargo.toml': cargo }, constrain('serde', '<2'));
    expect(await cap.text('Cargo.toml')).toBe(cargo.replace('"1.0.190"', '">=1.0.190, <2"'));
    const pin = await runRecipeStep(syntax, { 'Cargo.toml': cargo }, constrain('tokio', '==1.37.0'));
    expect(await pin.text('Cargo.toml')).toBe(cargo.replace('"1.37"', '"=1.37.0"'));
  });
});

describe('constrain-dependency: Maven and Gradle', () => {
  const pom = (deps: string, properties = '') =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n  <artifactId>shop</artifactId>\n  <version>1.0.0</version>\n${properties}  <dependencies>\n${deps}  </dependencies>\n</project>\n`;
  const dep = (version: string) =>
    `    <dependency>\n      <groupId>com.fasterxml.jackson.core</groupId>\n      <artifactId>jackson-databind</artifactId>\n      <version>${version}</version>\n    </dependency>\n`;

  it('writes a cap as a Maven range keeping the soft version as its lower bound; a native range is validated', async () => {
    const cap = await runRecipeStep(syntax, { 'pom.xml': pom(dep('2.17.1')) }, constrain('com.fasterxml.jackson.core:jackson-databind', '<3'));
    expect(await cap.text('pom.xml')).toBe(pom(dep('[2.17.1,3)')));
    const native = await runRecipeStep(syntax, { 'pom.xml': pom(dep('2.17.1')) }, constrain('com.fasterxml.jackson.core:jackson-databind', '[2.17,2.18)'));
    expect(await native.text('pom.xml')).toBe(pom(dep('[2.17,2.18)')));
    const bad = await runRecipeStep(syntax, { 'pom.xml': pom(dep('2.17.1')) }, constrain('com.fasterxml.jackson.core:jackson-databind', '[2.17)'));
    expect(bad.changed).toEqual([]);
    expect(bad.result.notes).toEqual(['pom.xml: com.fasterxml.jackson.core:jackson-databind: "[2.17)" is not a valid Maven range; left alone']);
    const pin = await runRecipeStep(syntax, { 'pom.xml': pom(dep('[2.15,3)')) }, constrain('com.fasterxml.jackson.core:jackson-databind', '==2.17.2'));
    expect(await pin.text('pom.xml')).toBe(pom(dep('[2.17.2]')));
  });

  it('a ${property} version edits the property, here or in the parent pom', async () => {
    const props = (v: string) => `  <properties>\n    <jackson.version>${v}</jackson.version>\n  </properties>\n`;
    const here = await runRecipeStep(
      syntax,
      { 'pom.xml': pom(dep('${jackson.version}'), props('2.17.1')) },
      constrain('com.fasterxml.jackson.core:jackson-databind', '<2.18'),
    );
    expect(await here.text('pom.xml')).toBe(pom(dep('${jackson.version}'), props('[2.17.1,2.18)')));
    const child = `<project>\n  <parent>\n    <groupId>com.example</groupId>\n    <artifactId>shop</artifactId>\n    <version>1.0.0</version>\n  </parent>\n  <artifactId>api</artifactId>\n  <dependencies>\n${dep('${jackson.version}')}  </dependencies>\n</project>\n`;
    const parent = pom('', props('2.17.1'));
    const run = await runRecipeStep(syntax, { 'pom.xml': parent, 'api/pom.xml': child }, constrain('com.fasterxml.jackson.core:jackson-databind', '<3'));
    expect(run.changed).toEqual(['pom.xml']);
    expect(await run.text('pom.xml')).toBe(pom('', props('[2.17.1,3)')));
    expect(await run.text('api/pom.xml')).toBe(child);
  });

  it('Gradle strings and a version catalog entry, through its [versions] reference', async () => {
    const gradle = 'dependencies {\n    implementation \'com.google.guava:guava:33.2.1-jre\'\n    testImplementation("junit:junit:4.13.2")\n}\n';
    const run = await runRecipeStep(syntax, { 'build.gradle': gradle }, constrain('com.google.guava:guava', '[33.0,34.0)'));
    expect(await run.text('build.gradle')).toBe(gradle.replace('guava:33.2.1-jre', 'guava:[33.0,34.0)'));
    const catalog = '[versions]\nguava = "33.2.1-jre"\nkotlin = "2.0.0"\n\n[libraries]\nguava = { module = "com.google.guava:guava", version.ref = "guava" }\n';
    const cat = await runRecipeStep(syntax, { 'gradle/libs.versions.toml': catalog }, constrain('com.google.guava:guava', '<34'));
    expect(await cat.text('gradle/libs.versions.toml')).toBe(catalog.replace('guava = "33.2.1-jre"', 'guava = "[33.2.1-jre,34)"'));
  });
});

describe('constrain-dependency: Go, the step and its wording', () => {
  it('refuses go.mod, which has no ranges: a note, nothing edited', async () => {
    const gomod = 'module example.com/app\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n';
    const run = await runRecipeStep(syntax, { 'go.mod': gomod, 'go.sum': '' }, constrain('github.com/pkg/errors', '<1'));
    expect(run.changed).toEqual([]);
    expect(await run.text('go.mod')).toBe(gomod);
    expect(run.result.notes).toEqual([
      'go.mod: github.com/pkg/errors: Go modules declare no version ranges (go.mod requires a minimum version and the build selects the lowest one every module allows); go.mod is left alone',
    ]);
    expect(run.result.lockfilesToRefresh).toEqual([]);
  });

  it('reads neutral forms and validates Maven ranges', () => {
    expect(parseRangeInput('>=1.26, <3')).toEqual({
      kind: 'neutral',
      comparators: [
        { op: '>=', version: '1.26' },
        { op: '<', version: '3' },
      ],
    });
    expect(parseRangeInput('=2.31.0')).toEqual({ kind: 'neutral', comparators: [{ op: '==', version: '2.31.0' }] });
    expect(parseRangeInput('~=1.4')).toEqual({ kind: 'native', text: '~=1.4' });
    expect(parseMavenRange('(,1.0],[1.2,)')).toHaveLength(2);
    for (const bad of ['[1.0)', '(1.0]', '[,1.0]', '[1.0,2.0', '[1.0,2.0),']) expect(parseMavenRange(bad)).toBeUndefined();
    expect(constrainDeclared('npm', 'latest', parseRangeInput('<3'), { label: 'x' })).toEqual({
      note: 'x is declared as "latest", not a npm constraint draftsman reads; left alone',
    });
  });

  it('refuses a bare version in the step, and is a candidate for the manifests only', () => {
    expect(RecipeStep.safeParse(constrain('requests', '2.31.0')).success).toBe(false);
    expect(RecipeStep.safeParse(constrain('requests', '<3')).success).toBe(true);
    const paths = ['go.mod', 'package.json', 'package-lock.json', 'requirements.txt', 'src/a.py'];
    expect(recipeCandidates(RecipeStep.parse(constrain('requests', '<3')), paths, defaultPathRules().isLockfile)).toEqual([
      'go.mod',
      'package.json',
      'requirements.txt',
    ]);
  });

  it('reads as a build change, and is suggested by plain words', () => {
    const pin = RecipeStep.parse(constrain('requests', '==2.31.0'));
    const cap = RecipeStep.parse(constrain('urllib3', '<3'));
    expect(describeSteps([pin])).toBe('pin requests to 2.31.0');
    expect(describeSteps([cap])).toBe('cap urllib3 below 3');
    expect(recipeFor(pin).commitType).toBe('build');
    expect(
      suggestRecipeSteps({ title: 'Pin requests to 2.31.0', objective: 'Keep `urllib3` below 2 until the TLS fix lands; keep latency below 200ms.' }),
    ).toEqual([
      { recipe: 'constrain-dependency', package: 'requests', range: '==2.31.0' },
      { recipe: 'constrain-dependency', package: 'urllib3', range: '<2' },
    ]);
  });
});
