import { blankComments, blockLookup, MAX_SCRIPT_CHARS, referenceIn, referenceName, substituteReference, type BlockLookup } from './gradle-script-text.js';
import type { ManifestDependency } from './manifest-schema.js';
import { lineIndex, type ParsedManifest } from './parse-util.js';

/**
 * Gradle scripts (build, settings, applied and precompiled scripts; Groovy and Kotlin DSL), read
 * as text and never run: declarations in `dependencies { … }` blocks under any configuration
 * name, plugins in `plugins { … }` blocks, and the version variables the script writes itself.
 * Versions that come through a catalog accessor or a gradle.properties entry are resolved by
 * `resolveCatalogReferences` and `resolveGradleProperties` once every manifest is parsed.
 */

interface Variable {
  value: string;
  line: number;
}

interface Script {
  src: string;
  path: string;
  lineAt: (offset: number) => number;
  inBlock: BlockLookup;
  /** Every variable the script writes (`def`/`val` locals and `ext`/`extra` properties), first one wins. */
  vars: Map<string, Variable>;
  /** The `ext`/`extra` ones: subprojects see them too. */
  exported: Map<string, Variable>;
}

type VersionFields = Pick<ManifestDependency, 'version' | 'resolvedVersion' | 'versionAt' | 'versionRef'>;

const BLOCKS = ['dependencies', 'plugins', 'pluginManagement', 'ext'];

