import { describe, expect, it } from 'vitest';
import type { ManifestDependency, ManifestRecord } from '../../../src/core/manifests/manifest-schema.js';
import { parsePom } from '../../../src/core/manifests/maven-manifests.js';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';
import { resolveManifests } from '../../../src/core/manifests/resolve-manifests.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

const HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
`;
const pom = (body: string): string => `${HEAD}${body}</project>\n`;

/** The 1-based line of the `nth` line containing `needle` (counted here, apart from the parser). */
function lineWith(text: string, needle: string, nth = 1): number {
  let seen = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i].includes(needle) && ++seen === nth) return i + 1;
  throw new Error(`no line ${nth} with ${needle}`);
}

const record = (path: string, text: string): ManifestRecord => ({ path, kind: 'maven', ...parseManifest('maven', text, path), evidenceRef: `e:${path}` });
const resolved = (files: Record<string, string>): Map<string, ManifestRecord> =>
  new Map(resolveManifests(Object.entries(files).map(([path, text]) => record(path, text))).map((m) => [m.path, m]));
const dep = (deps: readonly ManifestDependency[], name: string, scope?: string): ManifestDependency => {
  const hit = deps.find((d) => d.name === name && (scope === undefined || d.scope === scope));
  if (!hit) throw new Error(`no ${name} (${scope ?? 'any scope'}) in ${deps.map((d) => `${d.name}@${d.scope ?? ''}`).join(', ')}`);
  return hit;
};

describe('parsePom: every declaration with its line and the line a bump edits', () => {
  const SERVICE = pom(`  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>3.2.4</version>
    <relativePath/> <!-- lookup parent from repository -->
  </parent>
  <groupId>io.example</groupId>
  <artifactId>inventory-service</artifactId>
  <version>0.4.0-SNAPSHOT</version>

  <properties>
    <java.version>21</java.version>
    <mapstruct.version>1.5.5.Final</mapstruct.version>
    <lombok.version>1.18.30</lombok.version>
  </properties>

  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
    <dependency>
      <groupId>org.mapstruct</groupId>
      <artifactId>mapstruct</artifactId>
      <version>\${mapstruct.version}</version>
    </dependency>
    <!-- <dependency><groupId>commented</groupId><artifactId>out</artifactId><version>9</version></dependency> -->
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>

  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.testcontainers</groupId>
        <artifactId>testcontainers-bom</artifactId>
        <version>1.19.7</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
      <dependency>
        <groupId>com.google.guava</groupId>
        <artifactId>guava</artifactId>
        <version>33.1.0-jre</version>
      </dependency>
    </dependencies>
  </dependencyManagement>

  <build>
    <extensions>
      <extension>
        <groupId>kr.motd.maven</groupId>
        <artifactId>os-maven-plugin</artifactId>
        <version>1.7.1</version>
      </extension>
    </extensions>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
        <configuration>
          <release>\${java.version}</release>
          <annotationProcessorPaths>
            <path>
              <groupId>org.projectlombok</groupId>
              <artifactId>lombok</artifactId>
              <version>\${lombok.version}</version>
            </path>
            <path>
              <groupId>org.mapstruct</groupId>
              <artifactId>mapstruct-processor</artifactId>
              <version>1.5.5.Final</version>
            </path>
          </annotationProcessorPaths>
        </configuration>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-checkstyle-plugin</artifactId>
        <version>3.3.1</version>
        <dependencies>
          <dependency>
            <groupId>com.puppycrawl.tools</groupId>
            <artifactId>checkstyle</artifactId>
            <version>10.14.2</version>
          </dependency>
        </dependencies>
      </plugin>
    </plugins>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.jacoco</groupId>
          <artifactId>jacoco-maven-plugin</artifactId>
          <version>0.8.11</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>

  <profiles>
    <profile>
      <id>integration</id>
      <dependencies>
        <dependency>
          <groupId>org.testcontainers</groupId>
          <artifactId>postgresql</artifactId>
          <version>1.19.7</version>
          <scope>test</scope>
        </dependency>
      </dependencies>
      <build>
        <plugins>
          <plugin>
            <groupId>org.apache.maven.plugins</groupId>
            <artifactId>maven-failsafe-plugin</artifactId>
            <version>3.2.5</version>
          </plugin>
        </plugins>
      </build>
    </profile>
  </profiles>
