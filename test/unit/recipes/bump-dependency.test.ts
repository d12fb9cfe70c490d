import { describe, expect, it } from 'vitest';
import { applyBumpDependency } from '../../../src/core/engines/recipe/bump-dependency-recipe.js';
import { BumpDependencyStep } from '../../../src/core/task/recipe-steps.js';

const bump = (step: Record<string, unknown>, path: string, text: string) =>
  applyBumpDependency(BumpDependencyStep.parse({ recipe: 'bump-dependency', ...step }), { path, text });
const textOf = (step: Record<string, unknown>, path: string, text: string) => bump(step, path, text)?.text;

describe('bump-dependency: Maven', () => {
  const pom = [
    '<project>',
    '  <parent>',
    '    <groupId>org.springframework.boot</groupId>',
    '    <artifactId>spring-boot-starter-parent</artifactId>',
    '    <version>3.1.0</version>',
    '  </parent>',
    '  <properties>',
    '    <jackson.version>2.15.0</jackson.version>',
    '  </properties>',
    '  <dependencies>',
    '    <dependency>',
    '      <groupId>com.fasterxml.jackson.core</groupId>',
    '      <artifactId>jackson-databind</artifactId>',
    '      <version>${jackson.version}</version>',
    '    </dependency>',
    '    <dependency>',
    '      <groupId>org.junit</groupId>',
    '      <artifactId>junit</artifactId>',
    '      <version> 5.9.0 </version>',
    '    </dependency>',
    '    <!-- <dependency><groupId>org.junit</groupId><artifactId>junit</artifactId><version>5.9.0</version></dependency> -->',
    '  </dependencies>',
    '  <build><plugins><plugin>',
    '    <artifactId>maven-surefire-plugin</artifactId>',
    '    <version>3.0.0</version>',
    '    <dependencies><dependency><groupId>org.junit</groupId><artifactId>junit</artifactId><version>5.9.0</version></dependency></dependencies>',
    '  </plugin></plugins></build>',
    '</project>',
    '',
  ].join('\n');

  it('edits a literal dependency version in place, keeping its spacing, and never inside comments', () => {
    const out = textOf({ package: 'org.junit:junit', to: '5.10.1' }, 'pom.xml', pom)!;
    expect(out).toBe(
      pom
        .replace('<version> 5.9.0 </version>', '<version> 5.10.1 </version>')
        .replace(
          '<artifactId>junit</artifactId><version>5.9.0</version></dependency></dependencies>',
          '<artifactId>junit</artifactId><version>5.10.1</version></dependency></dependencies>',
        ),
    );
    expect(out).toContain('<!-- <dependency><groupId>org.junit</groupId><artifactId>junit</artifactId><version>5.9.0</version></dependency> -->');
  });

  it('edits the property behind a ${property} version', () => {
    expect(textOf({ package: 'com.fasterxml.jackson.core:jackson-databind', to: '2.17.1' }, 'pom.xml', pom)).toBe(
      pom.replace('<jackson.version>2.15.0</jackson.version>', '<jackson.version>2.17.1</jackson.version>'),
    );
  });

  it('edits parents and plugins (default plugin groupId), and honours from', () => {
    expect(textOf({ package: 'org.springframework.boot:spring-boot-starter-parent', to: '3.2.5' }, 'pom.xml', pom)).toBe(
      pom.replace('<version>3.1.0</version>', '<version>3.2.5</version>'),
    );
    expect(textOf({ package: 'org.apache.maven.plugins:maven-surefire-plugin', to: '3.2.5' }, 'pom.xml', pom)).toBe(
      pom.replace('<version>3.0.0</version>', '<version>3.2.5</version>'),
    );
    expect(bump({ package: 'org.junit:junit', to: '5.10.1', from: '5.8.0' }, 'pom.xml', pom)).toBeUndefined();
  });

  it('asks for the parent pom when the property is not defined here', () => {
    const child =
      '<project><dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>${a.version}</version></dependency></dependencies></project>';
    expect(bump({ package: 'g:a', to: '2' }, 'mod/pom.xml', child)?.pending).toEqual([{ property: 'a.version' }]);
  });
});

