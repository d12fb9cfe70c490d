import type { DeclKind } from '../../syntax/roles/symbol-roles.js';
import type { RenameSymbolStep } from '../../task/recipe-steps.js';
import type { SpanEdit } from './recipe-types.js';
import type { FileScan, RenameSite, SiteRole } from './rename-scan.js';

export type RenameKind = NonNullable<RenameSymbolStep['kind']>;

/** What the files in scope declare under the old name, for the decisions that depend on other files. */
export interface RenameFacts {
  declared: Set<DeclKind>;
  /** A Java record has a component with the old name: `r.name()` calls its accessor. */
  recordComponent: boolean;
  /**
   * The dotted module paths the declaring files can be imported by (`marshmallow.fields` and
   * `fields` for `marshmallow/fields.py`; `com.acme` for `src/main/java/com/acme/Order.java`),
   * when the files in scope are known: an import from elsewhere (`from enum import Enum`) names
   * another symbol of the same name.
   */
  modules?: Set<string>;
}

/** The dotted paths a declaring file's module can be named by: every suffix of its directories (Java, Kotlin) or of its module path (Python). */
export function moduleNamesOf(path: string, language: string): string[] {
  const parts = path.replace(/\.[^./]+$/, '').split('/');
  if (language === 'python') {
    if (parts[parts.length - 1] === '__init__') parts.pop();
  } else parts.pop();
  return parts.map((_, i) => parts.slice(i).join('.')).filter(Boolean);
}

/** Whether an import from `module` can name the repository's symbol: a relative import, a declaring module, a package above one (a re-export) or a type inside one. */
function importsFromRepository(module: string | undefined, modules: ReadonlySet<string> | undefined): boolean {
  if (module === undefined || modules === undefined || module.startsWith('.')) return true;
  if (modules.has(module)) return true;
  for (const declaring of modules) {
    if (declaring.startsWith(`${module}.`)) return true;
    // A type nested in a declaring module's type (`org.acme.Outer.Inner`).
    if (module.startsWith(`${declaring}.`) && /^[A-Z]/.test(module.slice(declaring.length + 1))) return true;
  }
  return false;
}

export interface FilePlan {
  spans: SpanEdit[];
  /** Lines of existing bindings of the new name that a renamed occurrence would meet. */
  clashes: { line: number; against: number }[];
  /** Lines of occurrences of the old name left alone because they name another kind of symbol. */
  left: number[];
}

const TYPE_LIKE = new Set<DeclKind>(['class', 'interface', 'type', 'enum']);
const MEMBER = new Set<DeclKind>(['field', 'method']);

export function renameFacts(scans: FileScan[]): RenameFacts {
  const declared = new Set<DeclKind>();
  let recordComponent = false;
  for (const scan of scans) {
    for (const site of scan.from) {
      if (site.role.role !== 'declaration') continue;
      declared.add(site.role.kind);
      if (scan.language === 'java' && site.role.kind === 'field' && site.role.container?.startsWith('record_declaration@')) recordComponent = true;
    }
  }
  return { declared, recordComponent };
}

/** `type` is any named type: an enum, and an interface (a Go interface is a `type` declaration). */
function kindMatches(kind: RenameKind, declared: DeclKind): boolean {
  return kind === declared || (kind === 'type' && (declared === 'enum' || declared === 'interface'));
}

/** A bare name resolves to the innermost scope around it that declares it (or an import at the top). */
function resolver(scan: FileScan): (site: RenameSite) => DeclKind | 'import' | undefined {
  const byScope = new Map<string, { kind: DeclKind | 'import'; start: number }>();
  const bind = (scope: string, kind: DeclKind | 'import', start: number) => {
    if (!byScope.has(scope)) byScope.set(scope, { kind, start });
  };
  for (const site of scan.from) {
    const role = site.role;
    if (role.role === 'declaration' && role.lexical) bind(role.bindScope, role.kind, site.start);
    else if (role.role === 'import') bind(role.bindScope, 'import', site.start);
    else if (role.role === 'shorthand' && role.pattern) bind(role.bindScope, 'variable', site.start);
  }
  // In Go and Java a local variable is in scope from its declaration on: a use written before it
  // (`http.Serve(...)` above `http := http.Client{...}`) names the outer binding.
  const fromDeclarationOn = scan.language === 'go' || scan.language === 'java';
  return (site) => {
    for (const scope of site.chain) {
      const binding = byScope.get(scope);
      if (!binding) continue;
      if (fromDeclarationOn && binding.kind === 'variable' && site.start < binding.start) continue;
      return binding.kind;
    }
    return undefined;
  };
}

type Decision = 'rename' | 'key' | 'value' | undefined;