`);
  const parsed = parsePom(SERVICE, 'services/inventory/pom.xml');
  const at = (line: number) => ({ path: 'services/inventory/pom.xml', line });

  it('keeps the parent, dependencies, managed dependencies and plugins as before, now with lines', () => {
    expect(parsed.name).toBe('io.example:inventory-service');
    expect(parsed.parent).toEqual({ name: 'org.springframework.boot:spring-boot-starter-parent', version: '3.2.4', relativePath: '' });
    expect(dep(parsed.dependencies, 'org.springframework.boot:spring-boot-starter-parent')).toEqual({
      name: 'org.springframework.boot:spring-boot-starter-parent',
      version: '3.2.4',
      kind: 'parent',
      line: lineWith(SERVICE, '<parent>'),
      versionAt: at(lineWith(SERVICE, '<version>3.2.4')),
    });
    expect(dep(parsed.dependencies, 'org.springframework.boot:spring-boot-starter-web')).toEqual({
      name: 'org.springframework.boot:spring-boot-starter-web',
      version: undefined,
      scope: 'compile',
      kind: 'dependency',
      line: lineWith(SERVICE, '<dependency>'),
    });
    expect(dep(parsed.dependencies, 'org.junit.jupiter:junit-jupiter')).toMatchObject({
      scope: 'test',
      line: lineWith(SERVICE, '<dependency>', 4), // the third is in a comment
      versionAt: at(lineWith(SERVICE, '5.10.2')),
    });
    expect(dep(parsed.dependencies, 'com.google.guava:guava')).toMatchObject({ scope: 'managed', versionAt: at(lineWith(SERVICE, '33.1.0-jre')) });
    expect(dep(parsed.dependencies, 'org.testcontainers:testcontainers-bom')).toMatchObject({ scope: 'import', version: '1.19.7' });
    expect(dep(parsed.dependencies, 'org.jacoco:jacoco-maven-plugin')).toEqual({
      name: 'org.jacoco:jacoco-maven-plugin',
      version: '0.8.11',
      kind: 'plugin',
      line: lineWith(SERVICE, '<plugin>', 3),
      versionAt: at(lineWith(SERVICE, '0.8.11')),
    });
    expect(parsed.plugins).toEqual([
      'org.apache.maven.plugins:maven-checkstyle-plugin',
      'org.apache.maven.plugins:maven-compiler-plugin',
      'org.jacoco:jacoco-maven-plugin',
    ]);
    expect(parsed.dependencies.some((d) => d.name === 'commented:out')).toBe(false);
  });

  it('a property version has no versionAt of its own; the properties are recorded with their lines', () => {
    const mapstruct = dep(parsed.dependencies, 'org.mapstruct:mapstruct');
    expect(mapstruct).toMatchObject({ version: '${mapstruct.version}', line: lineWith(SERVICE, '<dependency>', 2) });
    expect(mapstruct.versionAt).toBeUndefined();
    expect(parsed.properties).toEqual({ 'java.version': '21', 'mapstruct.version': '1.5.5.Final', 'lombok.version': '1.18.30' });
    expect(parsed.propertyLines).toEqual({
      'project.version': lineWith(SERVICE, '0.4.0-SNAPSHOT'),
      'project.parent.version': lineWith(SERVICE, '<version>3.2.4'),
      'java.version': lineWith(SERVICE, '<java.version>'),
      'mapstruct.version': lineWith(SERVICE, '<mapstruct.version>'),
      'lombok.version': lineWith(SERVICE, '<lombok.version>'),
    });
  });

  it('a profile: its dependencies and build plugins, scope profile:<id>', () => {
    expect(dep(parsed.dependencies, 'org.testcontainers:postgresql')).toEqual({
      name: 'org.testcontainers:postgresql',
      version: '1.19.7',
      scope: 'profile:integration',
      kind: 'dependency',
      line: lineWith(SERVICE, '<artifactId>postgresql') - 2,
      versionAt: at(lineWith(SERVICE, '<artifactId>postgresql') + 1),
    });
    expect(dep(parsed.dependencies, 'org.apache.maven.plugins:maven-failsafe-plugin')).toEqual({
      name: 'org.apache.maven.plugins:maven-failsafe-plugin',
      version: '3.2.5',
      scope: 'profile:integration',
      kind: 'plugin',
      line: lineWith(SERVICE, '<plugin>', 4),
      versionAt: at(lineWith(SERVICE, '3.2.5')),
    });
  });

  it('a build extension: kind plugin, scope extension', () => {
    expect(dep(parsed.dependencies, 'kr.motd.maven:os-maven-plugin')).toEqual({
      name: 'kr.motd.maven:os-maven-plugin',
      version: '1.7.1',
      scope: 'extension',
      kind: 'plugin',
      line: lineWith(SERVICE, '<extension>'),
      versionAt: at(lineWith(SERVICE, '1.7.1')),
    });
  });

  it("a plugin's own dependencies: scope plugin:<artifactId>", () => {
    expect(dep(parsed.dependencies, 'com.puppycrawl.tools:checkstyle')).toEqual({
      name: 'com.puppycrawl.tools:checkstyle',
      version: '10.14.2',
      scope: 'plugin:maven-checkstyle-plugin',
      kind: 'dependency',
      line: lineWith(SERVICE, '<artifactId>checkstyle<') - 2,
      versionAt: at(lineWith(SERVICE, '10.14.2')),
    });
  });

  it('annotation processor paths of the compiler plugin: scope annotation-processor', () => {
    const processors = parsed.dependencies.filter((d) => d.scope === 'annotation-processor');
    expect(processors).toEqual([
      { name: 'org.projectlombok:lombok', version: '${lombok.version}', scope: 'annotation-processor', kind: 'dependency', line: lineWith(SERVICE, '<path>') },
      {
        name: 'org.mapstruct:mapstruct-processor',
        version: '1.5.5.Final',
        scope: 'annotation-processor',
        kind: 'dependency',
        line: lineWith(SERVICE, '<path>', 2),
        versionAt: at(lineWith(SERVICE, '<version>1.5.5.Final')),
      },
    ]);
  });

  it('a property of the same pom: resolved, versionAt on the property line', () => {
    const poms = resolved({ 'services/inventory/pom.xml': SERVICE });
    const deps = poms.get('services/inventory/pom.xml')!.dependencies;
    expect(dep(deps, 'org.mapstruct:mapstruct')).toMatchObject({
      version: '${mapstruct.version}',
      resolvedVersion: '1.5.5.Final',
      versionRef: 'mapstruct.version',
      versionAt: at(lineWith(SERVICE, '<mapstruct.version>')),
    });
    expect(dep(deps, 'org.projectlombok:lombok')).toMatchObject({ resolvedVersion: '1.18.30', versionAt: at(lineWith(SERVICE, '<lombok.version>')) });
  });

  it('a malformed pom is reported with its line', () => {
    expect(() => parsePom(pom('  <dependencies>\n    <dependency>\n  </dependencies>\n'), 'pom.xml')).toThrow(/^line 7: <\/dependencies> closes <dependency>/);
    expect(parseManifest('maven', '<project><!-- never closed', 'pom.xml').parseError).toMatch(/^line 1: unterminated comment/);
    expect(() => parsePom('<settings/>', 'pom.xml')).toThrow('no <project> element');
  });
});

describe('resolveMavenProperties: the version a child uses, where its parent writes it', () => {
  // The shape of victools/jsonschema-generator: the parent pom is a sibling directory, named by relativePath.
  const PARENT = pom(`  <groupId>com.github.victools</groupId>
  <artifactId>jsonschema-generator-parent</artifactId>
  <version>4.35.0</version>
  <packaging>pom</packaging>

  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <version.jackson>2.17.0</version.jackson>
  </properties>
