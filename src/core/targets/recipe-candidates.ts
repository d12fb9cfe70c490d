import type { RecipeStep } from '../task/recipe-steps.js';
import { extensionOf, baseName } from '../repomap/path-classes.js';
import { compileUserRegex } from '../util/user-regex.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface RecipeMatch {
  line: number;
  snippet: string;
  detail: string;
}

/**
 * Whether a recipe step could change this file, decided from its content. This stands in for
 * the recipe engine's own `recipeCandidates(step, paths)` until it exists: a file qualifies
 * when the step's `find`/`from`/`package` appears at a place the recipe edits (an import or
 * qualified use for migrate-import, a dependency declaration in a manifest for
 * bump-dependency, an identifier for rename-symbol, any literal/regex match for replace).
 */
export function recipeMatches(step: RecipeStep, path: string, text: string): RecipeMatch[] {
  const lines = text.split('\n');
  const out: RecipeMatch[] = [];
  const scan = (re: { test(text: string): boolean }, detail: string): void => {
    lines.forEach((l, i) => {
      if (re.test(l)) out.push({ line: i + 1, snippet: l.trim().slice(0, 200), detail });
    });
  };
  const ext = extensionOf(path);
  switch (step.recipe) {
    case 'replace': {
      if (step.regex) scan(compileUserRegex(step.find, step.flags), 'regex match');
      else {
        const f = escape(step.find);
        const auto = step.wordBoundary === true || (step.wordBoundary === 'auto');
        const pre = auto && /^[A-Za-z0-9_$]/.test(step.find) ? '(?<![A-Za-z0-9_$])' : '';
        const post = auto && /[A-Za-z0-9_$]$/.test(step.find) ? '(?![A-Za-z0-9_$])' : '';
        scan(new RegExp(`${pre}${f}${post}`), 'literal match');
      }
      break;
    }
    case 'migrate-import': {
      const f = escape(step.from);
      if (ext === 'java' || ext === 'kt') {
        scan(new RegExp(`^\\s*import\\s+(static\\s+)?${f}(\\.|;|\\s)`), 'Java import');
        scan(new RegExp(`(?<![\\w.])${f}\\.[A-Za-z_]`), 'fully qualified use');
      } else if (/^[cm]?[jt]sx?$/.test(ext)) scan(new RegExp(`(from\\s*|require\\s*\\(\\s*|import\\s*\\(\\s*|^\\s*import\\s*)['"]${f}(/[^'"]*)?['"]`), 'JS/TS import');
      else if (ext === 'py') scan(new RegExp(`^\\s*(from|import)\\s+${f}(\\.|\\s|$|,)`), 'Python import');
      else if (ext === 'go') scan(new RegExp(`"${f}(/[^"]*)?"`), 'Go import path');
      break;
    }
    case 'bump-dependency': {
      const name = baseName(path);
      const pkg = step.package;
      if (name === 'pom.xml') {
        const [g, a] = pkg.includes(':') ? pkg.split(':') : ['', pkg];
        if (text.includes(`<artifactId>${a}</artifactId>`) && (!g || text.includes(`<groupId>${g}</groupId>`))) scan(new RegExp(`<artifactId>${escape(a)}</artifactId>`), 'Maven artifact');
      } else if (/^build\.gradle(\.kts)?$/.test(name)) scan(new RegExp(`["']${escape(pkg)}[:"']|id\\s*\\(?\\s*["']${escape(pkg)}["']`), 'Gradle dependency or plugin');
      else if (name === 'package.json') scan(new RegExp(`"${escape(pkg)}"\\s*:`), 'npm dependency');
      else if (name === 'go.mod') scan(new RegExp(`(^|\\s)${escape(pkg)}\\s+v`), 'Go requirement');
      else if (/^requirements.*\.txt$|^pyproject\.toml$/.test(name)) scan(new RegExp(`(^|["'\\s])${escape(pkg)}\\s*(\\[[^\\]]*\\])?\\s*(\\(|[<>=!~]|["',]|$)`, 'i'), 'Python requirement');
      else if (name === 'Cargo.toml') scan(new RegExp(`^\\s*${escape(pkg)}\\s*=`), 'Cargo dependency');
      break;
    }
    case 'rename-symbol':
      scan(new RegExp(`(?<![A-Za-z0-9_$])${escape(step.from)}(?![A-Za-z0-9_$])`), 'identifier');
      break;
  }
  return out;
}

/** Files a bump-dependency step may edit by name (lockfiles never: they are refreshed by a tool). */
export function isDependencyManifest(path: string): boolean {
  return /^(pom\.xml|build\.gradle(\.kts)?|package\.json|go\.mod|Cargo\.toml|pyproject\.toml|requirements[\w.-]*\.txt)$/.test(baseName(path));
}
