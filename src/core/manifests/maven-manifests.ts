import type { ManifestDependency } from './manifest-schema.js';
import { lineIndex, type ParsedManifest } from './parse-util.js';
import { childOf, childrenOf, leafText, pathOf, pomTree, type PomElement } from './pom-tree.js';

/** Maven's own plugins need no groupId. */
const DEFAULT_PLUGIN_GROUP = 'org.apache.maven.plugins';

/** What one pom's walk collects. */
interface PomWalk {
  path: string;
  lineOf: (offset: number) => number;
  dependencies: ManifestDependency[];
  plugins: string[];
}

/** A coordinate element (dependency, plugin, extension, parent, path) as a dependency; undefined without an artifactId. */
function coordinate(
  walk: PomWalk,
  el: PomElement,
  kind: ManifestDependency['kind'],
  scope: string | undefined,
  defaultGroup = '',
): ManifestDependency | undefined {
  const artifactId = leafText(el, 'artifactId');
  if (!artifactId) return undefined;
  const versionEl = childOf(el, 'version');
  const dep: ManifestDependency = {
    name: `${leafText(el, 'groupId') ?? defaultGroup}:${artifactId}`,
    version: versionEl?.text,
    ...(scope !== undefined ? { scope } : {}),
    kind,
    line: walk.lineOf(el.start),
  };
  // A literal written here is edited here; a `${…}` version is placed by maven-reactor.ts.
  if (versionEl?.text && !versionEl.text.includes('${')) dep.versionAt = { path: walk.path, line: walk.lineOf(versionEl.textStart) };
  return dep;
}

/** `<dependencies><dependency>` under a container; `scopeOf` picks each one's scope. */
function dependencyList(walk: PomWalk, container: PomElement | undefined, scopeOf: (dep: PomElement) => string): void {
  for (const el of childrenOf(childOf(container, 'dependencies'), 'dependency')) {
    const dep = coordinate(walk, el, 'dependency', scopeOf(el));
    if (dep) walk.dependencies.push(dep);
  }
}

/**
 * Artifacts a plugin's configuration names, in its configuration or in one execution's: the
 * compiler plugin's annotation processors, and animal-sniffer's API `<signature>`.
 */
function annotationProcessorPaths(walk: PomWalk, plugin: PomElement): void {
  const configurations = [childOf(plugin, 'configuration'), ...childrenOf(childOf(plugin, 'executions'), 'execution').map((e) => childOf(e, 'configuration'))];
  for (const configuration of configurations) {
    for (const el of childrenOf(childOf(configuration, 'annotationProcessorPaths'), 'path')) {
      const dep = coordinate(walk, el, 'dependency', 'annotation-processor');
      if (dep) walk.dependencies.push(dep);
    }
    const signature = childOf(configuration, 'signature');
    const dep = signature && coordinate(walk, signature, 'dependency', 'signature');
    if (dep) walk.dependencies.push(dep);
  }
}

/** `<plugins><plugin>` under a build or pluginManagement element, each followed by its own dependencies. */
function pluginList(walk: PomWalk, container: PomElement | undefined, scope: string | undefined): void {
  for (const el of childrenOf(childOf(container, 'plugins'), 'plugin')) {
    const plugin = coordinate(walk, el, 'plugin', scope, DEFAULT_PLUGIN_GROUP);
    if (!plugin) continue;
    // The plugin list names the plugins of the default build; a profile's are listed as dependencies only.
    if (scope === undefined) walk.plugins.push(plugin.name);
    walk.dependencies.push(plugin);
    const artifactId = plugin.name.slice(plugin.name.indexOf(':') + 1);
    dependencyList(walk, el, () => `plugin:${artifactId}`);
    annotationProcessorPaths(walk, el);
  }
}

/** `<build>`'s plugins and managed plugins (a profile's build too, with the profile's scope). */
function buildPlugins(walk: PomWalk, build: PomElement | undefined, scope?: string): void {
  pluginList(walk, build, scope);
  pluginList(walk, childOf(build, 'pluginManagement'), scope);
}

