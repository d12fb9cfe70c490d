import { describe, expect, it } from 'vitest';
import { manifestKindFor } from '../../../src/core/manifests/manifest-kinds.js';
import type { ManifestDependency, ManifestRecord } from '../../../src/core/manifests/manifest-schema.js';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';
import { resolveManifests } from '../../../src/core/manifests/resolve-manifests.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';

/** The 1-based line of `text` that holds `snippet` (exactly one must). */
function lineOf(text: string, snippet: string): number {
  const hits = text.split('\n').flatMap((l, i) => (l.includes(snippet) ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`${hits.length} lines hold ${snippet}`);
  return hits[0];
}

function parsed(path: string, text: string): ManifestRecord {
  const kind = manifestKindFor(path)!;
  return { path, kind, ...parseManifest(kind, text, path), evidenceRef: `ev:${path}` };
}

const dep = (m: { dependencies: ManifestDependency[] }, name: string, scope?: string): ManifestDependency | undefined =>
  m.dependencies.find((d) => d.name === name && (scope === undefined || d.scope === scope));

// A catalog in the shape of Android and Kotlin projects' gradle/libs.versions.toml.
const CATALOG = `# Versions shared by the app and build-logic
[versions]
agp = "8.5.2"
kotlin = "1.9.24"
androidxCore = "1.13.1"
composeBom = "2024.06.00"
guava = { strictly = "[32.0, 34.0[", prefer = "33.2.1-jre" }
"okhttp" = { require = "4.12.0" }

[versions.retrofit]
strictly = "2.11.0"

[libraries]
androidx-core-ktx = { group = "androidx.core", name = "core-ktx", version.ref = "androidxCore" }
androidx-compose-bom = { group = "androidx.compose", name = "compose-bom", version.ref = "composeBom" }
androidx-compose-ui = { group = "androidx.compose.ui", name = "ui" }
guava = { module = "com.google.guava:guava", version.ref = "guava" }
okhttp-logging = { module = "com.squareup.okhttp3:logging-interceptor", version = { ref = "okhttp" } }
junit4 = "junit:junit:4.13.2"
"truth" = { module = "com.google.truth:truth", version = "1.4.4" }
kotlin-gradlePlugin = { group = "org.jetbrains.kotlin", name = "kotlin-gradle-plugin", version.ref = "kotlin" }
mockk = { module = "io.mockk:mockk", version = { strictly = "1.13.11" } }
broken-ref = { module = "org.example:broken", version.ref = "nowhere" }
odd.shape = "org.example:odd:1.0"

[libraries.retrofit]
module = "com.squareup.retrofit2:retrofit"
version.ref = "retrofit"

[plugins]
android-application = { id = "com.android.application", version.ref = "agp" }
kotlin-jvm = { id = "org.jetbrains.kotlin.jvm", version.ref = "kotlin" }
detekt = { id = "io.gitlab.arturbosch.detekt", version = "1.23.6" }
spotless = "com.diffplug.spotless:6.25.0"

[bundles]
network = ["okhttp-logging",
  "retrofit"]
`;

describe('parseGradleCatalog', () => {
  const path = 'gradle/libs.versions.toml';
  const catalog = parsed(path, CATALOG);
  const at = (snippet: string) => ({ path, line: lineOf(CATALOG, snippet) });

  it('reads [versions], plain and rich, inline and as a sub-table, with their lines', () => {
    expect(catalog.parseError).toBeUndefined();
    expect(catalog.properties).toMatchObject({ agp: '8.5.2', guava: '33.2.1-jre', okhttp: '4.12.0', retrofit: '2.11.0' });
    expect(catalog.propertyLines).toMatchObject({
      agp: lineOf(CATALOG, 'agp = "8.5.2"'),
      okhttp: lineOf(CATALOG, '"okhttp" = {'),
      retrofit: lineOf(CATALOG, 'strictly = "2.11.0"'),
    });
  });

  it('reads [libraries] in every form: version.ref, version = { ref }, a g:a:v string, a literal, a rich literal, none', () => {
    expect(dep(catalog, 'androidx.core:core-ktx')).toEqual({
      name: 'androidx.core:core-ktx',
      kind: 'dependency',
      alias: 'androidx-core-ktx',
      line: lineOf(CATALOG, 'androidx-core-ktx ='),
      version: '1.13.1',
      resolvedVersion: '1.13.1',
      versionRef: 'androidxCore',
      versionAt: at('androidxCore = "1.13.1"'),
    });
    expect(dep(catalog, 'com.google.guava:guava')).toMatchObject({ version: '33.2.1-jre', versionRef: 'guava', versionAt: at('guava = { strictly') });
    expect(dep(catalog, 'com.squareup.okhttp3:logging-interceptor')).toMatchObject({ version: '4.12.0', versionRef: 'okhttp', versionAt: at('"okhttp" = {') });
    expect(dep(catalog, 'junit:junit')).toEqual({
      name: 'junit:junit',
      kind: 'dependency',
      alias: 'junit4',
      line: lineOf(CATALOG, 'junit4 ='),
      version: '4.13.2',
      versionAt: at('junit4 ='),
    });
    expect(dep(catalog, 'com.google.truth:truth')).toMatchObject({ alias: 'truth', version: '1.4.4', versionAt: at('"truth" =') });
    expect(dep(catalog, 'io.mockk:mockk')).toMatchObject({ version: '1.13.11', versionAt: at('mockk =') });
    expect(dep(catalog, 'io.mockk:mockk')?.versionRef).toBeUndefined();
    const bomManaged = dep(catalog, 'androidx.compose.ui:ui')!;
    expect(bomManaged).toMatchObject({ alias: 'androidx-compose-ui', line: lineOf(CATALOG, 'androidx-compose-ui =') });
    expect(bomManaged.version).toBeUndefined();
    expect(bomManaged.versionAt).toBeUndefined();
    // A reference to a version the catalog does not write: the name, but nothing to edit.
    expect(dep(catalog, 'org.example:broken')).toEqual({
      name: 'org.example:broken',
      kind: 'dependency',
      alias: 'broken-ref',
      line: lineOf(CATALOG, 'broken-ref ='),
      versionRef: 'nowhere',
    });
  });

  it('reads a [libraries.x] sub-table at its header, its version at the [versions.x] key, and skips shapes it does not know', () => {
    expect(dep(catalog, 'com.squareup.retrofit2:retrofit')).toMatchObject({
      alias: 'retrofit',
      line: lineOf(CATALOG, '[libraries.retrofit]'),
      version: '2.11.0',
      versionRef: 'retrofit',
      versionAt: at('strictly = "2.11.0"'),
    });
    expect(catalog.dependencies.some((d) => d.name.includes('odd'))).toBe(false);
  });

  it('reads [plugins] by id ({ id, version.ref }, { id, version }, "id:version") and [bundles] by name', () => {
    expect(dep(catalog, 'com.android.application')).toEqual({
      name: 'com.android.application',
      kind: 'plugin',
      alias: 'android-application',
      line: lineOf(CATALOG, 'android-application ='),
      version: '8.5.2',
      resolvedVersion: '8.5.2',
      versionRef: 'agp',
      versionAt: at('agp = "8.5.2"'),
    });
    expect(dep(catalog, 'io.gitlab.arturbosch.detekt')).toMatchObject({ kind: 'plugin', version: '1.23.6', versionAt: at('detekt =') });
    expect(dep(catalog, 'com.diffplug.spotless')).toMatchObject({ kind: 'plugin', version: '6.25.0', versionAt: at('spotless =') });
    expect(catalog.plugins).toEqual(['com.android.application', 'com.diffplug.spotless', 'io.gitlab.arturbosch.detekt', 'org.jetbrains.kotlin.jvm']);
    expect(catalog.facts).toEqual({ bundles: 'network' });
  });

  it('reports a catalog that is not TOML', () => {
    expect(parsed(path, '[versions]\nkotlin = "1.9\n').parseError).toBeTruthy();
  });
});

// A Kotlin DSL module script in the shape of an Android app's app/build.gradle.kts.
const KTS = `import org.jetbrains.kotlin.gradle.dsl.JvmTarget

plugins {
    alias(libs.plugins.android.application)
    kotlin("jvm") version "1.9.24"
    id("com.google.devtools.ksp") version "1.9.24-1.0.20"
    id("org.jetbrains.kotlin.plugin.serialization") version kotlinVersion
    \`java-library\`
}

val mirror = "https://mirror.example.com//maven"; val okioVersion = "3.9.0"
val kotlinxCoroutines: String by project
extra["moshiVersion"] = "1.15.1"
val functionalTest by configurations.creating

configurations {
    create("integrationImplementation")
}

dependencies {
    implementation(libs.androidx.core.ktx)
    implementation(platform(libs.androidx.compose.bom))
    implementation(platform("org.jetbrains.kotlin:kotlin-bom:1.9.24"))
    implementation("com.squareup.okio:okio:$okioVersion")
    implementation("com.squareup.moshi:moshi:\${moshiVersion}")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core:$kotlinxCoroutines")
    "integrationImplementation"("org.testcontainers:postgresql:1.19.8")
    functionalTest("io.kotest:kotest-runner-junit5:5.9.1")
    testImplementation(kotlin("test"))
    implementation(projects.core.data)
    implementation(project(":core:model"))
    implementation(group = "com.google.code.gson", name = "gson", version = "2.11.0")
    // implementation("commented.out:gone:1.0")
    /* implementation("commented.out:gone-too:1.0") */
    constraints {
        implementation("org.apache.commons:commons-text:1.12.0") { because("CVE-2022-42889: see https://example.com") }
    }
}

tasks.withType<Test> { useJUnitPlatform() }
`;

describe('parseGradleBuild on a Kotlin DSL script', () => {
  const path = 'app/build.gradle.kts';
  const m = parsed(path, KTS);
  const here = (snippet: string) => ({ path, line: lineOf(KTS, snippet) });

  it('reads plugins: id(...) version, kotlin("jvm") version, a version variable, and alias(libs.plugins...) for the resolve pass', () => {
    expect(dep(m, 'org.jetbrains.kotlin.jvm')).toEqual({
      name: 'org.jetbrains.kotlin.jvm',
      kind: 'plugin',
      line: lineOf(KTS, 'kotlin("jvm")'),
      version: '1.9.24',
      versionAt: here('kotlin("jvm")'),
    });
    expect(dep(m, 'com.google.devtools.ksp')).toMatchObject({ kind: 'plugin', version: '1.9.24-1.0.20', versionAt: here('devtools.ksp') });
    expect(dep(m, 'org.jetbrains.kotlin.plugin.serialization')).toEqual({
      name: 'org.jetbrains.kotlin.plugin.serialization',
      kind: 'plugin',
      line: lineOf(KTS, 'plugin.serialization'),
      version: 'kotlinVersion',
      versionRef: 'kotlinVersion',
    });
    expect(dep(m, 'libs.plugins.android.application')).toEqual({
      name: 'libs.plugins.android.application',
      kind: 'plugin',
      line: lineOf(KTS, 'alias(libs.plugins'),
      versionRef: 'libs.plugins.android.application',
    });
    expect(m.plugins).toEqual(['com.google.devtools.ksp', 'org.jetbrains.kotlin.jvm', 'org.jetbrains.kotlin.plugin.serialization']);
  });

  it('reads declarations under any configuration: standard, quoted custom, creating, platform(), map notation, constraints', () => {
    expect(dep(m, 'org.jetbrains.kotlin:kotlin-bom')).toMatchObject({ scope: 'implementation', version: '1.9.24', versionAt: here('kotlin-bom') });
    expect(dep(m, 'org.testcontainers:postgresql')).toEqual({
      name: 'org.testcontainers:postgresql',
      kind: 'dependency',
      scope: 'integrationImplementation',
      line: lineOf(KTS, 'testcontainers'),
      version: '1.19.8',
      versionAt: here('testcontainers'),
    });
    expect(dep(m, 'io.kotest:kotest-runner-junit5')).toMatchObject({ scope: 'functionalTest', version: '5.9.1' });
    expect(dep(m, 'com.google.code.gson:gson')).toMatchObject({ scope: 'implementation', version: '2.11.0', versionAt: here('name = "gson"') });
    expect(dep(m, 'org.apache.commons:commons-text')).toMatchObject({ scope: 'implementation', version: '1.12.0', line: lineOf(KTS, 'commons-text') });
    expect(m.dependencies.some((d) => d.name.startsWith('commented.out'))).toBe(false);
    expect(m.dependencies.some((d) => d.scope === 'platform' || d.scope === 'because' || d.scope === 'kotlin')).toBe(false);
  });

  it('follows $v and ${v} to val and extra[] variables of the script; leaves a `by project` property to the resolve pass', () => {
    expect(dep(m, 'com.squareup.okio:okio')).toEqual({
      name: 'com.squareup.okio:okio',
      kind: 'dependency',
      scope: 'implementation',
      line: lineOf(KTS, 'okio:okio'),
      version: '$okioVersion',
      resolvedVersion: '3.9.0',
      versionRef: 'okioVersion',
      // The variable sits after a string holding `//`: comments are stripped without eating it.
      versionAt: here('val okioVersion'),
    });
    expect(dep(m, 'com.squareup.moshi:moshi')).toMatchObject({
      version: '${moshiVersion}',
      resolvedVersion: '1.15.1',
      versionRef: 'moshiVersion',
      versionAt: here('extra["moshiVersion"]'),
    });
    const coroutines = dep(m, 'org.jetbrains.kotlinx:kotlinx-coroutines-core')!;
    expect(coroutines).toMatchObject({ version: '$kotlinxCoroutines', versionRef: 'kotlinxCoroutines' });
    expect(coroutines.versionAt).toBeUndefined();
    expect(m.properties).toEqual({ moshiVersion: '1.15.1' });
    expect(m.propertyLines).toEqual({ moshiVersion: lineOf(KTS, 'extra["moshiVersion"]') });
  });

  it('records catalog accessors (also inside platform()) with versionRef and no version, and type-safe project accessors as project edges', () => {
    expect(dep(m, 'libs.androidx.core.ktx')).toEqual({
      name: 'libs.androidx.core.ktx',
      kind: 'dependency',
      scope: 'implementation',
      line: lineOf(KTS, 'libs.androidx.core.ktx'),
      versionRef: 'libs.androidx.core.ktx',
    });
    expect(dep(m, 'libs.androidx.compose.bom')).toMatchObject({ versionRef: 'libs.androidx.compose.bom', line: lineOf(KTS, 'compose.bom') });
    expect(dep(m, ':core:data')).toMatchObject({ kind: 'project', target: 'core/data', scope: 'implementation' });
    expect(dep(m, ':core:model')).toMatchObject({ kind: 'project', target: 'core/model', scope: 'implementation', line: lineOf(KTS, ':core:model') });
  });
});

// A Groovy DSL build in the shape of an older Spring/Android project's build.gradle.
const GROOVY = `buildscript {
    ext.kotlin_version = '1.9.24'
    ext {
        daggerVersion = '2.51.1'
    }
    repositories {
        google()
        mavenCentral()
    }
    dependencies {
        classpath "org.jetbrains.kotlin:kotlin-gradle-plugin:$kotlin_version"
        classpath 'com.android.tools.build:gradle:8.5.2'
    }
}

plugins {
    id 'java'
    id 'org.springframework.boot' version '3.3.1'
    id "io.spring.dependency-management" version "1.1.5" apply false
}

group = 'com.example'
version = '0.0.1-SNAPSHOT'
def jacksonVersion = '2.17.1'

configurations {
    agent
}

repositories {
    maven { url 'https://repo.example.com/maven2' } // a mirror
}

dependencies {
    implementation "com.google.dagger:dagger:\${daggerVersion}"
    implementation group: 'com.fasterxml.jackson.core', name: 'jackson-databind', version: jacksonVersion
    implementation enforcedPlatform('org.springframework.boot:spring-boot-dependencies:3.3.1')
    implementation 'org.springframework.boot:spring-boot-starter-web'
    agent 'io.opentelemetry.javaagent:opentelemetry-javaagent:2.5.0'
    implementation project(':shared')
    testImplementation 'org.junit.jupiter:junit-jupiter:5.10.2' // https://junit.org
    runtimeOnly "org.postgresql:postgresql:42.7.3@jar"
}
`;

describe('parseGradleBuild on a Groovy script', () => {
  const path = 'build.gradle';
  const m = parsed(path, GROOVY);
  const here = (snippet: string) => ({ path, line: lineOf(GROOVY, snippet) });

  it('reads buildscript classpath with an ext.v variable, and plugins by id with and without a version', () => {
    expect(dep(m, 'org.jetbrains.kotlin:kotlin-gradle-plugin')).toEqual({
      name: 'org.jetbrains.kotlin:kotlin-gradle-plugin',
      kind: 'dependency',
      scope: 'classpath',
      line: lineOf(GROOVY, 'kotlin-gradle-plugin'),
      version: '$kotlin_version',
      resolvedVersion: '1.9.24',
      versionRef: 'kotlin_version',
      versionAt: here('ext.kotlin_version'),
    });
    expect(dep(m, 'com.android.tools.build:gradle')).toMatchObject({ scope: 'classpath', version: '8.5.2', versionAt: here('build:gradle:8.5.2') });
    expect(dep(m, 'org.springframework.boot')).toEqual({
      name: 'org.springframework.boot',
      kind: 'plugin',
      line: lineOf(GROOVY, "id 'org.springframework.boot'"),
      version: '3.3.1',
      versionAt: here("id 'org.springframework.boot'"),
    });
    expect(dep(m, 'io.spring.dependency-management')).toMatchObject({ version: '1.1.5' });
    expect(dep(m, 'java')).toMatchObject({ kind: 'plugin', line: lineOf(GROOVY, "id 'java'") });
    expect(dep(m, 'java')?.version).toBeUndefined();
  });

  it('reads ext { } and def variables, map notation with a bare variable, enforcedPlatform, a custom configuration, @extension', () => {
    expect(dep(m, 'com.google.dagger:dagger')).toMatchObject({
      version: '${daggerVersion}',
      resolvedVersion: '2.51.1',
      versionRef: 'daggerVersion',
      versionAt: here("daggerVersion = '2.51.1'"),
    });
    expect(dep(m, 'com.fasterxml.jackson.core:jackson-databind')).toEqual({
      name: 'com.fasterxml.jackson.core:jackson-databind',
      kind: 'dependency',
      scope: 'implementation',
      line: lineOf(GROOVY, 'jackson-databind'),
      version: 'jacksonVersion',
      resolvedVersion: '2.17.1',
      versionRef: 'jacksonVersion',
      versionAt: here('def jacksonVersion'),
    });
    expect(dep(m, 'org.springframework.boot:spring-boot-dependencies')).toMatchObject({ scope: 'implementation', version: '3.3.1' });
    const managed = dep(m, 'org.springframework.boot:spring-boot-starter-web')!;
    expect(managed.version).toBeUndefined();
    expect(managed.versionAt).toBeUndefined();
    expect(dep(m, 'io.opentelemetry.javaagent:opentelemetry-javaagent')).toMatchObject({
      scope: 'agent',
      version: '2.5.0',
      line: lineOf(GROOVY, 'javaagent:2.5.0'),
    });
    expect(dep(m, 'org.junit.jupiter:junit-jupiter')).toMatchObject({ scope: 'testImplementation', version: '5.10.2' });
    expect(dep(m, 'org.postgresql:postgresql')).toMatchObject({ scope: 'runtimeOnly', version: '42.7.3', versionAt: here('postgresql:42.7.3') });
    expect(dep(m, ':shared')).toMatchObject({ kind: 'project', target: 'shared', line: lineOf(GROOVY, "project(':shared')") });
    expect(m.properties).toEqual({ kotlin_version: '1.9.24', daggerVersion: '2.51.1' });
    expect(m.facts).toEqual({ group: 'com.example' });
    expect(m.version).toBe('0.0.1-SNAPSHOT');
  });

  it('runs in linear time on hostile input', () => {
    const n = 200_000;
    const hostile = [
      `dependencies {\n implementation${' '.repeat(n)}x`,
      `plugins {\n id${' '.repeat(n)}x`,
      `dependencies {\n implementation(${'libs.a'.repeat(n / 6)}`,
      `dependencies {\n implementation group: 'g', ${'name: '.repeat(n / 6)}`,
      `val${' '.repeat(n)}x`,
      `ext.v${' '.repeat(n)}=`,
      `${'{'.repeat(n / 2)}dependencies {`,
      `"${'\\'.repeat(n)}`,
      `/*${'*'.repeat(n)}`,
    ];
    const started = Date.now();
    for (const text of hostile) {
      parsed('build.gradle.kts', text);
      parsed('settings.gradle.kts', text);
    }
    expect(Date.now() - started).toBeLessThan(3000);
    expect(parsed('build.gradle', 'x'.repeat(1_000_001)).parseError).toMatch(/longer than/);
  });
});

const SETTINGS = `pluginManagement {
    includeBuild("build-logic")
    repositories {
        google()
        gradlePluginPortal()
    }
    plugins {
        id("com.android.application") version "8.5.2"
        kotlin("android") version "1.9.24"
    }
}

plugins {
    id("org.gradle.toolchains.foojay-resolver-convention") version "0.8.0"
}

rootProject.name = "nowinandroid"
include(":app")
include(":core:data", ":core:model")
`;

describe('parseGradleSettings', () => {
  it('reads settings plugins {} and pluginManagement { plugins {} } as plugin dependencies, with the includes', () => {
    const path = 'settings.gradle.kts';
    const m = parsed(path, SETTINGS);
    expect(m.name).toBe('nowinandroid');
    expect(m.members).toEqual(['app', 'core/data', 'core/model']);
    expect(dep(m, 'org.gradle.toolchains.foojay-resolver-convention')).toEqual({
      name: 'org.gradle.toolchains.foojay-resolver-convention',
      kind: 'plugin',
      line: lineOf(SETTINGS, 'foojay'),
      version: '0.8.0',
      versionAt: { path, line: lineOf(SETTINGS, 'foojay') },
    });
    expect(dep(m, 'com.android.application')).toMatchObject({ scope: 'pluginManagement', version: '8.5.2', line: lineOf(SETTINGS, 'com.android.application') });
    expect(dep(m, 'org.jetbrains.kotlin.android')).toMatchObject({ scope: 'pluginManagement', version: '1.9.24', line: lineOf(SETTINGS, 'kotlin("android")') });
    expect(m.plugins).toEqual(['com.android.application', 'org.gradle.toolchains.foojay-resolver-convention', 'org.jetbrains.kotlin.android']);
  });
});

const PROPERTIES = `# Project-wide Gradle settings.
org.gradle.jvmargs=-Xmx2048m -Dfile.encoding=UTF-8
android.useAndroidX=true
kotlinxCoroutines=1.8.1
kotlinVersion = 1.9.24
! another comment
okhttp.version: 4.12.0
long.list=a,\\
   b
`;

describe('gradle.properties', () => {
  it('is its own manifest kind, read with the line of each key', () => {
    expect(manifestKindFor('gradle.properties')).toBe('gradle-properties');
    const m = parsed('gradle.properties', PROPERTIES);
    expect(m.properties).toEqual({
      'org.gradle.jvmargs': '-Xmx2048m -Dfile.encoding=UTF-8',
      'android.useAndroidX': 'true',
      kotlinxCoroutines: '1.8.1',
      kotlinVersion: '1.9.24',
      'okhttp.version': '4.12.0',
      'long.list': 'a,b',
    });
    expect(m.propertyLines).toMatchObject({ kotlinxCoroutines: 4, kotlinVersion: 5, 'okhttp.version': 7, 'long.list': 8 });
  });

  it('resolves $name references of scripts to the nearest gradle.properties or an ancestor build ext property, through resolveManifests', () => {
    const sub = `dependencies {\n    implementation "com.squareup.okhttp3:okhttp:\${property('okhttp.version')}"\n    implementation "org.jetbrains.kotlin:kotlin-reflect:$kotlin_version"\n    implementation "org.jetbrains.kotlinx:kotlinx-coroutines-core:$kotlinxCoroutines"\n    implementation "org.example:unknown:$nowhere"\n}\n`;
    const resolved = resolveManifests([
      parsed('gradle.properties', PROPERTIES),
      parsed('build.gradle', GROOVY),
      parsed('core/gradle.properties', 'kotlinxCoroutines=1.9.0-RC\n'),
      parsed('core/data/build.gradle', sub),
      parsed('app/build.gradle.kts', KTS),
    ]);
    const data = resolved.find((m) => m.path === 'core/data/build.gradle')!;
    expect(dep(data, 'com.squareup.okhttp3:okhttp')).toMatchObject({
      versionRef: 'okhttp.version',
      resolvedVersion: '4.12.0',
      versionAt: { path: 'gradle.properties', line: 7 },
    });
    expect(dep(data, 'org.jetbrains.kotlin:kotlin-reflect')).toMatchObject({
      version: '$kotlin_version',
      resolvedVersion: '1.9.24',
      versionAt: { path: 'build.gradle', line: lineOf(GROOVY, 'ext.kotlin_version') },
    });
    // The nearer gradle.properties wins.
    expect(dep(data, 'org.jetbrains.kotlinx:kotlinx-coroutines-core')).toMatchObject({
      resolvedVersion: '1.9.0-RC',
      versionAt: { path: 'core/gradle.properties', line: 1 },
    });
    expect(dep(data, 'org.example:unknown')?.versionAt).toBeUndefined();
    const app = resolved.find((m) => m.path === 'app/build.gradle.kts')!;
    expect(dep(app, 'org.jetbrains.kotlinx:kotlinx-coroutines-core')).toMatchObject({
      version: '$kotlinxCoroutines',
      resolvedVersion: '1.8.1',
      versionAt: { path: 'gradle.properties', line: 4 },
    });
    expect(dep(app, 'org.jetbrains.kotlin.plugin.serialization')).toMatchObject({
      resolvedVersion: '1.9.24',
      versionAt: { path: 'gradle.properties', line: 5 },
    });
  });
});

describe('resolveCatalogReferences', () => {
  it('gives each libs accessor the catalog entry name, version and versionAt; a named catalog answers to its own name', () => {
    const testLibs = `[versions]\nturbine = "1.1.0"\n\n[libraries]\nturbine = { module = "app.cash.turbine:turbine", version.ref = "turbine" }\n`;
    const script = `plugins {\n    alias(libs.plugins.kotlin.jvm)\n}\n\ndependencies {\n    implementation(libs.androidx.core.ktx)\n    implementation(platform(libs.androidx.compose.bom))\n    implementation(libs.androidx.compose.ui)\n    implementation("com.squareup.retrofit2:converter-moshi:\${libs.versions.retrofit.get()}")\n    testImplementation(testLibs.turbine)\n    testImplementation(libs.not.in.catalog)\n}\n`;
    const resolved = resolveManifests([
      parsed('gradle/libs.versions.toml', CATALOG),
      parsed('gradle/testLibs.versions.toml', testLibs),
      parsed('feature/foryou/build.gradle.kts', script),
    ]);
    const m = resolved.find((r) => r.path === 'feature/foryou/build.gradle.kts')!;
    const catalogAt = (snippet: string) => ({ path: 'gradle/libs.versions.toml', line: lineOf(CATALOG, snippet) });
    expect(dep(m, 'androidx.core:core-ktx')).toEqual({
      name: 'androidx.core:core-ktx',
      kind: 'dependency',
      scope: 'implementation',
      line: 6,
      versionRef: 'libs.androidx.core.ktx',
      resolvedVersion: '1.13.1',
      versionAt: catalogAt('androidxCore = "1.13.1"'),
    });
    expect(dep(m, 'androidx.compose:compose-bom')).toMatchObject({ resolvedVersion: '2024.06.00', versionAt: catalogAt('composeBom = ') });
    const ui = dep(m, 'androidx.compose.ui:ui')!;
    expect(ui.versionRef).toBe('libs.androidx.compose.ui');
    expect(ui.versionAt).toBeUndefined();
    expect(dep(m, 'org.jetbrains.kotlin.jvm')).toMatchObject({ kind: 'plugin', resolvedVersion: '1.9.24', versionAt: catalogAt('kotlin = "1.9.24"') });
    expect(m.plugins).toEqual(['org.jetbrains.kotlin.jvm']);
    expect(dep(m, 'com.squareup.retrofit2:converter-moshi')).toMatchObject({
      version: '${libs.versions.retrofit.get()}',
      versionRef: 'libs.versions.retrofit',
      resolvedVersion: '2.11.0',
      versionAt: catalogAt('strictly = "2.11.0"'),
    });
    expect(dep(m, 'app.cash.turbine:turbine')).toMatchObject({
      scope: 'testImplementation',
      resolvedVersion: '1.1.0',
      versionAt: { path: 'gradle/testLibs.versions.toml', line: 2 },
    });
    expect(dep(m, 'libs.not.in.catalog')).toMatchObject({ versionRef: 'libs.not.in.catalog' });
  });
});

describe('buildRepoMap on a Gradle multi-project build with a catalog and buildSrc', () => {
  it('reads every script, resolves accessors (buildSrc through the root catalog), and opens modules only for build scripts', async () => {
    const rootBuild = `plugins {\n    alias(libs.plugins.android.application) apply false\n    alias(libs.plugins.kotlin.jvm) apply false\n}\n`;
    const app = `plugins {\n    id("example.android-conventions")\n    alias(libs.plugins.android.application)\n}\n\ndependencies {\n    implementation(projects.core.data)\n    implementation(libs.androidx.core.ktx)\n    testImplementation(libs.junit4)\n}\n`;
    const data = `plugins {\n    id("example.android-conventions")\n}\n\ndependencies {\n    implementation(libs.retrofit)\n    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core:$kotlinxCoroutines")\n}\n`;
    const buildSrc = `plugins {\n    \`kotlin-dsl\`\n}\n\ndependencies {\n    implementation(libs.kotlin.gradlePlugin)\n}\n`;
    const convention = `plugins {\n    id("org.jetbrains.kotlin.android")\n}\n\ndependencies {\n    "testImplementation"("io.mockk:mockk:1.13.11")\n}\n`;
    const repo = await createMemoryRepo({
      'settings.gradle.kts': SETTINGS,
      'build.gradle.kts': rootBuild,
      'gradle.properties': PROPERTIES,
      'gradle/libs.versions.toml': CATALOG,
      gradlew: '#!/bin/sh\n',
      'app/build.gradle.kts': app,
      'app/src/main/kotlin/com/example/app/MainActivity.kt': 'package com.example.app\nclass MainActivity\n',
      'core/data/build.gradle.kts': data,
      'core/data/src/main/kotlin/com/example/data/Repo.kt': 'package com.example.data\nclass Repo\n',
      'buildSrc/build.gradle.kts': buildSrc,
      'buildSrc/src/main/kotlin/example.android-conventions.gradle.kts': convention,
    });
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'demo', rules: pathRulesFor({}), policyDigest: 'p1' });
    expect(map.warnings.filter((w) => w.code.startsWith('MANIFEST'))).toEqual([]);
    expect(map.modules.map((m) => m.id)).toEqual(['gradle:.', 'gradle:app', 'gradle:buildSrc', 'gradle:core/data']);
    expect(map.modules.find((m) => m.id === 'gradle:.')!.manifests).toEqual(['build.gradle.kts', 'gradle.properties', 'settings.gradle.kts']);
    expect(map.modules.find((m) => m.id === 'gradle:app')!.dependsOn).toEqual(['gradle:core/data']);
    const manifest = (path: string) => map.manifests.find((m) => m.path === path)!;
    expect(manifest('gradle/libs.versions.toml').kind).toBe('gradle-catalog');
    expect(manifest('buildSrc/src/main/kotlin/example.android-conventions.gradle.kts').kind).toBe('gradle-script');
    const catalogAt = (snippet: string) => ({ path: 'gradle/libs.versions.toml', line: lineOf(CATALOG, snippet) });
    expect(dep(manifest('app/build.gradle.kts'), 'androidx.core:core-ktx')).toMatchObject({
      resolvedVersion: '1.13.1',
      versionAt: catalogAt('androidxCore = '),
    });
    expect(dep(manifest('app/build.gradle.kts'), 'junit:junit')).toMatchObject({
      scope: 'testImplementation',
      resolvedVersion: '4.13.2',
      versionAt: catalogAt('junit4 ='),
    });
    expect(manifest('build.gradle.kts').plugins).toEqual(['com.android.application', 'org.jetbrains.kotlin.jvm']);
    expect(dep(manifest('core/data/build.gradle.kts'), 'com.squareup.retrofit2:retrofit')).toMatchObject({
      resolvedVersion: '2.11.0',
      versionAt: catalogAt('strictly = "2.11.0"'),
    });
    expect(dep(manifest('core/data/build.gradle.kts'), 'org.jetbrains.kotlinx:kotlinx-coroutines-core')).toMatchObject({
      resolvedVersion: '1.8.1',
      versionAt: { path: 'gradle.properties', line: 4 },
    });
    expect(dep(manifest('buildSrc/build.gradle.kts'), 'org.jetbrains.kotlin:kotlin-gradle-plugin')).toMatchObject({
      versionRef: 'libs.kotlin.gradlePlugin',
      resolvedVersion: '1.9.24',
      versionAt: catalogAt('kotlin = "1.9.24"'),
    });
    expect(dep(manifest('buildSrc/src/main/kotlin/example.android-conventions.gradle.kts'), 'io.mockk:mockk')).toMatchObject({
      scope: 'testImplementation',
      version: '1.13.11',
      versionAt: { path: 'buildSrc/src/main/kotlin/example.android-conventions.gradle.kts', line: 6 },
    });
    expect(dep(manifest('settings.gradle.kts'), 'org.gradle.toolchains.foojay-resolver-convention')).toMatchObject({ kind: 'plugin', version: '0.8.0' });
  });
});
