import type { Node, Tree } from 'web-tree-sitter';
import type { SyntaxLanguage } from '../../../syntax/types.js';
import { byKey, byKeyIgnoringCase, type ImportStyle, type RawImport } from './import-block.js';
import { PYTHON_STDLIB_MODULES } from './python-stdlib.js';

type Reader = (tree: Tree) => RawImport[];

function raw(node: Node, key: string, kind: string, container: number, detail?: string): RawImport {
  return { startLine: node.startPosition.row, endLine: node.endPosition.row, start: node.startIndex, end: node.endIndex, key, kind, container, detail };
}

const C_COMMENT = /^\s*(\/\/.*|\/\*.*\*\/\s*)$/;
const C_TRAILING = /^\s*(\/\/.*|\/\*.*\*\/\s*)?$/;

/** Java: `import [static] a.b.C[.*];` at the top level; static imports form their own kind. */
const readJava: Reader = (tree) =>
  tree.rootNode.namedChildren.flatMap((node) => {
    if (node?.type !== 'import_declaration') return [];
    const path = node.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier');
    if (!path) return [];
    const wildcard = node.namedChildren.some((c) => c?.type === 'asterisk');
    const isStatic = node.children.some((c) => c?.type === 'static');
    return [raw(node, path.text + (wildcard ? '.*' : ''), isStatic ? 'static' : 'normal', 0)];
  });

const JAVA: ImportStyle = {
  separator: '.',
  orders: [byKey, byKeyIgnoringCase],
  kindRank: (kind) => (kind === 'static' ? 1 : 0),
  commentLine: C_COMMENT,
  trailing: C_TRAILING,
};

/** Kotlin: the `import a.b.C[.*][ as D]` headers of the file's import list; an aliased import is a kind of its own. */
const readKotlin: Reader = (tree) =>
  tree.rootNode.namedChildren.flatMap((list) =>
    list?.type !== 'import_list'
      ? []
      : list.namedChildren.flatMap((node) => {
          const path = node?.type === 'import_header' ? node.namedChildren.find((c) => c?.type === 'identifier') : undefined;
          if (!node || !path) return [];
          const wildcard = node.namedChildren.some((c) => c?.type === 'wildcard_import');
          const alias = node.namedChildren.some((c) => c?.type === 'import_alias');
          return [raw(node, path.text + (wildcard ? '.*' : ''), alias ? 'alias' : kotlinKind(path.text), 0)];
        }),
  );

/** IntelliJ's and ktlint's default layout: every other import, then `java.`, `javax.`, `kotlin.`, then aliases. */
const KOTLIN_KINDS = ['other', 'java', 'javax', 'kotlin', 'alias'];

function kotlinKind(path: string): string {
  const first = path.split('.')[0];
  return first === 'java' || first === 'javax' || first === 'kotlin' ? first : 'other';
}

const KOTLIN: ImportStyle = {
  separator: '.',
  orders: [byKey, byKeyIgnoringCase],
  kindRank: (kind) => KOTLIN_KINDS.indexOf(kind),
  commentLine: C_COMMENT,
  trailing: C_TRAILING,
};

/** JS/TS: top-level `import ... from 'x'` and `import 'x'`; relative specifiers are their own kind, placed last. */
const readJs: Reader = (tree) =>
  tree.rootNode.namedChildren.flatMap((node) => {
    if (node?.type !== 'import_statement') return [];
    const source = node.childForFieldName('source') ?? node.namedChildren.find((c) => c?.type === 'import_require_clause')?.childForFieldName('source');
    if (!source || source.type !== 'string') return [];
    const key = source.text.slice(1, -1);
    return [raw(node, key, key.startsWith('.') ? 'relative' : 'package', 0)];
  });

const JS: ImportStyle = {
  separator: '/',
  orders: [byKey, byKeyIgnoringCase],
  kindRank: (kind) => (kind === 'relative' ? 1 : 0),
  commentLine: C_COMMENT,
  trailing: C_TRAILING,
};

const PYTHON_SECTIONS = ['future', 'stdlib', 'party', 'relative'];

function pythonKind(module: string): string {
  if (module.startsWith('.')) return 'relative';
  if (module === '__future__') return 'future';
  return PYTHON_STDLIB_MODULES.has(module.split('.')[0]) ? 'stdlib' : 'party';
}

/**
 * Python: `import a.b` and `from a.b import c` at the module's top level. isort's sections:
 * future, standard library, the rest (third and first party look alike from one file, so the
 * shared prefix decides between their groups), relative.
 */
const readPython: Reader = (tree) =>
  tree.rootNode.namedChildren.flatMap((node) => {
    if (node?.type === 'import_statement') {
      const first = node.childrenForFieldName('name')[0];
      const dotted = first?.type === 'aliased_import' ? first.childForFieldName('name') : first;
      return dotted ? [raw(node, dotted.text, pythonKind(dotted.text), 0, 'import')] : [];
    }
    if (node?.type === 'import_from_statement' || node?.type === 'future_import_statement') {
      const module = node.type === 'future_import_statement' ? '__future__' : node.childForFieldName('module_name')?.text;
      return module && !/\s/.test(module) ? [raw(node, module, pythonKind(module), 0, 'from')] : [];
    }
    return [];
  });

/** isort's default order puts `import x` before `from x import y` in a section; `force_sort_within_sections` does not. */
const isortDefault = (a: RawImport, b: RawImport): number => (a.detail === b.detail ? byKeyIgnoringCase(a, b) : a.detail === 'import' ? -1 : 1);

const PYTHON: ImportStyle = {
  separator: '.',
  orders: [isortDefault, byKeyIgnoringCase, byKey],
  kindRank: (kind) => PYTHON_SECTIONS.indexOf(kind),
  commentLine: /^\s*#.*$/,
  trailing: /^\s*(#.*)?$/,
};

/** Go: the specs of each parenthesised `import ( ... )`; the standard library (no dot in the first element) is its own kind, first. */
const readGo: Reader = (tree) =>
  tree.rootNode.namedChildren.flatMap((decl, container) => {
    if (decl?.type !== 'import_declaration') return [];
    const list = decl.namedChildren.find((c) => c?.type === 'import_spec_list');
    return (list?.namedChildren ?? []).flatMap((spec) => {
      const path = spec?.type === 'import_spec' ? spec.childForFieldName('path') : undefined;
      if (!spec || !path) return [];
      const key = path.text.slice(1, -1);
      return [raw(spec, key, key.split('/')[0].includes('.') ? 'other' : 'std', container, spec.childForFieldName('name')?.text ?? '')];
    });
  });

/** gofmt sorts each group by path, then by name. */
const goOrder = (a: RawImport, b: RawImport): number => byKey(a, b) || (a.detail! < b.detail! ? -1 : a.detail! > b.detail! ? 1 : 0);

const GO: ImportStyle = {
  separator: '/',
  orders: [goOrder],
  kindRank: (kind) => (kind === 'std' ? 0 : 1),
  commentLine: C_COMMENT,
  trailing: C_TRAILING,
};

export const IMPORT_CONVENTIONS: Record<SyntaxLanguage, { read: Reader; style: ImportStyle }> = {
  java: { read: readJava, style: JAVA },
  kotlin: { read: readKotlin, style: KOTLIN },
  typescript: { read: readJs, style: JS },
  tsx: { read: readJs, style: JS },
  javascript: { read: readJs, style: JS },
  python: { read: readPython, style: PYTHON },
  go: { read: readGo, style: GO },
};
