import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { fitPackage, groundProse } from '../../../src/core/pipeline/ground-prose.js';
import { groundedFacts } from '../../../src/core/pipeline/inferred-steps.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { parseTask } from '../../../src/core/task/parse-task.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const POM = `<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>orders</artifactId>
  <version>1.0.0</version>
  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>2.16.1</version>
    </dependency>
    <dependency>
      <groupId>org.example</groupId>
      <artifactId>util</artifactId>
      <version>1.0</version>
    </dependency>
    <dependency>
      <groupId>com.other</groupId>
      <artifactId>util</artifactId>
      <version>2.0</version>
    </dependency>
  </dependencies>
</project>
`;

const FILES = {
  'pom.xml': POM,
  'web/package.json': '{\n  "name": "web",\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n',
  'requirements.txt': 'requests==2.31.0\nurllib3>=1.26\n',
  'src/main/java/com/acme/Order.java': 'package com.acme;\n\npublic class Order {\n  public int total() { return 1; }\n}\n',
  'src/main/java/com/acme/Invoice.java': 'package com.acme;\n\npublic class Invoice {\n  Order order;\n}\n',
  'src/main/java/com/acme/Twice.java': 'package com.acme;\n\nclass Helper {}\n',
  'src/main/java/com/acme/Again.java': 'package com.acme;\n\nclass Helper2 {}\nclass Helper {}\n',
  'README.md': 'Chat with us on https://gitter.im/acme/orders\n',
};

async function ground(title: string, body = '', mode: 'run' | 'suggest' = 'run', files: Record<string, string> = FILES) {
  const repo = await createMemoryRepo(files);
  const rules = pathRulesFor({});
  const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'orders', rules, policyDigest: 'p' });
  const contents = new FileContents(repo.workspace);
  return groundProse({ title, body }, { map, editable: repo.workspace.paths(), read: (p) => contents.text(p), isLockfile: rules.isLockfile, syntax }, { mode });
}