/** Build extensions are build-time plugins of Maven itself: kind plugin, scope `extension`. */
function buildExtensions(walk: PomWalk, build: PomElement | undefined): void {
  for (const el of childrenOf(childOf(build, 'extensions'), 'extension')) {
    const dep = coordinate(walk, el, 'plugin', 'extension');
    if (dep) walk.dependencies.push(dep);
  }
}

/** A profile's dependencies, managed dependencies and build plugins, all with scope `profile:<id>` (Maven's default id is `default`). */
function profile(walk: PomWalk, el: PomElement): void {
  const scope = `profile:${leafText(el, 'id') || 'default'}`;
  dependencyList(walk, el, () => scope);
  dependencyList(walk, childOf(el, 'dependencyManagement'), () => scope);
  buildPlugins(walk, childOf(el, 'build'), scope);
}

/** `<properties>` values and the line each is written on; `project.version` and `project.parent.version` where this pom writes them. */
function propertiesOf(walk: PomWalk, project: PomElement): { properties: Record<string, string>; propertyLines: Record<string, number> } {
  const properties: Record<string, string> = {};
  const propertyLines: Record<string, number> = {};
  const version = childOf(project, 'version');
  if (version?.text) propertyLines['project.version'] = walk.lineOf(version.textStart);
  const parentVersion = pathOf(project, 'parent', 'version');
  if (parentVersion?.text) propertyLines['project.parent.version'] = walk.lineOf(parentVersion.textStart);
  for (const el of childOf(project, 'properties')?.children ?? []) {
    // A property with child elements is no value; the last definition wins, as in Maven.
    if (el.children.length > 0) continue;
    properties[el.name] = el.text;
    propertyLines[el.name] = walk.lineOf(el.textStart);
  }
  return { properties, propertyLines };
}

function parentOf(project: PomElement): ParsedManifest['parent'] {
  const el = childOf(project, 'parent');
  const artifactId = leafText(el, 'artifactId');
  if (!artifactId) return undefined;
  return { name: `${leafText(el, 'groupId') ?? ''}:${artifactId}`, version: leafText(el, 'version'), relativePath: leafText(el, 'relativePath') };
}

/**
 * A pom's coordinates, properties and every dependency it declares, each with its line and, when
 * the version is a literal here, the `versionAt` a bump edits. Versions written as `${property}`
 * are placed across the reactor by `resolveMavenProperties` (maven-reactor.ts).
 */
export function parsePom(text: string, path: string): ParsedManifest {
  const lineOf = lineIndex(text);
  const project = childOf(pomTree(text, lineOf), 'project');
  if (!project) throw new Error('no <project> element');
  const walk: PomWalk = { path, lineOf, dependencies: [], plugins: [] };
  const parent = parentOf(project);
  const parentDep = parent && coordinate(walk, childOf(project, 'parent')!, 'parent', undefined);
  if (parentDep) walk.dependencies.push(parentDep);
  dependencyList(walk, project, (el) => leafText(el, 'scope') ?? 'compile');
  dependencyList(walk, childOf(project, 'dependencyManagement'), (el) => leafText(el, 'scope') ?? 'managed');
  const build = childOf(project, 'build');
  buildPlugins(walk, build);
  buildExtensions(walk, build);
  for (const el of childrenOf(childOf(project, 'profiles'), 'profile')) profile(walk, el);
  const { properties, propertyLines } = propertiesOf(walk, project);
  const facts: Record<string, string> = { packaging: leafText(project, 'packaging') ?? 'jar' };
  const javaVersion = properties['maven.compiler.release'] ?? properties['maven.compiler.source'] ?? properties['java.version'];
  if (javaVersion) facts.javaVersion = javaVersion;
  const artifactId = leafText(project, 'artifactId');
  const groupId = leafText(project, 'groupId') ?? leafText(childOf(project, 'parent'), 'groupId');
  return {
    name: artifactId ? `${groupId ?? ''}:${artifactId}` : undefined,
    version: leafText(project, 'version') ?? parent?.version,
    members: childrenOf(childOf(project, 'modules'), 'module').map((m) => m.text),
    parent,
    properties,
    propertyLines,
    dependencies: walk.dependencies,
    plugins: [...new Set(walk.plugins)].sort(),
    facts,
  };
}
