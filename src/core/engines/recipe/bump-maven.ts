import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import type { PendingMavenProperty, SpanEdit } from './recipe-types.js';
import { bumpedVersion } from './version-edit.js';

/** A leaf element's text span in the pom. */
interface Leaf {
  name: string;
  text: string;
  start: number;
  end: number;
}

interface Element {
  name: string;
  parent?: Element;
  leaves: Leaf[];
  /** Offset of the opening tag. */
  start: number;
}

export interface Coordinates {
  kind: string;
  groupId?: string;
  artifactId?: string;
  version?: Leaf;
  /** The groupId and artifactId elements' text spans, when written. */
  groupIdLeaf?: Leaf;
  artifactIdLeaf?: Leaf;
  /** The enclosing element names, innermost first. */
  path: string[];
  /** The element from its opening tag to the end of its closing tag. */
  start: number;
  end: number;
}

export interface PomFacts {
  coordinates: Coordinates[];
  /** `<properties>` children: name -> value span (the last definition wins, as in Maven). */
  properties: Map<string, Leaf>;
  parentRelativePath?: string;
  hasParent: boolean;
}

const COORDINATE_ELEMENTS = new Set(['dependency', 'plugin', 'parent', 'extension']);

/**
 * Read a pom's coordinates and properties with their text offsets, from the tags alone: a
 * text-level reading that lets edits keep the file's formatting (no XML re-serialisation).
 */
export function scanPom(text: string): PomFacts {
  const facts: PomFacts = { coordinates: [], properties: new Map<string, Leaf>(), hasParent: false };
  const tag = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>/g;
  let current: Element | undefined;
  let open: { name: string; contentStart: number } | undefined;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (!m[2]) continue;
    const [whole, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (!closing) {
      current = { name, parent: current, leaves: [], start: m.index };
      open = { name, contentStart: m.index + whole.length };
      continue;
    }
    if (!current) continue;
    if (open && open.name === name) closeLeaf(facts, current, { name, text: text.slice(open.contentStart, m.index), start: open.contentStart, end: m.index });
    else if (COORDINATE_ELEMENTS.has(name)) closeCoordinates(facts, current, name, m.index + whole.length);
    open = undefined;
    current = current.parent;
  }
  return facts;
}

/** A leaf element closes: it belongs to its parent; under `<properties>` it defines a property. */
function closeLeaf(facts: PomFacts, current: Element, leaf: Leaf): void {
  current.parent?.leaves.push(leaf);
  if (current.parent?.name === 'properties') facts.properties.set(leaf.name, leaf);
  if (leaf.name === 'relativePath' && current.parent?.name === 'parent') facts.parentRelativePath = leaf.text.trim();
}

/** A dependency, plugin, parent or extension element closes: its coordinates, from the leaves read inside it. */
function closeCoordinates(facts: PomFacts, current: Element, kind: string, end: number): void {
  const get = (n: string) => current.leaves.find((l) => l.name === n);
  const path: string[] = [];
  for (let p = current.parent; p; p = p.parent) path.push(p.name);
  const groupId = get('groupId')?.text.trim() ?? (kind === 'plugin' ? 'org.apache.maven.plugins' : undefined);
  const groupIdLeaf = get('groupId');
  const artifactIdLeaf = get('artifactId');
  facts.coordinates.push({
    kind,
    groupId,
    artifactId: artifactIdLeaf?.text.trim(),
    version: get('version'),
    groupIdLeaf,
    artifactIdLeaf,
    path,
    start: current.start,
    end,
  });
  if (kind === 'parent' && path[0] === 'project') facts.hasParent = true;
}

export interface MavenBump {
  spans: SpanEdit[];
  notes: string[];
  pending: PendingMavenProperty[];
  mismatches?: string[];
}

/** Bump `groupId:artifactId` in a pom: literal versions in place, `${property}` versions through the property. */
export function bumpMaven(text: string, step: BumpDependencyStep): MavenBump {
  const [groupId, artifactId] = step.package.split(':');
  const out: MavenBump = { spans: [], notes: [], pending: [] };
  if (!groupId || !artifactId) return out;
  const facts = scanPom(text);
  const editedProperties = new Set<string>();
  for (const c of facts.coordinates) {
    if (c.groupId !== groupId || c.artifactId !== artifactId || !c.version) continue;
    const raw = c.version.text.trim();
    const property = /^\$\{([^}]+)\}$/.exec(raw)?.[1];
    if (property) {
      if (editedProperties.has(property)) continue;
      editedProperties.add(property);
      if (property.startsWith('project.') || property === 'revision') {
        out.notes.push(`${step.package}: version is \${${property}}, the project's own version; left alone`);
        continue;
      }
      const defined = facts.properties.get(property);
      if (defined) pushVersion(out, defined, step);
      else out.pending.push({ property, from: step.from });
      continue;
    }
    if (raw.includes('${')) {
      out.notes.push(`${step.package}: version "${raw}" mixes text and properties; left alone`);
      continue;
    }
    pushVersion(out, c.version, step);
  }
  return out;
}

function pushVersion(out: { spans: SpanEdit[]; mismatches?: string[] }, leaf: Leaf, step: BumpDependencyStep): void {
  const leading = /^\s*/.exec(leaf.text)![0].length;
  const value = leaf.text.trim();
  const next = bumpedVersion(value, step.to, step.from, { scheme: 'maven', mismatches: { label: step.package, out: (out.mismatches ??= []) } });
  if (next !== undefined) out.spans.push({ start: leaf.start + leading, end: leaf.start + leading + value.length, text: next });
}

/** Edit a property defined in this pom (a parent of the pom that used it). */
export function bumpMavenProperty(text: string, pending: PendingMavenProperty, to: string): { spans: SpanEdit[]; defined: boolean } {
  const leaf = scanPom(text).properties.get(pending.property);
  if (!leaf) return { spans: [], defined: false };
  const out = { spans: [] as SpanEdit[] };
  pushVersion(out, leaf, { recipe: 'bump-dependency', package: `\${${pending.property}}`, to, from: pending.from });
  return { spans: out.spans, defined: true };
}
