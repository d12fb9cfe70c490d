import type { ManifestDependency } from './manifest-schema.js';
import { asArray, record, str, xml, type ParsedManifest } from './parse-util.js';

export function parsePom(text: string): ParsedManifest {
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