describe('bump-dependency: Gradle', () => {
  it('edits Groovy dependency strings and map notation', () => {
    const src =
      "dependencies {\n    implementation 'com.google.guava:guava:32.0.0-jre'\n    testImplementation group: 'org.junit', name: 'junit', version: '5.9.0'\n    implementation \"com.google.guava:guava-testlib:32.0.0-jre\"\n}\n";
    expect(textOf({ package: 'com.google.guava:guava', to: '33.2.0-jre' }, 'build.gradle', src)).toBe(src.replace("guava:32.0.0-jre'", "guava:33.2.0-jre'"));
    expect(textOf({ package: 'org.junit:junit', to: '5.10.0' }, 'build.gradle', src)).toBe(src.replace("version: '5.9.0'", "version: '5.10.0'"));
  });

  it('edits Kotlin DSL dependencies and plugin ids', () => {
    const src =
      'plugins {\n    id("org.springframework.boot") version "3.1.0"\n    kotlin("jvm") version "1.9.0"\n}\ndependencies {\n    implementation("com.squareup.okhttp3:okhttp:4.11.0")\n}\n';
    expect(textOf({ package: 'org.springframework.boot', to: '3.3.0' }, 'build.gradle.kts', src)).toBe(src.replace('version "3.1.0"', 'version "3.3.0"'));
    expect(textOf({ package: 'com.squareup.okhttp3:okhttp', to: '4.12.0' }, 'app/build.gradle.kts', src)).toBe(src.replace('okhttp:4.11.0', 'okhttp:4.12.0'));
    const groovy = "plugins {\n  id 'org.springframework.boot' version '3.1.0'\n}\n";
    expect(textOf({ package: 'org.springframework.boot', to: '3.3.0' }, 'build.gradle', groovy)).toBe(groovy.replace("'3.1.0'", "'3.3.0'"));
  });

  it('edits a version catalog, following version.ref', () => {
    const src =
      '[versions]\nokhttp = "4.11.0"\n\n[libraries]\nokhttp = { module = "com.squareup.okhttp3:okhttp", version.ref = "okhttp" }\nguava = "com.google.guava:guava:32.0.0-jre"\n\n[plugins]\nboot = { id = "org.springframework.boot", version = "3.1.0" }\n';
    expect(textOf({ package: 'com.squareup.okhttp3:okhttp', to: '4.12.0' }, 'gradle/libs.versions.toml', src)).toBe(
      src.replace('okhttp = "4.11.0"', 'okhttp = "4.12.0"'),
    );
    expect(textOf({ package: 'com.google.guava:guava', to: '33.0.0-jre' }, 'gradle/libs.versions.toml', src)).toBe(
      src.replace('guava:32.0.0-jre', 'guava:33.0.0-jre'),
    );
    expect(textOf({ package: 'org.springframework.boot', to: '3.3.0' }, 'gradle/libs.versions.toml', src)).toBe(
      src.replace('version = "3.1.0"', 'version = "3.3.0"'),
    );
  });
});

