import type { Workspace } from '../../../workspace/workspace.js';
import type { RawImport } from './import-block.js';

/**
 * The import layout a project's formatter declares in its build: which group an import belongs
 * to, groups in order (a formatter separates them by a blank line and sorts within them).
 */
export interface ImportLayout {
  /** The formatter, as the PR body names it (`google-java-format`). */
  name: string;
  /** The build file that declares it. */
  source: string;
  groupOf(raw: Pick<RawImport, 'key' | 'kind'>): number;
}

/** At most this many build files are read for a formatter declaration (the root ones first). */
const MAX_BUILD_FILES = 50;
const BUILD_FILE = /(^|\/)(pom\.xml|[^/]*\.gradle(\.kts)?)$/;

const isStatic = (raw: Pick<RawImport, 'kind'>) => raw.kind === 'static';
const under = (key: string, prefix: string) => key === prefix || key.startsWith(`${prefix}.`);

/** google-java-format and palantir-java-format: every static import, then every other, each one ASCII-sorted block. */
function googleLayout(name: string, source: string): ImportLayout {
  return { name, source, groupOf: (raw) => (isStatic(raw) ? 0 : 1) };
}

/** Spring's checkstyle rules (spring-javaformat-checkstyle, as OpenRewrite's SpringFormat style): java, javax, others, org.springframework, then static imports. */
function springLayout(source: string): ImportLayout {
  return {
    name: 'spring-javaformat-checkstyle',
    source,
    groupOf: (raw) => (isStatic(raw) ? 4 : under(raw.key, 'java') ? 0 : under(raw.key, 'javax') ? 1 : under(raw.key, 'org.springframework') ? 3 : 2),
  };
}

/** Spotless `importOrder('java', 'javax', '', ...)`: the longest declared prefix; `''` catches the rest; static imports last unless a `\#` group says where. */
function spotlessLayout(order: string[], source: string): ImportLayout {
  const isStaticGroup = (group: string) => group.startsWith('\\#') || group.startsWith('#');
  const staticAt = order.findIndex(isStaticGroup);
  const catchAll = order.indexOf('');
  return {
    name: `Spotless importOrder(${order.map((p) => `'${p}'`).join(', ')})`,
    source,
    groupOf: (raw) => {
      if (isStatic(raw)) return staticAt >= 0 ? staticAt : order.length;
      let best = -1;
      let length = -1;
      // A group may name several prefixes (`'javax|java'`).
      order.forEach((group, i) => {
        if (isStaticGroup(group) || group === '') return;
        for (const prefix of group.split('|')) if (under(raw.key, prefix) && prefix.length > length) [best, length] = [i, prefix.length];
      });
      if (best >= 0) return best;
      return catchAll >= 0 ? catchAll : order.length;
    },
  };
}

/** The layout one build file declares, if any. */
export function layoutDeclaredIn(path: string, text: string): ImportLayout | undefined {
  // The formatter plugin alone orders nothing (spring-petclinic keeps jakarta after org.springframework);
  // Spring's checkstyle rules enforce the order.
  if (/spring-javaformat-checkstyle|SpringChecks/.test(text)) return springLayout(path);
  if (/palantirJavaFormat|palantir-java-format/.test(text)) return googleLayout('palantir-java-format', path);
  if (/googleJavaFormat|google-java-format|fmt-maven-plugin/.test(text)) return googleLayout('google-java-format', path);
  const gradle = /importOrder\s*\(([^)]*)\)/.exec(text);
  if (gradle && /['"]/.test(gradle[1]))
    return spotlessLayout(
      [...gradle[1].matchAll(/['"]([^'"]*)['"]/g)].map((m) => m[1]),
      path,
    );
  const maven = /<importOrder>\s*<order>([^<]*)<\/order>/.exec(text);
  if (maven)
    return spotlessLayout(
      maven[1].split(',').map((p) => p.trim()),
      path,
    );
  return undefined;
}

/** The Java import layout the repository's build declares: root build files first, the first declaration wins. */
export async function declaredJavaImportLayout(workspace: Workspace): Promise<ImportLayout | undefined> {
  const builds = workspace
    .paths()
    .filter((p) => BUILD_FILE.test(p))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_BUILD_FILES);
  for (const path of builds) {
    const layout = layoutDeclaredIn(path, await workspace.readText(path));
    if (layout) return layout;
  }
  return undefined;
}
