import type { SyntaxLanguage } from '../types.js';
import { goTagPatterns } from './go.js';
import { javaTagPatterns } from './java.js';
import { javascriptTagPatterns } from './javascript.js';
import { kotlinTagPatterns } from './kotlin.js';
import { pythonTagPatterns } from './python.js';
import type { HasNodeType } from './vocabulary.js';

export type { HasNodeType } from './vocabulary.js';

const PATTERNS: Record<SyntaxLanguage, (has: HasNodeType) => string[]> = {
  java: javaTagPatterns,
  kotlin: kotlinTagPatterns,
  typescript: javascriptTagPatterns,
  tsx: javascriptTagPatterns,
  javascript: javascriptTagPatterns,
  python: pythonTagPatterns,
  go: goTagPatterns,
};

/** The tag query of a language, for a grammar that has the node types `has` accepts. */
export function tagQuerySource(language: SyntaxLanguage, has: HasNodeType): string {
  return PATTERNS[language](has).join('\n');
}