/** Whether a reference that resolves to `resolved` (or to nothing in this file) names a symbol of `kind`. */
function refersTo(kind: RenameKind, resolved: DeclKind | 'import' | undefined, scan: FileScan): boolean {
  if (MEMBER.has(kind)) return resolved !== undefined && resolved !== 'import' && kindMatches(kind, resolved);
  if (resolved === 'import') return true;
  if (resolved) return kindMatches(kind, resolved);
  // Not declared in this file: another module's symbol; TS/JS types and interfaces are never values.
  const jsLike = scan.language === 'typescript' || scan.language === 'tsx' || scan.language === 'javascript';
  return !(jsLike && (kind === 'type' || kind === 'interface'));
}

type RoleOf<R extends SiteRole['role']> = Extract<SiteRole, { role: R }>;

/**
 * Whether this file imports the name from outside the repository (`from enum import Enum`,
 * `import java.util.List`): its bare uses and type references then name that symbol.
 */
function importsForeign(scan: FileScan, facts: RenameFacts): boolean {
  return scan.from.some((site) => site.role.role === 'import' && !importsFromRepository(site.role.module, facts.modules));
}

/** A name written with another package (`@org.junit.jupiter.api.Test`) is that package's symbol. */
function qualifiedElsewhere(role: SiteRole, facts: RenameFacts): boolean {
  if (role.role !== 'value' && role.role !== 'type-ref') return false;
  return role.qualifier !== undefined && /^[a-z_]/.test(role.qualifier) && !importsFromRepository(role.qualifier, facts.modules);
}

/** A bare use or type reference bound by no declaration of this file: it names what the file imports. */
function namesForeignImport(site: RenameSite, resolve: ReturnType<typeof resolver>): boolean {
  if (site.role.role !== 'type-ref' && site.role.role !== 'value') return false;
  const resolved = resolve(site);
  return resolved === undefined || resolved === 'import';
}

function decide(
  site: RenameSite,
  name: string,
  kind: RenameKind | undefined,
  facts: RenameFacts,
  scan: FileScan,
  resolve: ReturnType<typeof resolver>,
  foreign: boolean,
): Decision {
  if (!kind) return 'rename';
  const role = site.role;
  if ((foreign && namesForeignImport(site, resolve)) || qualifiedElsewhere(role, facts)) return undefined;
  switch (role.role) {
    case 'declaration':
      return decideDeclaration(role, kind, facts);
    case 'import':
      if (!importsFromRepository(role.module, facts.modules)) return undefined;
      return !MEMBER.has(kind) || scan.language === 'java' ? 'rename' : undefined;
    case 'type-ref':
      return TYPE_LIKE.has(kind) ? 'rename' : undefined;
    case 'value':
      return decideValue(resolve(site), name, kind, scan);
    case 'member':
      return decideMember(role, kind, facts, scan);
    case 'key':
      return kind === 'field' || (kind === 'method' && role.functionValue) ? 'rename' : undefined;
    case 'shorthand':
      return decideShorthand(role, kind, () => resolve(site), scan);
    default:
      return undefined;
  }
}

function decideValue(resolved: DeclKind | 'import' | undefined, name: string, kind: RenameKind, scan: FileScan): Decision {
  // In Go an undeclared bare name that an import names is that package (`http.Serve`), not a variable.
  if (resolved === undefined && scan.language === 'go' && scan.namespaces.has(name)) return undefined;
  return refersTo(kind, resolved, scan) ? 'rename' : undefined;
}

/** `{ name }`: a field renames as a key (`{ to: name }`), a variable or bound name as a value (`{ name: to }`). */
function decideShorthand(role: RoleOf<'shorthand'>, kind: RenameKind, resolve: () => DeclKind | 'import' | undefined, scan: FileScan): Decision {
  if (kind === 'field') return 'key';
  if (MEMBER.has(kind)) return undefined;
  if (role.pattern) return kind === 'variable' ? 'value' : undefined;
  return refersTo(kind, resolve(), scan) ? 'value' : undefined;
}

function decideDeclaration(role: RoleOf<'declaration'>, kind: RenameKind, facts: RenameFacts): Decision {
  if (kindMatches(kind, role.kind)) return 'rename';
  // A record's explicit accessor goes with its component.
  return kind === 'field' && role.kind === 'method' && facts.recordComponent && role.container?.startsWith('record_declaration@') ? 'rename' : undefined;
}

/** `x.name`: through a namespace import it is a module's symbol; otherwise a field or a method, told by the call and what is declared. */
/** Whether `x` in `x.name` is a module: a namespace import, or `from pkg import mod` where `pkg.mod` is a declaring module. */
function throughModule(role: RoleOf<'member'>, facts: RenameFacts, scan: FileScan): boolean {
  if (!role.object) return false;
  if (scan.namespaces.has(role.object)) return true;
  const path = scan.importedPaths.get(role.object);
  return path !== undefined && facts.modules?.has(path) === true;
}

