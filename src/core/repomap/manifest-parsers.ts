import { XMLParser } from 'fast-xml-parser';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { isRequirementsFile } from '../paths/requirements-file.js';
import { baseName } from '../paths/path-classes.js';
import type { ManifestDependency, ManifestKind, ManifestRecord } from './repo-map-schema.js';
import { outlineWorkflow } from './workflow-outline.js';

/** What a parser extracts; path and evidence are added by the caller. */
export type ParsedManifest = Omit<ManifestRecord, 'path' | 'evidenceRef' | 'kind'>;

/** Manifest kinds by exact file name. */
const KIND_BY_NAME = new Map<string, ManifestKind>([
  ['package.json', 'package.json'],
  ['pnpm-workspace.yaml', 'pnpm-workspace'],
  ['pom.xml', 'maven'],
  ['build.gradle', 'gradle-build'],
  ['build.gradle.kts', 'gradle-build'],
  ['settings.gradle', 'gradle-settings'],
  ['settings.gradle.kts', 'gradle-settings'],
  ['go.mod', 'go.mod'],
  ['go.work', 'go.work'],
  ['Cargo.toml', 'cargo'],
  ['pyproject.toml', 'pyproject'],
  ['Gemfile', 'gemfile'],
  ['composer.json', 'composer'],
  ['Dockerfile', 'dockerfile'],
]);

/** The manifest kind a path names, from its name alone (content is never sniffed for this). */
export function manifestKindFor(path: string): ManifestKind | undefined {
  const name = baseName(path);
  const byName = KIND_BY_NAME.get(name);
  if (byName) return byName;
  if (isRequirementsFile(path)) return 'requirements';
  if (name.endsWith('.csproj')) return 'csproj';
  if (/^Dockerfile\.[\w-]+$/.test(name) || name.endsWith('.dockerfile')) return 'dockerfile';
  if (/^(openapi|swagger)([-_.][\w.-]*)?\.(ya?ml|json)$/i.test(name)) return 'openapi';
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return 'github-workflow';
  return undefined;
}

/** Parse one manifest; a malformed file gives `parseError`, never an exception. */
export function parseManifest(kind: ManifestKind, text: string): ParsedManifest {
  try {
    return PARSERS[kind](text);
  } catch (error) {
    return { dependencies: [], parseError: error instanceof Error ? error.message.split('\n')[0].slice(0, 300) : String(error) };
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function parsePackageJson(text: string): ParsedManifest {
  const json = record(JSON.parse(text));
  const dependencies: ManifestDependency[] = [];
  for (const scope of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, version] of Object.entries(record(json[scope]))) {
      const v = str(version) ?? '';
      const kind = v.startsWith('workspace:') ? 'workspace' : v.startsWith('file:') || v.startsWith('link:') ? 'path' : 'dependency';
      dependencies.push({ name, version: v, scope, kind, ...(kind === 'path' ? { target: v.replace(/^(file|link):/, '') } : {}) });
    }
  }
  const ws = json.workspaces;
  const members = Array.isArray(ws) ? ws.map(String) : Array.isArray(record(ws).packages) ? (record(ws).packages as unknown[]).map(String) : undefined;
  const facts: Record<string, string> = {};
  const main = str(json.main) ?? str(json.module);
  if (main) facts.main = main;
  const bin = typeof json.bin === 'string' ? json.bin : Object.values(record(json.bin)).map(String)[0];
  if (bin) facts.bin = bin;
  if (str(json.packageManager)) facts.packageManager = str(json.packageManager)!;
  return {
    name: str(json.name),
    version: str(json.version),
    members,
    dependencies,
    scripts: Object.keys(record(json.scripts)).sort(),
    facts,
  };
}

function parsePnpmWorkspace(text: string): ParsedManifest {
  const doc = record(parseYaml(text));
  return { members: asArray(doc.packages as string[]).map(String), dependencies: [] };
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, trimValues: true });