`);
  const AGGREGATOR = pom(`  <groupId>com.github.victools</groupId>
  <artifactId>jsonschema-generator-reactor</artifactId>
  <version>4.35.0</version>
  <packaging>pom</packaging>
  <properties>
    <version.jackson>0.0.0-decoy</version.jackson>
  </properties>
  <modules>
    <module>jsonschema-generator-parent</module>
    <module>jsonschema-module-jackson</module>
  </modules>
`);
  const MODULE = pom(`  <parent>
    <groupId>com.github.victools</groupId>
    <artifactId>jsonschema-generator-parent</artifactId>
    <version>4.35.0</version>
    <relativePath>../jsonschema-generator-parent/pom.xml</relativePath>
  </parent>
  <artifactId>jsonschema-module-jackson</artifactId>

  <dependencies>
    <dependency>
      <groupId>com.github.victools</groupId>
      <artifactId>jsonschema-generator</artifactId>
      <version>\${project.version}</version>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>\${version.jackson}</version>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.module</groupId>
      <artifactId>jackson-module-jakarta-xmlbind-annotations</artifactId>
      <version>\${version.jakarta.xmlbind}</version>
    </dependency>
  </dependencies>
`);
  // An integration-test project with the parent's coordinates: only relativePath tells them apart.
  const IT_COPY = PARENT.replace('<version.jackson>2.17.0', '<version.jackson>2.9.0');
  const poms = resolved({
    'jsonschema-generator/src/it/parent-copy/pom.xml': IT_COPY,
    'pom.xml': AGGREGATOR,
    'jsonschema-generator-parent/pom.xml': PARENT,
    'jsonschema-module-jackson/pom.xml': MODULE,
  });
  const moduleDeps = poms.get('jsonschema-module-jackson/pom.xml')!.dependencies;

  it('through <relativePath>: the named parent, not the pom one directory up', () => {
    expect(dep(moduleDeps, 'com.fasterxml.jackson.core:jackson-databind')).toMatchObject({
      version: '${version.jackson}',
      resolvedVersion: '2.17.0',
      versionRef: 'version.jackson',
      versionAt: { path: 'jsonschema-generator-parent/pom.xml', line: lineWith(PARENT, '<version.jackson>') },
    });
  });

  it('${project.version} without a <version> of its own: the parent version written in this pom', () => {
    expect(dep(moduleDeps, 'com.github.victools:jsonschema-generator')).toMatchObject({
      resolvedVersion: '4.35.0',
      versionRef: 'project.version',
      versionAt: { path: 'jsonschema-module-jackson/pom.xml', line: lineWith(MODULE, '<version>4.35.0') },
    });
  });

  it('an unresolvable property keeps its reference and no versionAt', () => {
    const unresolved = dep(moduleDeps, 'com.fasterxml.jackson.module:jackson-module-jakarta-xmlbind-annotations');
    expect(unresolved).toMatchObject({ version: '${version.jakarta.xmlbind}', versionRef: 'version.jakarta.xmlbind' });
    expect(unresolved.resolvedVersion).toBeUndefined();
    expect(unresolved.versionAt).toBeUndefined();
  });

  it('by coordinates when relativePath is empty, and ${revision} through a property chain', () => {
    const BUILD_PARENT = pom(`  <groupId>org.acme.platform</groupId>
  <artifactId>platform-build</artifactId>
  <version>\${revision}</version>
  <packaging>pom</packaging>
  <properties>
    <revision>2.3.0-SNAPSHOT</revision>
    <netty.version>4.1.108.Final</netty.version>
    <netty-bom.version>\${netty.version}</netty-bom.version>
  </properties>
