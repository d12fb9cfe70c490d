import type { ManifestDependency } from './manifest-schema.js';
import type { ParsedManifest } from './parse-util.js';

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:"'])\/\/.*$/gm, '$1');
}

export function parseGradleBuild(text: string): ParsedManifest {
  const src = stripComments(text);
  const dependencies: ManifestDependency[] = [];
  for (const m of src.matchAll(/\b(\w+)\s*\(?\s*project\s*\(\s*(?:path\s*:\s*)?["'](:[^"']*)["']\s*\)/g)) {
    dependencies.push({ name: m[2], scope: m[1], kind: 'project', target: m[2].slice(1).replace(/:/g, '/') });
  }
  for (const m of src.matchAll(
    /\b(implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|annotationProcessor|kapt|classpath)\s*\(?\s*["']([^"':\s]+):([^"':\s]+)(?::([^"'\s]+))?["']/g,
  )) {
    dependencies.push({ name: `${m[2]}:${m[3]}`, version: m[4], scope: m[1], kind: 'dependency' });
  }
  const plugins: string[] = [];
  for (const m of src.matchAll(/\bid\s*\(?\s*["']([\w.-]+)["']\s*\)?(?:\s*version\s*\(?\s*["']([^"']+)["'])?/g)) {
    plugins.push(m[1]);
    dependencies.push({ name: m[1], version: m[2], kind: 'plugin' });
  }
  const facts: Record<string, string> = {};
  const group = /^\s*group\s*=?\s*["']([^"']+)["']/m.exec(src);
  if (group) facts.group = group[1];
  const version = /^\s*version\s*=?\s*["']([^"']+)["']/m.exec(src);
  return { version: version?.[1], dependencies, plugins: [...new Set(plugins)].sort(), facts };
}

export function parseGradleSettings(text: string): ParsedManifest {
  const src = stripComments(text);
  const members: string[] = [];
  for (const m of src.matchAll(/\binclude\s*\(?([^\n)]*)\)?/g)) {
    for (const q of m[1].matchAll(/["']([^"']+)["']/g)) members.push(q[1].replace(/^:/, '').replace(/:/g, '/'));
  }
  const name = /rootProject\.name\s*=\s*["']([^"']+)["']/.exec(src);
  return { name: name?.[1], members, dependencies: [] };
}

/** A version catalog (`gradle/libs.versions.toml`). */
export function parseGradleCatalog(_text: string): ParsedManifest {
  return { dependencies: [] };
}