function parsePom(text: string): ParsedManifest {
  const doc = record(xml.parse(text, true));
  const project = record(doc.project);
  if (Object.keys(project).length === 0) throw new Error('no <project> element');
  const parentEl = record(project.parent);
  const parent = parentEl.artifactId
    ? { name: `${str(parentEl.groupId) ?? ''}:${str(parentEl.artifactId)}`, version: str(parentEl.version), relativePath: str(parentEl.relativePath) }
    : undefined;
  const groupId = str(project.groupId) ?? str(parentEl.groupId);
  const artifactId = str(project.artifactId);
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(project.properties))) if (str(v) !== undefined) properties[k] = str(v)!;
  const dependencies: ManifestDependency[] = [];
  if (parent) dependencies.push({ name: parent.name, version: parent.version, kind: 'parent' });
  const depList = (container: unknown, scopeDefault: string): void => {
    for (const d of asArray(record(record(container).dependencies).dependency as Record<string, unknown>[])) {
      const dep = record(d);
      if (!dep.artifactId) continue;
      dependencies.push({
        name: `${str(dep.groupId) ?? ''}:${str(dep.artifactId)}`,
        version: str(dep.version),
        scope: str(dep.scope) ?? scopeDefault,
        kind: 'dependency',
      });
    }
  };
  depList(project, 'compile');
  depList(project.dependencyManagement, 'managed');
  const plugins: string[] = [];
  const build = record(project.build);
  for (const container of [build, record(build.pluginManagement)]) {
    for (const p of asArray(record(container.plugins).plugin as Record<string, unknown>[])) {
      const plugin = record(p);
      if (!plugin.artifactId) continue;
      const name = `${str(plugin.groupId) ?? 'org.apache.maven.plugins'}:${str(plugin.artifactId)}`;
      plugins.push(name);
      dependencies.push({ name, version: str(plugin.version), kind: 'plugin' });
    }
  }
  const facts: Record<string, string> = { packaging: str(project.packaging) ?? 'jar' };
  const javaVersion = properties['maven.compiler.release'] ?? properties['maven.compiler.source'] ?? properties['java.version'];
  if (javaVersion) facts.javaVersion = javaVersion;
  return {
    name: artifactId ? `${groupId ?? ''}:${artifactId}` : undefined,
    version: str(project.version) ?? parent?.version,
    members: asArray(record(project.modules).module as string[]).map(String),
    parent,
    properties,
    dependencies,
    plugins: [...new Set(plugins)].sort(),
    facts,
  };
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:"'])\/\/.*$/gm, '$1');
}

function parseGradleBuild(text: string): ParsedManifest {
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

function parseGradleSettings(text: string): ParsedManifest {
  const src = stripComments(text);
  const members: string[] = [];
  for (const m of src.matchAll(/\binclude\s*\(?([^\n)]*)\)?/g)) {
    for (const q of m[1].matchAll(/["']([^"']+)["']/g)) members.push(q[1].replace(/^:/, '').replace(/:/g, '/'));
  }
  const name = /rootProject\.name\s*=\s*["']([^"']+)["']/.exec(src);
  return { name: name?.[1], members, dependencies: [] };
}

function parseGoMod(text: string): ParsedManifest {
  const lines = text.replace(/\/\/.*$/gm, '').split('\n');
  let name: string | undefined;
  const facts: Record<string, string> = {};
  const dependencies: ManifestDependency[] = [];
  let block: string | undefined;
  const directive = (verb: string, rest: string): void => {
    const parts = rest.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return;
    if (verb === 'require') dependencies.push({ name: parts[0], version: parts[1], kind: 'dependency' });
    else if (verb === 'replace') {
      const arrow = parts.indexOf('=>');
      const target = parts[arrow + 1];
      if (arrow > 0 && target && (target.startsWith('./') || target.startsWith('../'))) dependencies.push({ name: parts[0], kind: 'path', target });
    }
  };
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (block) {
      if (line === ')') block = undefined;
      else directive(block, line);
      continue;
    }
    const m = /^(\w+)\s*(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'module') name = m[2].trim().replace(/^"|"$/g, '');
    else if (m[1] === 'go') facts.go = m[2].trim();
    else if (m[2].trim() === '(') block = m[1];
    else directive(m[1], m[2]);
  }
  if (!name) throw new Error('go.mod has no module directive');
  return { name, dependencies, facts };
}