/** Local variables: `def v = '1'`, `val v = "1"`, `val v: String = "1"`. */
const LOCAL_VAR = /(?<![\w.])(?:def|val|var)[ \t]+(\w{1,100})(?:[ \t]*:[ \t]*String)?[ \t]*=[ \t]*(["'])([^"'\n$]{0,200})\2/g;
/** `ext.v = '1'` (also `project.ext.v`, `rootProject.ext.v`). */
const EXT_DOT = /(?<!\w)ext\.(\w{1,100})[ \t]*=[ \t]*(["'])([^"'\n$]{0,200})\2/g;
/** `ext["v"] = '1'`, `extra["v"] = "1"`, `ext.set("v", "1")`, `extra.set("v", "1")`. */
const EXT_INDEX = /(?<!\w)(?:ext|extra)(?:\[[ \t]*|\.set[ \t]*\([ \t]*)(["'])([\w.-]{1,100})\1[ \t]*(?:\][ \t]*=|,)[ \t]*(["'])([^"'\n$]{0,200})\3/g;
/** `val v by extra("1")`. */
const EXTRA_DELEGATE = /(?<![\w.])val[ \t]+(\w{1,100})[ \t]+by[ \t]+extra[ \t]*\([ \t]*(["'])([^"'\n$]{0,200})\2/g;
/** `v = '1'` on its own line, read inside `ext { … }` only. */
const EXT_BLOCK_ENTRY = /^[ \t]*(\w{1,100})[ \t]*=[ \t]*(["'])([^"'\n$]{0,200})\2/gm;

function readScript(text: string, path: string): Script {
  if (text.length > MAX_SCRIPT_CHARS) throw new Error(`longer than ${MAX_SCRIPT_CHARS} characters; not read`);
  const src = blankComments(text);
  const script: Script = { src, path, lineAt: lineIndex(src), inBlock: blockLookup(src, BLOCKS), vars: new Map(), exported: new Map() };
  const note = (name: string, value: string, offset: number, exported: boolean): void => {
    const v = { value, line: script.lineAt(offset) };
    if (!script.vars.has(name)) script.vars.set(name, v);
    if (exported && !script.exported.has(name)) script.exported.set(name, v);
  };
  for (const m of src.matchAll(LOCAL_VAR)) note(m[1], m[3], m.index, false);
  for (const m of src.matchAll(EXTRA_DELEGATE)) note(m[1], m[3], m.index, true);
  for (const m of src.matchAll(EXT_DOT)) note(m[1], m[3], m.index, true);
  for (const m of src.matchAll(EXT_INDEX)) note(m[2], m[4], m.index, true);
  for (const m of src.matchAll(EXT_BLOCK_ENTRY)) if (script.inBlock('ext', m.index + m[0].length - 1)) note(m[1], m[3], m.index, true);
  return script;
}

/**
 * The version fields of a declaration whose version text starts at `offset`: written here (its own
 * line), or a `$v` / `${v}` / bare `v` reference followed to a variable of this script (the variable's
 * line); a reference this script does not write keeps `versionRef` for the resolve pass.
 */
function versionFields(script: Script, version: string | undefined, offset: number, bare = false): VersionFields {
  if (!version) return {};
  const expr = referenceIn(version, bare);
  if (expr === undefined) return { version, versionAt: { path: script.path, line: script.lineAt(offset) } };
  const name = referenceName(expr);
  if (name === undefined) return { version };
  const v = script.vars.get(name);
  if (!v) return { version, versionRef: name };
  return { version, resolvedVersion: substituteReference(version, v.value), versionAt: { path: script.path, line: v.line }, versionRef: name };
}

// ---- dependencies { … } ----

/** A call that may declare a dependency: any configuration name, bare or quoted (`"foo"("g:a:v")`), with or without parentheses. */
const HEAD = /(?<![\w.$])(?:([A-Za-z_]\w{0,99})|"([A-Za-z_]\w{0,99})")[ \t]*(\(\s*)?/g;
/** Calls that take a notation but are not configurations. */
const NOT_CONFIGURATIONS = new Set([
  'platform', 'enforcedPlatform', 'testFixtures', 'project', 'projects', 'kotlin', 'files', 'fileTree', 'exclude', 'because',
  'module', 'version', 'add', 'constraints', 'components', 'dependencies', 'id', 'alias', 'group', 'name', 'strictly',
  'require', 'prefer', 'reject', 'replacedBy', 'substitute', 'using', 'if', 'else', 'return', 'val', 'var', 'def', 'for',
  'while', 'when', 'it', 'this', 'attributes', 'capabilities', 'requireCapability', 'artifact', 'println', 'print', 'setOf',
  'listOf', 'mapOf', 'arrayOf', 'rootProject', 'ext', 'extra', 'libs',
]); // prettier-ignore
const WRAPPER = /(?:platform|enforcedPlatform|testFixtures)\s*\(\s*/y;
const QUOTED = /"([^"\n]{1,300})"|'([^'\n]{1,300})'/y;
/** `group:name[:version[:classifier]][@extension]`. */
const COORDINATE = /^([\w.-]+):([\w.-]+)(?::([^:@\s]+))?(?::([^:@\s]+))?(?:@\w+)?$/;
const MAP_START = /group\s*[:=]\s*/y;
const MAP_PAIR = /(\w{1,50})[ \t]*[:=][ \t]*(?:(["'])([^"'\n]{0,300})\2|([A-Za-z_][\w.]{0,200}(?:\(\))?))/g;
/** `libs.androidx.core.ktx`, `projects.core.data`: a lower-case root (Gradle's rule for catalog names) and dotted segments. */
const ACCESSOR = /([a-z][A-Za-z0-9]{0,99})((?:\.[A-Za-z_]\w{0,99}){1,20})/y;
const NOT_ACCESSOR_ROOTS = new Set([
  'project',
  'rootProject',
  'ext',
  'extra',
  'it',
  'this',
  'files',
  'fileTree',
  'kotlin',
  'gradle',
  'sourceSets',
  'configurations',
]);

type Notation = { end: number; dep: Omit<ManifestDependency, 'scope' | 'line'> };

/** The dependency notation at `p` (after a configuration name): a coordinate string, map notation, or an accessor. */
function readNotation(script: Script, p: number, paren: boolean): Notation | undefined {
  const { src } = script;
  WRAPPER.lastIndex = p;
  const q = WRAPPER.exec(src) ? WRAPPER.lastIndex : p;
  QUOTED.lastIndex = q;
  const s = QUOTED.exec(src);
  if (s) {
    const c = COORDINATE.exec(s[1] ?? s[2]);
    if (!c) return undefined;
    const versionOffset = q + 1 + c[1].length + 1 + c[2].length + 1;
    return { end: QUOTED.lastIndex, dep: { name: `${c[1]}:${c[2]}`, kind: 'dependency', ...versionFields(script, c[3], versionOffset) } };
  }
  MAP_START.lastIndex = q;
  if (MAP_START.exec(src)) return readMapNotation(script, q, paren);
  ACCESSOR.lastIndex = q;
  const a = ACCESSOR.exec(src);
  return a ? accessorNotation(a[1], a[2], ACCESSOR.lastIndex, src) : undefined;
}

/** `group: 'g', name: 'a', version: 'v'` (Groovy) or `group = "g", name = "a", version = "v"` (Kotlin), in any order. */
function readMapNotation(script: Script, q: number, paren: boolean): Notation | undefined {
  const { src } = script;
  const close = src.indexOf(')', q);
  const nl = src.indexOf('\n', q);
  let end = Math.min(src.length, q + 500);
  if (paren && close >= 0) end = Math.min(end, close);
  else if (!paren && nl >= 0) end = Math.min(end, nl);
  const window = src.slice(q, end);
  const pairs = new Map<string, { value: string; offset: number; bare: boolean }>();
  for (const m of window.matchAll(MAP_PAIR)) {
    const value = m[3] ?? m[4];
    const offset = q + m.index + m[0].length - value.length - (m[3] !== undefined ? 1 : 0);
    if (!pairs.has(m[1])) pairs.set(m[1], { value, offset, bare: m[3] === undefined });
  }
  const group = pairs.get('group');
  const name = pairs.get('name');
  if (!group || !name || group.bare || name.bare) return undefined;
  const version = pairs.get('version');
  return {
    end,
    dep: { name: `${group.value}:${name.value}`, kind: 'dependency', ...(version ? versionFields(script, version.value, version.offset, version.bare) : {}) },
  };
}

/** A catalog accessor (`libs.foo.bar`, resolved later) or a type-safe project accessor (`projects.core.data`). */
function accessorNotation(root: string, rest: string, end: number, src: string): Notation | undefined {
  let path = rest.slice(1);
  if (path.endsWith('.get') && src.startsWith('()', end)) {
    path = path.slice(0, -4);
    end += 2;
  }
  if (NOT_ACCESSOR_ROOTS.has(root) || path === '' || path.startsWith('versions.')) return undefined;
  if (root === 'projects') return { end, dep: { name: `:${path.replace(/\./g, ':')}`, kind: 'project', target: path.replace(/\./g, '/') } };
  const accessor = `${root}.${path}`;
  return { end, dep: { name: accessor, kind: 'dependency', versionRef: accessor } };
}

/** Every declaration inside a `dependencies { … }` block (the build's, buildscript's, a subprojects block's, a KMP source set's). */
function moduleDependencies(script: Script): ManifestDependency[] {
  const { src } = script;
  const out: ManifestDependency[] = [];
  const head = new RegExp(HEAD.source, 'g');
  for (let m = head.exec(src); m; m = head.exec(src)) {
    const configuration = m[1] ?? m[2];
    if (NOT_CONFIGURATIONS.has(configuration) || !script.inBlock('dependencies', m.index)) continue;
    const notation = readNotation(script, head.lastIndex, m[3] !== undefined);
    if (!notation) continue;
    out.push({ ...notation.dep, scope: configuration, line: script.lineAt(m.index) });
    head.lastIndex = Math.max(head.lastIndex, notation.end);
  }
  return out;
}

/** `implementation project(':core')`, `implementation(project(path = ":core"))`: edges between the build's own projects. */
const PROJECT_DEP = /(?<![\w.])(\w{1,100})(?:\s*\(\s*|\s+)project\s*\(\s*(?:path\s*[:=]\s*)?["'](:[^"'\n]*)["']\s*\)/g;

function projectDependencies(script: Script): ManifestDependency[] {
  return [...script.src.matchAll(PROJECT_DEP)].map((m) => ({
    name: m[2],
    scope: m[1],
    kind: 'project' as const,
    target: m[2].slice(1).replace(/:/g, '/'),
    line: script.lineAt(m.index),
  }));
}

// ---- plugins { … } ----

const PLUGIN_ID = /(?<![\w.])id\s*(?:\(\s*)?(["'])([\w.-]{1,200})\1(?:\s*\))?/g;
/** Kotlin DSL's `kotlin("jvm")` inside `plugins {}`: the plugin `org.jetbrains.kotlin.jvm`. */
const PLUGIN_KOTLIN = /(?<![\w.])kotlin\s*\(\s*(["'])([\w.-]{1,200})\1\s*\)/g;
const PLUGIN_ALIAS = /(?<![\w.])alias\s*(?:\(\s*)?([a-z][A-Za-z0-9]{0,99}(?:\.[A-Za-z_]\w{0,99}){1,20})/g;
/** ` version "1.0"`, ` version("1.0")`, ` version kotlinVersion` after a plugin id. */
const PLUGIN_VERSION = /\s*version\s*(?:\(\s*)?(?:(["'])([^"'\n]{1,200})\1|([A-Za-z_][\w.]{0,200}(?:\(\))?))/y;

function pluginVersion(script: Script, at: number): VersionFields {
  PLUGIN_VERSION.lastIndex = at;
  const v = PLUGIN_VERSION.exec(script.src);
  if (!v) return {};
  const bare = v[2] === undefined;
  const value = v[2] ?? v[3];
  const offset = PLUGIN_VERSION.lastIndex - value.length - (bare ? 0 : 1);
  return versionFields(script, value, offset, bare);
}

/** Plugins requested in `plugins { … }` blocks; those under `pluginManagement` get that scope. */
function pluginDependencies(script: Script): ManifestDependency[] {
  const { src } = script;
  const out: { offset: number; dep: ManifestDependency }[] = [];
  const add = (offset: number, name: string, fields: () => VersionFields): void => {
    if (!script.inBlock('plugins', offset)) return;
    const scope = script.inBlock('pluginManagement', offset) ? { scope: 'pluginManagement' } : {};
    out.push({ offset, dep: { name, kind: 'plugin', ...scope, line: script.lineAt(offset), ...fields() } });
  };
  for (const m of src.matchAll(PLUGIN_ID)) add(m.index, m[2], () => pluginVersion(script, m.index + m[0].length));
  for (const m of src.matchAll(PLUGIN_KOTLIN)) add(m.index, `org.jetbrains.kotlin.${m[2]}`, () => pluginVersion(script, m.index + m[0].length));
  for (const m of src.matchAll(PLUGIN_ALIAS)) add(m.index, m[1], () => ({ versionRef: m[1] }));
  return out.sort((a, b) => a.offset - b.offset).map((o) => o.dep);
}

// ---- the parsers ----

function scriptRecord(script: Script): Pick<ParsedManifest, 'dependencies' | 'plugins' | 'properties' | 'propertyLines'> {
  const dependencies = [...pluginDependencies(script), ...projectDependencies(script), ...moduleDependencies(script)].sort(
    (a, b) => (a.line ?? 0) - (b.line ?? 0),
  );
  const plugins = dependencies.filter((d) => d.kind === 'plugin' && d.versionRef !== d.name).map((d) => d.name);
  const out: ReturnType<typeof scriptRecord> = { dependencies, plugins: [...new Set(plugins)].sort() };
  if (script.exported.size > 0) {
    out.properties = Object.fromEntries([...script.exported].map(([k, v]) => [k, v.value]));
    out.propertyLines = Object.fromEntries([...script.exported].map(([k, v]) => [k, v.line]));
  }
  return out;
}

/** build.gradle(.kts) and any other script (`apply from` scripts, buildSrc's precompiled script plugins). */
export function parseGradleBuild(text: string, path: string): ParsedManifest {
  const script = readScript(text, path);
  const facts: Record<string, string> = {};
  const group = /^[ \t]*group[ \t]*(?:=[ \t]*)?["']([^"'\n]+)["']/m.exec(script.src);
  if (group) facts.group = group[1];
  const version = /^[ \t]*version[ \t]*(?:=[ \t]*)?["']([^"'\n]+)["']/m.exec(script.src);
  return { version: version?.[1], ...scriptRecord(script), facts };
}

/** settings.gradle(.kts): included projects, the root name, and the plugins of `plugins {}` and `pluginManagement { plugins {} }`. */
export function parseGradleSettings(text: string, path: string): ParsedManifest {
  const script = readScript(text, path);
  const members: string[] = [];
  for (const m of script.src.matchAll(/\binclude\b\s*\(?([^\n)]*)\)?/g)) {
    for (const q of m[1].matchAll(/["']([^"']+)["']/g)) members.push(q[1].replace(/^:/, '').replace(/:/g, '/'));
  }
  const name = /rootProject\.name\s*=\s*["']([^"']+)["']/.exec(script.src);
  return { name: name?.[1], members, ...scriptRecord(script) };
}