describe('bump-dependency: npm, Go, Python, Cargo', () => {
  it('edits package.json dependency sections, keeping ^ and ~, and nothing else', () => {
    const src =
      '{\n\t"name": "app",\n\t"dependencies": { "lodash": "^4.17.20" },\n\t"devDependencies": {\n\t\t"lodash": "~4.17.20"\n\t},\n\t"overrides": { "lodash": "4.17.20" },\n\t"peerDependencies": { "react": "workspace:*" }\n}';
    expect(textOf({ package: 'lodash', to: '4.17.21' }, 'package.json', src)).toBe(src.replace('"^4.17.20"', '"^4.17.21"').replace('"~4.17.20"', '"~4.17.21"'));
    expect(bump({ package: 'react', to: '18.3.0' }, 'package.json', src)?.notes.join()).toMatch(/not a version/);
  });

  it('edits go.mod require lines and blocks, with a v prefix', () => {
    const src =
      'module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v1.2.0\n\nrequire (\n\tgolang.org/x/text v0.14.0 // indirect\n\texample.com/libx v1.2.0\n)\n';
    expect(textOf({ package: 'golang.org/x/text', to: '0.16.0' }, 'go.mod', src)).toBe(src.replace('v0.14.0', 'v0.16.0'));
    expect(textOf({ package: 'example.com/lib', to: 'v1.3.0' }, 'go.mod', src)).toBe(src.replace('lib v1.2.0', 'lib v1.3.0'));
  });

  it('edits requirements files with PEP 503 names, keeping the operator', () => {
    const src = '# deps\nDjango==4.2.0\nrequests[security] >= 2.30.0 ; python_version > "3.8"\nmy_package~=1.0\nflask>=2.0,<3.0\n';
    expect(textOf({ package: 'django', to: '4.2.11' }, 'requirements.txt', src)).toBe(src.replace('4.2.0', '4.2.11'));
    expect(textOf({ package: 'Requests', to: '2.32.0' }, 'requirements-dev.txt', src)).toBe(src.replace('2.30.0', '2.32.0'));
    expect(textOf({ package: 'My.Package', to: '1.1' }, 'requirements.txt', src)).toBe(src.replace('~=1.0', '~=1.1'));
    expect(bump({ package: 'flask', to: '3.0' }, 'requirements.txt', src)?.edits).toEqual([]);
  });

  it('edits pyproject.toml (PEP 621 and Poetry)', () => {
    const src =
      '[project]\nname = "app"\ndependencies = [\n  "httpx>=0.25.0",\n  "pydantic==2.5.0",\n]\n\n[tool.poetry.dependencies]\npython = "^3.11"\nrich = "^13.0.0"\nclick = { version = "^8.1.0", optional = true }\n';
    expect(textOf({ package: 'httpx', to: '0.27.0' }, 'pyproject.toml', src)).toBe(src.replace('0.25.0', '0.27.0'));
    expect(textOf({ package: 'rich', to: '13.7.0' }, 'pyproject.toml', src)).toBe(src.replace('^13.0.0', '^13.7.0'));
    expect(textOf({ package: 'click', to: '8.1.7' }, 'pyproject.toml', src)).toBe(src.replace('^8.1.0', '^8.1.7'));
  });

  it('edits Cargo.toml plain, inline-table and table forms, honouring from', () => {
    const src =
      '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1.0.190"\ntokio = { version = "1.33", features = ["full"] }\n\n[dev-dependencies.serde_json]\nversion = "1.0.100"\n';
    expect(textOf({ package: 'serde', to: '1.0.200' }, 'Cargo.toml', src)).toBe(src.replace('"1.0.190"', '"1.0.200"'));
    expect(textOf({ package: 'tokio', to: '1.38', from: '1.33' }, 'Cargo.toml', src)).toBe(src.replace('"1.33"', '"1.38"'));
    expect(bump({ package: 'tokio', to: '1.38', from: '1.30' }, 'Cargo.toml', src)).toBeUndefined();
    expect(textOf({ package: 'serde_json', to: '1.0.117' }, 'Cargo.toml', src)).toBe(src.replace('"1.0.100"', '"1.0.117"'));
    expect(bump({ package: 'app', to: '9.9.9' }, 'Cargo.toml', src)).toBeUndefined();
  });

  it('keeps CRLF line endings of a manifest', () => {
    const src = 'Django==4.2.0\r\nrequests==2.30.0\r\n';
    expect(textOf({ package: 'requests', to: '2.32.0' }, 'requirements.txt', src)).toBe('Django==4.2.0\r\nrequests==2.32.0\r\n');
  });
});