function parseGoWork(text: string): ParsedManifest {
  const src = text.replace(/\/\/.*$/gm, '');
  const members: string[] = [];
  for (const m of src.matchAll(/\buse\s*\(([^)]*)\)/g)) members.push(...m[1].split(/\s+/).filter(Boolean));
  for (const m of src.matchAll(/^\s*use\s+([^\s(]+)\s*$/gm)) members.push(m[1]);
  return { members: members.map((m) => m.replace(/^"|"$/g, '')), dependencies: [] };
}

function parseCargo(text: string): ParsedManifest {
  const doc = record(parseToml(text));
  const pkg = record(doc.package);
  const dependencies: ManifestDependency[] = [];
  for (const scope of ['dependencies', 'dev-dependencies', 'build-dependencies']) {
    for (const [name, spec] of Object.entries(record(doc[scope]))) {
      const s = record(spec);
      if (typeof spec === 'string') dependencies.push({ name, version: spec, scope, kind: 'dependency' });
      else if (str(s.path)) dependencies.push({ name, version: str(s.version), scope, kind: 'path', target: str(s.path) });
      else dependencies.push({ name, version: str(s.version), scope, kind: s.workspace === true ? 'workspace' : 'dependency' });
    }
  }
  return { name: str(pkg.name), version: str(pkg.version), members: asArray(record(doc.workspace).members as string[]).map(String), dependencies };
}

/** `name[extras] (op version)` from a PEP 508 requirement string. */
function pep508(spec: string, scope: string): ManifestDependency | undefined {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:\(?\s*([<>=!~]=?[^;#)]*))?/.exec(spec);
  if (!m) return undefined;
  return { name: m[1], version: m[2]?.trim() || undefined, scope, kind: 'dependency' };
}

function parsePyproject(text: string): ParsedManifest {
  const doc = record(parseToml(text));
  const project = record(doc.project);
  const poetry = record(record(doc.tool).poetry);
  const dependencies: ManifestDependency[] = [];
  for (const d of asArray(project.dependencies as string[])) {
    const dep = pep508(String(d), 'main');
    if (dep) dependencies.push(dep);
  }
  for (const [group, list] of Object.entries(record(project['optional-dependencies']))) {
    for (const d of asArray(list as string[])) {
      const dep = pep508(String(d), group);
      if (dep) dependencies.push(dep);
    }
  }
  for (const [name, spec] of Object.entries(record(poetry.dependencies))) {
    if (name === 'python') continue;
    dependencies.push({
      name,
      version: str(spec) ?? str(record(spec).version),
      scope: 'main',
      kind: str(record(spec).path) ? 'path' : 'dependency',
      target: str(record(spec).path),
    });
  }
  const facts: Record<string, string> = {};
  const backend = str(record(doc['build-system'])['build-backend']);
  if (backend) facts.buildBackend = backend;
  if (record(record(doc.tool).pytest).ini_options) facts.testRunner = 'pytest';
  return { name: str(project.name) ?? str(poetry.name), version: str(project.version) ?? str(poetry.version), dependencies, facts };
}

function parseRequirements(text: string): ParsedManifest {
  const dependencies: ManifestDependency[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line || line.startsWith('-')) continue;
    const dep = pep508(line, 'main');
    if (dep) dependencies.push(dep);
  }
  return { dependencies };
}

function parseGemfile(text: string): ParsedManifest {
  const dependencies: ManifestDependency[] = [];
  for (const m of text.matchAll(/^\s*gem\s+["']([^"']+)["'](?:\s*,\s*["']([^"']+)["'])?/gm))
    dependencies.push({ name: m[1], version: m[2], kind: 'dependency' });
  return { dependencies };
}

function parseComposer(text: string): ParsedManifest {
  const json = record(JSON.parse(text));
  const dependencies: ManifestDependency[] = [];
  for (const scope of ['require', 'require-dev']) {
    for (const [name, v] of Object.entries(record(json[scope]))) dependencies.push({ name, version: str(v), scope, kind: 'dependency' });
  }
  return { name: str(json.name), version: str(json.version), dependencies };
}

function parseCsproj(text: string): ParsedManifest {
  const doc = record(xml.parse(text, true));
  const project = record(doc.Project);
  if (Object.keys(doc).length === 0 || !doc.Project) throw new Error('no <Project> element');
  const dependencies: ManifestDependency[] = [];
  for (const group of asArray(project.ItemGroup as Record<string, unknown>[])) {
    for (const ref of asArray(record(group).PackageReference as Record<string, unknown>[])) {
      const r = record(ref);
      if (str(r['@Include'])) dependencies.push({ name: str(r['@Include'])!, version: str(r['@Version']) ?? str(r.Version), kind: 'dependency' });
    }
    for (const ref of asArray(record(group).ProjectReference as Record<string, unknown>[])) {
      const inc = str(record(ref)['@Include']);
      if (inc) dependencies.push({ name: inc, kind: 'path', target: inc.replace(/\\/g, '/') });
    }
  }
  const facts: Record<string, string> = {};
  for (const group of asArray(project.PropertyGroup as Record<string, unknown>[])) {
    const tf = str(record(group).TargetFramework);
    if (tf) facts.targetFramework = tf;
  }
  return { dependencies, facts };
}

function parseDockerfile(text: string): ParsedManifest {
  const images: string[] = [];
  for (const m of text.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)/gim)) images.push(m[1]);
  if (images.length === 0) throw new Error('no FROM instruction');
  return {
    dependencies: images.map((i) => ({ name: i.split(':')[0], version: i.split(':')[1], kind: 'dependency' as const })),
    facts: { baseImages: images.join(',') },
  };
}

