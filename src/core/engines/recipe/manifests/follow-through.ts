import { languageForPath } from '../../../syntax/language-for-path.js';
import type { SyntaxLanguage } from '../../../syntax/types.js';
import { followGo } from './follow-go.js';
import { followJava } from './follow-java.js';
import { followNpm } from './follow-npm.js';
import { followPython } from './follow-python.js';
import { capNotes, type FollowStep, type FollowThrough, type ManifestAccess } from './follow-types.js';

const BY_LANGUAGE: Record<SyntaxLanguage, (step: FollowStep, changed: readonly string[], access: ManifestAccess) => Promise<FollowThrough>> = {
  java: followJava,
  // Kotlin builds declare dependencies as Java's do (Gradle, Maven).
  kotlin: followJava,
  go: followGo,
  typescript: followNpm,
  tsx: followNpm,
  javascript: followNpm,
  python: followPython,
};

/** Notes kept per ecosystem; the rest are counted. */
const MAX_NOTES = 20;

/**
 * After a migrate-import step: the build owning each changed file must declare what the new
 * imports need. Edits add or replace declarations when the step gives `version`; notes name
 * each manifest and the line to add otherwise, and flag dependencies left on the old namespace.
 */
export async function followThrough(step: FollowStep, changed: readonly string[], access: ManifestAccess): Promise<FollowThrough> {
  const groups = new Map<(typeof BY_LANGUAGE)[SyntaxLanguage], string[]>();
  for (const path of changed) {
    const language = languageForPath(path);
    if (!language) continue;
    const follow = BY_LANGUAGE[language];
    groups.set(follow, [...(groups.get(follow) ?? []), path]);
  }
  const out: FollowThrough = { edits: [], notes: [] };
  for (const [follow, paths] of groups) {
    const one = await follow(step, paths, access);
    out.edits.push(...one.edits);
    out.notes.push(...capNotes(one.notes, MAX_NOTES));
    out.dependency ??= one.dependency;
  }
  return out;
}