describe('grounding prose against the repository', () => {
  it('a Dependabot title for a declared package runs, and its block parses back to the same steps', async () => {
    const inferred = await ground('Bump lodash from 4.17.20 to 4.17.21 in /web');
    expect(inferred.steps).toEqual([{ recipe: 'bump-dependency', package: 'lodash', to: '4.17.21', paths: ['web'] }]);
    expect(inferred.readings[0]).toMatchObject({ grounded: true, files: ['web/package.json'] });
    const reparsed = parseTask({ title: 't', body: `${inferred.block}\n`, source: 'github' });
    expect(reparsed.steps).toEqual(inferred.steps);
  });

  it('a bare artifact id is spelled as the manifests spell it; two coordinates ending in it are two readings and nothing runs', async () => {
    const one = await ground('Upgrade jackson-databind to 2.17.1 (CVE-2023-35116)');
    expect(one.steps).toEqual([{ recipe: 'bump-dependency', package: 'com.fasterxml.jackson.core:jackson-databind', to: '2.17.1' }]);
    expect(one.readings[0].why).toContain('`jackson-databind` is `com.fasterxml.jackson.core:jackson-databind`');
    const two = await ground('Upgrade util to 3.0');
    expect(two.steps).toEqual([]);
    expect(two.readings[0]).toMatchObject({ grounded: false });
    expect(two.readings[0].why).toMatch(/could be `com\.other:util` or `org\.example:util`/);
  });

  it('a package no manifest declares does not run, with why', async () => {
    const inferred = await ground('Bump left-pad from 1.0.0 to 1.3.0');
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings[0].why).toBe('`left-pad` is not declared in any manifest of the repository');
  });

  it('a downgrade does not run: the engine refuses it and grounding says so', async () => {
    const inferred = await ground('Update dependency requests to 2.30.0');
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings[0].why).toMatch(/downgrade/);
  });

  it('a rename runs only when the name is defined exactly once', async () => {
    const once = await ground('Rename `Order` to `PurchaseOrder`');
    expect(once.steps).toEqual([{ recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder' }]);
    const twice = await ground('Rename `Helper` to `Assistant`');
    expect(twice.steps).toEqual([]);
    expect(twice.readings[0].why).toBe('`Helper` is defined in 2 places');
  });

  it('a replace runs only when the text occurs; a URL move is a replace', async () => {
    const moved = await ground(
      'Our chat moved from Gitter to Discord',
      'Please update the invite links from https://gitter.im/acme/orders to https://discord.gg/acme',
    );
    expect(moved.steps).toHaveLength(1);
    expect(moved.steps[0]).toMatchObject({ recipe: 'replace', find: 'https://gitter.im/acme/orders', replace: 'https://discord.gg/acme', regex: false });
    expect(moved.readings[0].files).toEqual(['README.md']);
    // The new link's domain is not in the repository: the risk section names it.
    expect(moved.newDomains).toEqual(['discord.gg']);
    const again = await ground('Replace `https://gitter.im/acme/orders` with `https://gitter.im/acme/shop`');
    expect(again.steps).toHaveLength(1);
    expect(again.newDomains).toEqual([]);
    const absent = await ground('Replace `new Integer(x)` with `Integer.valueOf(x)`');
    expect(absent.steps).toEqual([]);
    expect(absent.readings[0].why).toBe('`new Integer(x)` does not occur in any file the task may change');
  });

  it('a cap on a declared range runs as constrain-dependency', async () => {
    const inferred = await ground('keep urllib3 below 3 until our adapter is ported');
    expect(inferred.steps).toEqual([{ recipe: 'constrain-dependency', package: 'urllib3', range: '<3' }]);
  });

  it('a model that makes the change is told what the words were read as and what the repository said', async () => {
    const facts = groundedFacts(await ground('Bump left-pad from 1.0.0 to 1.3.0', 'Also rename `Order` to `PurchaseOrder`.'));
    expect(facts[0]).toMatch(/read as these requests/);
    expect(facts.join('\n')).toContain('not confirmed: `left-pad` is not declared in any manifest of the repository');
    expect(facts.join('\n')).toContain('confirmed; it changes');
    expect(groundedFacts(await ground('The login page is slow on Safari'))).toEqual([]);
  });

  it('a GitHub Actions reference is read but never runs', async () => {
    const inferred = await ground('Bump actions/checkout from 3 to 4');
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings[0].why).toMatch(/GitHub Actions/);
  });

  it('fitPackage compares Python names as PEP 503 does', async () => {
    const repo = await createMemoryRepo({ 'requirements.txt': 'Django_Rest.Framework==3.14\n' });
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'a', repo: 'b', rules: pathRulesFor({}), policyDigest: 'p' });
    expect(fitPackage('django-rest-framework', map)).toEqual({ package: 'django-rest-framework', renamed: false });
  });

  it('a Dependabot bump inside a declared range raises the range of a private (application) package, and leaves a library to its lockfile', async () => {
    const app = { 'package.json': '{\n  "name": "site",\n  "private": true,\n  "devDependencies": {\n    "rollup": "^4.43.0"\n  }\n}\n' };
    const raised = await ground('chore(deps-dev): bump rollup from 4.57.1 to 4.59.0', '', 'run', app);
    expect(raised.steps).toEqual([{ recipe: 'bump-dependency', package: 'rollup', to: '4.59.0' }]);
    const lib = { 'package.json': '{\n  "name": "lib",\n  "devDependencies": {\n    "rollup": "^4.43.0"\n  }\n}\n' };
    const kept = await ground('chore(deps-dev): bump rollup from 4.57.1 to 4.59.0', '', 'run', lib);
    expect(kept.steps).toEqual([]);
    expect(kept.readings[0].why).toMatch(/already admits 4\.59\.0: only the lockfile changes/);
  });

  const CATALOG = {
    'settings.gradle.kts': 'rootProject.name = "app"\n',
    'build.gradle.kts': 'plugins {\n  alias(libs.plugins.ksp)\n}\ndependencies {\n  implementation(libs.ksp.api)\n}\n',
    'gradle/libs.versions.toml':
      '[versions]\nksp = "2.0.20-1.0.24"\n\n[libraries]\nksp-api = { group = "com.google.devtools.ksp", name = "symbol-processing-api", version.ref = "ksp" }\n\n[plugins]\nksp = { id = "com.google.devtools.ksp", version.ref = "ksp" }\n',
  };

  it('a version written once for several packages moves when the words name every one of them, and not when they name one', async () => {
    const body =
      'Updates `com.google.devtools.ksp:symbol-processing-api` from 2.0.20-1.0.24 to 2.0.20-1.0.25\n\nUpdates `com.google.devtools.ksp` from 2.0.20-1.0.24 to 2.0.20-1.0.25';
    const both = await ground('Bump the kotlin-ksp group across 1 directory with 2 updates', body, 'run', CATALOG);
    expect(both.steps.length).toBeGreaterThan(0);
    expect(both.readings.every((r) => r.grounded)).toBe(true);
    const one = await ground('Bump com.google.devtools.ksp from 2.0.20-1.0.24 to 2.0.20-1.0.25', '', 'run', CATALOG);
    expect(one.steps).toEqual([]);
    expect(one.readings[0].why).toMatch(/written once for `com\.google\.devtools\.ksp:symbol-processing-api` too/);
  });

  it("Renovate's monorepo title moves the catalog key it names", async () => {
    const inferred = await ground('Update ksp monorepo to v2.0.20-1.0.25', '', 'run', CATALOG);
    expect(inferred.readings[0]).toMatchObject({ grounded: true });
    expect(inferred.steps).toHaveLength(1);
  });

  it('a formatter bump does not run: its new version may lay files out differently', async () => {
    const files = { 'package.json': '{\n  "name": "site",\n  "private": true,\n  "devDependencies": {\n    "prettier": "3.5.3"\n  }\n}\n' };
    const inferred = await ground('chore(deps): update dependency prettier to v3.6.0', '', 'run', files);
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings[0].why).toMatch(/`prettier` formats the repository's files/);
  });

  const PLUGIN_POM = (configuration: string) => `<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>proto</artifactId>
  <version>1.0.0</version>
  <build>
    <plugins>
      <plugin>
        <groupId>io.github.ascopes</groupId>
        <artifactId>protobuf-maven-plugin</artifactId>
        <version>3.1.0</version>
${configuration}      </plugin>
    </plugins>
  </build>
</project>
`;

  it('a new major version of a Maven plugin the pom configures does not run; one it does not configure does', async () => {
    const configured = await ground('Bump protobuf-maven-plugin to 4.0.1', '', 'run', {
      'pom.xml': PLUGIN_POM('        <configuration>\n          <protocVersion>4.28.2</protocVersion>\n        </configuration>\n'),
    });
    expect(configured.steps).toEqual([]);
    expect(configured.readings[0].why).toMatch(/a new major version, and pom\.xml:12 configures it/);
    const bare = await ground('Bump protobuf-maven-plugin to 4.0.1', '', 'run', { 'pom.xml': PLUGIN_POM('') });
    expect(bare.steps).toEqual([{ recipe: 'bump-dependency', package: 'io.github.ascopes:protobuf-maven-plugin', to: '4.0.1' }]);
  });

  const COMPILED = (mypyVia: string) =>
    `#\n# This file is autogenerated by pip-compile\n# To update, run:\n#\n#    pip-compile requirements/typing.in\n#\nmypy==0.812\n    # via -r requirements/typing.in\ntyped-ast==1.4.3\n    # via ${mypyVia}\n`;

  it('a breaking-class update in a pip-compile output where pins are there for the package alone does not run', async () => {
    const files = (via: string) => ({ 'requirements/typing.in': 'mypy\n', 'requirements/typing.txt': COMPILED(via) });
    const alone = await ground('Bump mypy from 0.812 to 0.910', '', 'run', files('mypy'));
    expect(alone.steps).toEqual([]);
    expect(alone.readings[0].why).toMatch(/pins `typed-ast` for `mypy` alone/);
    const shared = await ground('Bump mypy from 0.812 to 0.910', '', 'run', files('\n    #   mypy\n    #   other'));
    expect(shared.steps).toEqual([{ recipe: 'bump-dependency', package: 'mypy', to: '0.910' }]);
  });

  it('an input compiled by pip-compile-multi (a `# SHA1:` header) does not change without its compiled file', async () => {
    const inferred = await ground('update werkzeug to 2.3.5', '', 'run', {
      'requirements/min.in': 'Werkzeug==2.3.3\n',
      'requirements/min.txt': '# SHA1:0b58503b99aabc227b7f39357216d676d9987a12\n#\n# This file is autogenerated by pip-compile-multi\n#\nwerkzeug==2.3.3\n',
    });
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings.some((r) => /requirements\/min\.txt is compiled from requirements\/min\.in/.test(r.why ?? ''))).toBe(true);
  });

  it("a person's list that asks for more than the steps read runs nothing", async () => {
    const inferred = await ground('Bump lodash to 4.17.21', '* Bump lodash\n\n* test with node 22\n\n* avoid the deprecated API');
    expect(inferred.steps).toEqual([]);
    expect(inferred.readings[0].why).toMatch(/also ask for “test with node 22”, “avoid the deprecated API”/);
    const restated = await ground('Bump lodash to 4.17.21', '* Bump lodash\n\n* Fixes CVE-2021-23337');
    expect(restated.steps).toEqual([{ recipe: 'bump-dependency', package: 'lodash', to: '4.17.21' }]);
  });
});