`);
    const CHILD = pom(`  <parent>
    <groupId>org.acme.platform</groupId>
    <artifactId>platform-build</artifactId>
    <version>\${revision}</version>
    <relativePath/>
  </parent>
  <artifactId>platform-transport</artifactId>
  <version>\${revision}</version>
  <dependencies>
    <dependency>
      <groupId>io.netty</groupId>
      <artifactId>netty-bom</artifactId>
      <version>\${netty-bom.version}</version>
    </dependency>
    <dependency>
      <groupId>org.acme.platform</groupId>
      <artifactId>platform-core</artifactId>
      <version>\${project.version}</version>
    </dependency>
  </dependencies>
`);
    const found = resolved({ 'build/parent/pom.xml': BUILD_PARENT, 'transport/pom.xml': CHILD });
    const deps = found.get('transport/pom.xml')!.dependencies;
    const parentAt = (needle: string) => ({ path: 'build/parent/pom.xml', line: lineWith(BUILD_PARENT, needle) });
    expect(dep(deps, 'io.netty:netty-bom')).toMatchObject({
      resolvedVersion: '4.1.108.Final',
      versionRef: 'netty-bom.version',
      versionAt: parentAt('<netty.version>'),
    });
    expect(dep(deps, 'org.acme.platform:platform-core')).toMatchObject({ resolvedVersion: '2.3.0-SNAPSHOT', versionAt: parentAt('<revision>') });
  });

  it('a parent cycle ends the walk: what the cycle defines resolves, what it lacks stays unresolved', () => {
    const A = pom(`  <parent>
    <groupId>org.loop</groupId>
    <artifactId>b</artifactId>
    <version>1</version>
    <relativePath>../b/pom.xml</relativePath>
  </parent>
  <groupId>org.loop</groupId>
  <artifactId>a</artifactId>
  <properties>
    <slf4j.version>2.0.12</slf4j.version>
  </properties>
