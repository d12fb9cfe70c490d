import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { layoutDeclaredIn } from '../../../src/core/engines/recipe/import-placement/declared-layout.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const SOURCE = `package com.acme.web;

import java.util.List;

import javax.annotation.PostConstruct;

import org.apache.commons.logging.Log;

import org.springframework.stereotype.Component;

@Component
public class Warmup {
    private List<String> names;
    private Log log;

    @PostConstruct
    void start() {
    }
}
`;

const pom = (plugins: string) =>
  `<project>\n  <modelVersion>4.0.0</modelVersion>\n  <build>\n    <plugins>\n${plugins}    </plugins>\n  </build>\n</project>\n`;
const FORMATTER =
  '      <plugin>\n        <groupId>io.spring.javaformat</groupId>\n        <artifactId>spring-javaformat-maven-plugin</artifactId>\n      </plugin>\n';
const SPRING = pom(
  `${FORMATTER}      <plugin>\n        <artifactId>maven-checkstyle-plugin</artifactId>\n        <dependencies>\n          <dependency>\n            <groupId>io.spring.javaformat</groupId>\n            <artifactId>spring-javaformat-checkstyle</artifactId>\n          </dependency>\n        </dependencies>\n      </plugin>\n`,
);
const step = { recipe: 'migrate-import', from: 'javax.annotation', to: 'jakarta.annotation' };

describe('imports placed as the project formatter declares', () => {
  it("Spring's checkstyle rules: a jakarta import joins the group of other libraries, as they order it", async () => {
    const run = await runRecipeStep(syntax, { 'pom.xml': SPRING, 'src/main/java/com/acme/web/Warmup.java': SOURCE }, step);
    expect(await run.text('src/main/java/com/acme/web/Warmup.java')).toContain(
      'import java.util.List;\n\nimport jakarta.annotation.PostConstruct;\nimport org.apache.commons.logging.Log;\n\nimport org.springframework.stereotype.Component;\n',
    );
    expect(run.result.notes).toContain('Java imports placed as spring-javaformat-checkstyle orders them (declared in pom.xml)');
  });

  it('without a declared import order (the formatter plugin alone orders none) the file’s own groups decide, and nothing is claimed', async () => {
    const run = await runRecipeStep(syntax, { 'pom.xml': pom(FORMATTER), 'src/main/java/com/acme/web/Warmup.java': SOURCE }, step);
    expect(await run.text('src/main/java/com/acme/web/Warmup.java')).toContain(
      'import java.util.List;\n\nimport jakarta.annotation.PostConstruct;\n\nimport org.apache',
    );
    expect(run.result.notes.join('\n')).not.toContain('orders them');
  });

  it('reads the declarations of google-java-format, palantir and Spotless importOrder', () => {
    const google = layoutDeclaredIn('build.gradle', "spotless {\n  java {\n    googleJavaFormat('1.17.0')\n  }\n}\n")!;
    expect(google.name).toBe('google-java-format');
    expect([google.groupOf({ key: 'org.junit.Assert.assertEquals', kind: 'static' }), google.groupOf({ key: 'java.util.List', kind: 'normal' })]).toEqual([
      0, 1,
    ]);
    expect(layoutDeclaredIn('build.gradle.kts', 'spotless { java { palantirJavaFormat() } }')!.name).toBe('palantir-java-format');
    const spotless = layoutDeclaredIn('build.gradle', "spotless { java { importOrder('java', 'javax', 'com.acme', '') } }")!;
    expect(['java.util.List', 'javax.inject.Inject', 'com.acme.Foo', 'org.slf4j.Logger'].map((key) => spotless.groupOf({ key, kind: 'normal' }))).toEqual([
      0, 1, 2, 3,
    ]);
    const maven = layoutDeclaredIn('pom.xml', '<importOrder><order>java,javax,org,com</order></importOrder>')!;
    expect(maven.groupOf({ key: 'org.slf4j.Logger', kind: 'normal' })).toBe(2);
    expect(layoutDeclaredIn('pom.xml', pom(''))).toBeUndefined();
  });
});
