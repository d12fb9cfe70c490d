import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const migrate = (files: Record<string, string>, step: Record<string, unknown>) => runRecipeStep(syntax, files, { recipe: 'migrate-import', ...step });

const PERSISTENCE_OLD =
  '    <dependency>\n      <groupId>javax.persistence</groupId>\n      <artifactId>javax.persistence-api</artifactId>\n      <version>2.2</version>\n    </dependency>';
const PERSISTENCE_NEW =
  '    <dependency>\n      <groupId>jakarta.persistence</groupId>\n      <artifactId>jakarta.persistence-api</artifactId>\n      <version>3.1.0</version>\n    </dependency>';

describe('migrate-import follow-through: Maven modules', () => {
  it('with a version, replaces the old API artifact in the module pom; a module that depends on it needs nothing more', async () => {
    const { changed, text, result, files } = await migrate(mavenMultiModuleRepo(), { from: 'javax.persistence', to: 'jakarta.persistence', version: '3.1.0' });
    expect(changed).toContain('order-api/pom.xml');
    expect(changed).not.toContain('order-service/pom.xml');
    expect(changed).not.toContain('pom.xml');
    expect(await text('order-api/pom.xml')).toBe(files['order-api/pom.xml'].replace(PERSISTENCE_OLD, PERSISTENCE_NEW));
    expect(result.notes).toContain(
      "order-api/pom.xml:11: replaced javax.persistence:javax.persistence-api (the old namespace's API) with jakarta.persistence:jakarta.persistence-api:3.1.0",
    );
  });

  it('without a version, flags the old artifact and names the dependency to add, changing no pom', async () => {
    const { changed, result } = await migrate(mavenMultiModuleRepo(), { from: 'javax.persistence', to: 'jakarta.persistence' });
    expect(changed.filter((p) => p.endsWith('pom.xml'))).toEqual([]);
    expect(result.notes).toContain(
      'order-api/pom.xml:11 still depends on javax.persistence:javax.persistence-api, the artifact of javax.persistence; replace it with jakarta.persistence:jakarta.persistence-api',
    );
    // The old artifact's note says what to do; no second note for the same pom asks to add one.
    expect(result.notes.filter((n) => n.startsWith('order-api/pom.xml declares no dependency'))).toEqual([]);
  });

  const servletPom = (deps: string) => `<project>\r\n\t<artifactId>web</artifactId>\r\n\t<dependencies>\r\n${deps}\t</dependencies>\r\n</project>\r\n`;
  const dep = (g: string, a: string, v: string) =>
    `\t\t<dependency>\r\n\t\t\t<groupId>${g}</groupId>\r\n\t\t\t<artifactId>${a}</artifactId>\r\n\t\t\t<version>${v}</version>\r\n\t\t</dependency>\r\n`;
  const servlet = 'package com.acme.web;\n\nimport javax.servlet.http.HttpServlet;\n\npublic class Home extends HttpServlet {}\n';

  it("adds a missing dependency after the last one, with the pom's own indentation and line endings", async () => {
    const pom = servletPom(dep('org.slf4j', 'slf4j-api', '2.0.13'));
    const { text, result } = await migrate(
      { 'web/pom.xml': pom, 'web/src/main/java/com/acme/web/Home.java': servlet },
      { from: 'javax.servlet', to: 'jakarta.servlet', version: '6.0.0' },
    );
    expect(await text('web/pom.xml')).toBe(servletPom(dep('org.slf4j', 'slf4j-api', '2.0.13') + dep('jakarta.servlet', 'jakarta.servlet-api', '6.0.0')));
    expect(result.notes).toContain('web/pom.xml: added the dependency jakarta.servlet:jakarta.servlet-api:6.0.0 for jakarta.servlet');
  });

  it('a platform API or a groupId prefix declares the package; an unknown package is said to be unknown', async () => {
    const platform = servletPom(dep('jakarta.platform', 'jakarta.jakartaee-api', '10.0.0'));
    const one = await migrate(
      { 'web/pom.xml': platform, 'web/src/main/java/com/acme/web/Home.java': servlet },
      { from: 'javax.servlet', to: 'jakarta.servlet', version: '6.0.0' },
    );
    expect(one.changed).toEqual(['web/src/main/java/com/acme/web/Home.java']);
    expect(one.result.notes.filter((n) => n.includes('pom.xml'))).toEqual([]);
    const java = 'package a;\n\nimport com.legacy.codec.Base32;\n\nclass A {}\n';
    const byGroup = await migrate(
      { 'pom.xml': servletPom(dep('io.acme.codec', 'codec-core', '1.0')), 'src/A.java': java },
      { from: 'com.legacy.codec', to: 'io.acme.codec' },
    );
    expect(byGroup.result.notes.filter((n) => n.includes('pom.xml'))).toEqual([]);
    const jackson = 'package a;\n\nimport com.fasterxml.jackson.databind.util.StdDateFormat;\n\nclass A {}\n';
    const sameProject = await migrate(
      { 'pom.xml': servletPom(dep('org.slf4j', 'slf4j-api', '2.0.13')), 'src/A.java': jackson },
      { from: 'com.fasterxml.jackson.databind.util', to: 'com.fasterxml.jackson.core.util' },
    );
    expect(sameProject.changed).toEqual(['src/A.java']);
    expect(sameProject.result.notes).toEqual([]);
    const unknown = await migrate(
      { 'pom.xml': servletPom(dep('org.slf4j', 'slf4j-api', '2.0.13')), 'src/A.java': java },
      { from: 'com.legacy.codec', to: 'io.acme.codec' },
    );
    expect(unknown.result.notes).toContain(
      "pom.xml declares no dependency whose groupId prefixes io.acme.codec, and the artifact is not known; if it does not come transitively, add the artifact that provides it (the step's `artifact` and `version` add it)",
    );
  });

  it('Gradle: rewrites the old coordinate string in place with a version, and names the line to add without one', async () => {
    const gradle = "dependencies {\n    compileOnly 'javax.servlet:javax.servlet-api:4.0.1'\n}\n";
    const files = { 'build.gradle': gradle, 'src/main/java/com/acme/web/Home.java': servlet };
    const withVersion = await migrate(files, { from: 'javax.servlet', to: 'jakarta.servlet', version: '6.0.0' });
    expect(await withVersion.text('build.gradle')).toBe("dependencies {\n    compileOnly 'jakarta.servlet:jakarta.servlet-api:6.0.0'\n}\n");
    const without = await migrate(
      { 'build.gradle': 'dependencies {\n}\n', 'src/main/java/com/acme/web/Home.java': servlet },
      { from: 'javax.servlet', to: 'jakarta.servlet' },
    );
    expect(without.result.notes).toContain(
      'build.gradle declares no dependency that provides jakarta.servlet (it may come transitively); add implementation("jakarta.servlet:jakarta.servlet-api:<version>")',
    );
  });
});