function parseOpenApi(text: string): ParsedManifest {
  const doc = record(text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text));
  const version = str(doc.openapi) ?? str(doc.swagger);
  if (!version) throw new Error('no openapi/swagger version field');
  const info = record(doc.info);
  return {
    name: str(info.title),
    version: str(info.version),
    dependencies: [],
    facts: { specVersion: version, paths: String(Object.keys(record(doc.paths)).length) },
  };
}

const actionDependency = (uses: string): ManifestDependency => ({ name: uses.split('@')[0], version: uses.split('@')[1], kind: 'dependency' });

/** A workflow from its line outline when it has the plain shape, else from the full YAML parse (same result). */
function parseWorkflow(text: string): ParsedManifest {
  const outline = outlineWorkflow(text);
  if (!outline) return parseWorkflowDocument(text);
  return { name: outline.name, dependencies: outline.uses.filter((u) => u !== '').map(actionDependency), facts: { jobs: [...outline.jobs].sort().join(',') } };
}

/** The full parse of a workflow: the reference the outline must agree with. */
export function parseWorkflowDocument(text: string): ParsedManifest {
  const doc = record(parseYaml(text));
  const jobs = record(doc.jobs);
  const dependencies: ManifestDependency[] = [];
  for (const job of Object.values(jobs)) {
    for (const step of asArray(record(job).steps as unknown[])) {
      const uses = str(record(step).uses);
      if (uses) dependencies.push(actionDependency(uses));
    }
  }
  return { name: str(doc.name), dependencies, facts: { jobs: Object.keys(jobs).sort().join(',') } };
}

const PARSERS: Record<ManifestKind, (text: string) => ParsedManifest> = {
  'package.json': parsePackageJson,
  'pnpm-workspace': parsePnpmWorkspace,
  maven: parsePom,
  'gradle-build': parseGradleBuild,
  'gradle-settings': parseGradleSettings,
  'go.mod': parseGoMod,
  'go.work': parseGoWork,
  cargo: parseCargo,
  pyproject: parsePyproject,
  requirements: parseRequirements,
  gemfile: parseGemfile,
  composer: parseComposer,
  csproj: parseCsproj,
  dockerfile: parseDockerfile,
  openapi: parseOpenApi,
  'github-workflow': parseWorkflow,
};
