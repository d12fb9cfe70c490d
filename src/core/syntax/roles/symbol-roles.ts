import type { SyntaxLanguage } from '../types.js';
import { GO_ROLES } from './go-roles.js';
import { JAVA_ROLES } from './java-roles.js';
import { JS_ROLES } from './js-roles.js';
import { KOTLIN_ROLES } from './kotlin-roles.js';
import { PYTHON_ROLES } from './python-roles.js';
import type { LanguageRoles } from './types.js';

export type { DeclKind, LanguageRoles, SymbolRole } from './types.js';

/** The role rules of each parsed language. */
export const SYMBOL_ROLES: Record<SyntaxLanguage, LanguageRoles> = {
  java: JAVA_ROLES,
  kotlin: KOTLIN_ROLES,
  typescript: JS_ROLES,
  tsx: JS_ROLES,
  javascript: JS_ROLES,
  python: PYTHON_ROLES,
  go: GO_ROLES,
};
