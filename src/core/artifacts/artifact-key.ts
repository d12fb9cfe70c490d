import { ArtifactError } from './artifact-error.js';

/**
 * Refuse a store key that is not a plain relative path: empty, leading `/`, empty, `.` or `..`
 * segments, NUL or other control characters, backslashes. Both stores apply the same rule so a
 * key that works locally works on S3 and cannot escape the local root.
 */
export function assertArtifactKey(key: string): string {
  const bad =
    !key || key.startsWith('/') || key.includes('\\') || /[\u0000-\u001f\u007f]/.test(key) || key.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid artifact key: ${JSON.stringify(key)}`, { key });
  return key;
}