`);
    const B = pom(`  <parent>
    <groupId>org.loop</groupId>
    <artifactId>a</artifactId>
    <version>1</version>
    <relativePath>../a/pom.xml</relativePath>
  </parent>
  <groupId>org.loop</groupId>
  <artifactId>b</artifactId>
  <dependencies>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>\${slf4j.version}</version>
    </dependency>
    <dependency>
      <groupId>ch.qos.logback</groupId>
      <artifactId>logback-classic</artifactId>
      <version>\${logback.version}</version>
    </dependency>
  </dependencies>
`);
    const deps = resolved({ 'a/pom.xml': A, 'b/pom.xml': B }).get('b/pom.xml')!.dependencies;
    expect(dep(deps, 'org.slf4j:slf4j-api')).toMatchObject({
      resolvedVersion: '2.0.12',
      versionAt: { path: 'a/pom.xml', line: lineWith(A, '<slf4j.version>') },
    });
    expect(dep(deps, 'ch.qos.logback:logback-classic').versionAt).toBeUndefined();
    expect(dep(deps, 'ch.qos.logback:logback-classic').resolvedVersion).toBeUndefined();
  });

  it('a property naming itself through another does not loop', () => {
    const LOOP = pom(`  <groupId>x</groupId>
  <artifactId>y</artifactId>
  <properties>
    <a.version>\${b.version}</a.version>
    <b.version>\${a.version}</b.version>
  </properties>
  <dependencies>
    <dependency><groupId>g</groupId><artifactId>z</artifactId><version>\${a.version}</version></dependency>
  </dependencies>
`);
    const z = dep(resolved({ 'pom.xml': LOOP }).get('pom.xml')!.dependencies, 'g:z');
    expect(z).toMatchObject({ versionRef: 'a.version' });
    expect(z.resolvedVersion).toBeUndefined();
    expect(z.versionAt).toBeUndefined();
  });
});

describe('buildRepoMap over a Maven reactor', () => {
  it("a child's ${jackson.version} lands on the parent pom's property line", async () => {
    const ROOT = pom(`  <groupId>com.acme.shop</groupId>
  <artifactId>shop-parent</artifactId>
  <version>1.4.0-SNAPSHOT</version>
  <packaging>pom</packaging>

  <modules>
    <module>shop-model</module>
    <module>shop-api</module>
  </modules>

  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <jackson.version>2.16.1</jackson.version>
  </properties>

  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.fasterxml.jackson</groupId>
        <artifactId>jackson-bom</artifactId>
        <version>\${jackson.version}</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