function decideMember(role: RoleOf<'member'>, kind: RenameKind, facts: RenameFacts, scan: FileScan): Decision {
  if (throughModule(role, facts, scan)) return MEMBER.has(kind) ? undefined : 'rename';
  if (kind === 'field') {
    if (role.implicit) return undefined;
    // A record component is read through its accessor, `r.name()`.
    if (role.called && facts.recordComponent) return role.arguments === 0 ? 'rename' : undefined;
    return !role.called || !facts.declared.has('method') ? 'rename' : undefined;
  }
  if (kind === 'method') return role.called || role.implicit || !facts.declared.has('field') ? 'rename' : undefined;
  // A Kotlin extension function is called on a receiver (`setup.run()`): a call renames when the
  // files declare the function and no method of that name.
  if (kind === 'function' && scan.language === 'kotlin')
    return role.called && facts.declared.has('function') && !facts.declared.has('method') ? 'rename' : undefined;
  return undefined;
}

/** Whether renaming this site binds the name in a lexical scope, and in which member container. */
function effects(role: SiteRole, decision: Decision): { lexical: boolean; container?: string } {
  switch (role.role) {
    case 'declaration':
      return { lexical: role.lexical, container: role.container };
    case 'import':
    case 'type-ref':
    case 'value':
      return { lexical: true };
    case 'key':
      return { lexical: false, container: role.container };
    case 'shorthand':
      return decision === 'key'
        ? { lexical: false, container: role.container }
        : decision === 'value'
          ? { lexical: true }
          : { lexical: true, container: role.container };
    case 'member':
      return { lexical: !!role.implicit };
    default:
      return { lexical: false };
  }
}

/**
 * The edits renaming `from` to `to` in one file, per the step's `kind` (see rename-symbol-recipe.ts
 * for the rule per kind), and the existing bindings of `to` they would collide with.
 */
export function planFileRename(scan: FileScan, step: Pick<RenameSymbolStep, 'from' | 'to' | 'kind' | 'comments'>, facts: RenameFacts): FilePlan {
  const resolve = resolver(scan);
  const toLexical: { scope: string; line: number; member: boolean }[] = [];
  const toMembers = new Map<string, number[]>();
  for (const site of scan.to) {
    const role = site.role;
    if ((role.role === 'declaration' && role.lexical) || role.role === 'import')
      toLexical.push({ scope: role.bindScope, line: site.line, member: role.role === 'declaration' && MEMBER.has(role.kind) });
    if (role.role === 'shorthand' && role.pattern) toLexical.push({ scope: role.bindScope, line: site.line, member: false });
    const container = role.role === 'declaration' || role.role === 'key' || role.role === 'shorthand' ? role.container : undefined;
    if (container) toMembers.set(container, [...(toMembers.get(container) ?? []), site.line]);
  }
  const spans: SpanEdit[] = [];
  const clashes = new Map<string, { line: number; against: number }>();
  const left = new Set<number>();
  const foreign = importsForeign(scan, facts);
  const decisions = scan.from.map((site) => decide(site, step.from, step.kind, facts, scan, resolve, foreign));
  // A renamed local may shadow a member of the new name that is also a bare name (a Java field:
  // `this.owners = owners` is the usual constructor). That is a clash only when a bare use of the
  // new name inside the local's scope would now mean the local instead of the member.
  const renamedScopes = new Set<string>();
  scan.from.forEach((site, i) => {
    if (decisions[i] && site.role.role === 'declaration' && site.role.lexical && !MEMBER.has(site.role.kind)) renamedScopes.add(site.role.bindScope);
  });
  const captured = scan.to.some((site) => site.role.role === 'value' && site.chain.some((scope) => renamedScopes.has(scope)));
  scan.from.forEach((site, i) => {
    const decision = decisions[i];
    if (!decision) {
      left.add(site.line);
      return;
    }
    const text = decision === 'key' ? `${step.to}: ${step.from}` : decision === 'value' ? `${step.from}: ${step.to}` : step.to;
    spans.push({ start: site.start, end: site.end, text });
    const effect = effects(site.role, decision);
    const against: number[] = [];
    if (effect.lexical)
      for (const binding of toLexical)
        if (site.chain.includes(binding.scope) && (!binding.member || captured || isMemberDeclaration(site.role))) against.push(binding.line);
    if (effect.container) against.push(...(toMembers.get(effect.container) ?? []));
    for (const line of against) clashes.set(`${line}`, { line, against: site.line });
  });
  if (spans.length && step.comments) for (const mention of scan.mentions) spans.push({ ...mention, text: step.to });
  return { spans, clashes: [...clashes.values()].sort((a, b) => a.line - b.line), left: [...left] };
}

function isMemberDeclaration(role: SiteRole): boolean {
  return role.role === 'declaration' && MEMBER.has(role.kind);
}

/** True when some file declares `from` as a symbol of `kind` (the guard for `rename-symbol {kind}`). */
export function declaresKind(scans: FileScan[], kind: RenameKind): boolean {
  return scans.some((scan) =>
    scan.from.some(
      (site) =>
        (site.role.role === 'declaration' && kindMatches(kind, site.role.kind)) || (kind === 'variable' && site.role.role === 'shorthand' && site.role.pattern),
    ),
  );
}