`);
    const child = (artifactId: string, deps: string) =>
      pom(`  <parent>
    <groupId>com.acme.shop</groupId>
    <artifactId>shop-parent</artifactId>
    <version>1.4.0-SNAPSHOT</version>
  </parent>
  <artifactId>${artifactId}</artifactId>
  <dependencies>
${deps}  </dependencies>
`);
    const API = child(
      'shop-api',
      `    <dependency>
      <groupId>com.acme.shop</groupId>
      <artifactId>shop-model</artifactId>
      <version>\${project.version}</version>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>\${jackson.version}</version>
    </dependency>
`,
    );
    const repo = await createMemoryRepo({
      'pom.xml': ROOT,
      'shop-model/pom.xml': child('shop-model', ''),
      'shop-model/src/main/java/com/acme/shop/model/Item.java': 'package com.acme.shop.model;\n\npublic record Item(String id) {}\n',
      'shop-api/pom.xml': API,
      'shop-api/src/main/java/com/acme/shop/api/Items.java': 'package com.acme.shop.api;\n\npublic class Items {}\n',
    });
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'shop', rules: pathRulesFor({}), policyDigest: 'p' });
    const api = map.manifests.find((m) => m.path === 'shop-api/pom.xml')!;
    expect(dep(api.dependencies, 'com.fasterxml.jackson.core:jackson-databind')).toEqual({
      name: 'com.fasterxml.jackson.core:jackson-databind',
      version: '${jackson.version}',
      resolvedVersion: '2.16.1',
      versionRef: 'jackson.version',
      scope: 'compile',
      kind: 'dependency',
      line: lineWith(API, '<dependency>', 2),
      versionAt: { path: 'pom.xml', line: lineWith(ROOT, '<jackson.version>') },
    });
    expect(dep(api.dependencies, 'com.acme.shop:shop-model')).toMatchObject({
      resolvedVersion: '1.4.0-SNAPSHOT',
      versionAt: { path: 'shop-api/pom.xml', line: 8 },
    });
    const root = map.manifests.find((m) => m.path === 'pom.xml')!;
    expect(dep(root.dependencies, 'com.fasterxml.jackson:jackson-bom')).toMatchObject({
      scope: 'import',
      versionAt: { path: 'pom.xml', line: lineWith(ROOT, '<jackson.version>') },
    });
    expect(map.modules.find((m) => m.id === 'maven:shop-api')!.dependsOn).toEqual(['maven:shop-model']);
  });
});

describe('coordinates that name a property', () => {
  it("animal-sniffer's <signature> is read, and a property in its artifactId is resolved as Maven interpolates it", () => {
    const text = pom(`  <groupId>com.example</groupId>
  <artifactId>core</artifactId>
  <version>1.0</version>
  <properties>
    <version.android.sdk>26</version.android.sdk>
  </properties>
  <build>
    <plugins>
      <plugin>
        <groupId>org.codehaus.mojo</groupId>
        <artifactId>animal-sniffer-maven-plugin</artifactId>
        <version>1.23</version>
        <configuration>
          <signature>
            <groupId>com.toasttab.android</groupId>
            <artifactId>gummy-bears-api-\${version.android.sdk}</artifactId>
            <version>0.5.1</version>
          </signature>
        </configuration>
      </plugin>
    </plugins>
  </build>
`);
    const got = resolved({ 'pom.xml': text }).get('pom.xml')!;
    expect(dep(got.dependencies, 'com.toasttab.android:gummy-bears-api-26', 'signature')).toMatchObject({
      version: '0.5.1',
      line: lineWith(text, '<signature>'),
      versionAt: { path: 'pom.xml', line: lineWith(text, '<version>0.5.1</version>') },
    });
  });
});
