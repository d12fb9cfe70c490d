import { FIXTURE_DIR_NAMES } from '../policy/agent-policy.js';

/**
 * Name helpers and the map's skip list, decided from the name alone. What a file is (test,
 * lockfile, generated, vendored...) is for the path rules (`src/core/paths`).
 */

/** Directory names whose content is never source of this repository. */
export const IGNORED_DIR_NAMES: Readonly<Record<string, string>> = {
  node_modules: 'installed dependencies',
  vendor: 'vendored dependencies',
  third_party: 'vendored dependencies',
  bower_components: 'installed dependencies',
  '.venv': 'python virtual environment',
  venv: 'python virtual environment',
  __pycache__: 'python bytecode cache',
  '.gradle': 'gradle cache',
  '.mvn': 'maven wrapper files',
  target: 'build output',
  build: 'build output',
  dist: 'build output',
  out: 'build output',
  '.next': 'build output',
  coverage: 'test coverage output',
  '.tox': 'python test environments',
  '.idea': 'editor settings',
  '.vscode': 'editor settings',
};

/** The first ignored directory on the path (as a path prefix), with why; undefined if none. */
export function ignoredDirOf(path: string): { dir: string; reason: string } | undefined {
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i++) {
    // Own keys only: a directory named `constructor` or `toString` (spring-framework has one) is not in the list.
    const reason = Object.hasOwn(IGNORED_DIR_NAMES, segments[i]) ? IGNORED_DIR_NAMES[segments[i]] : undefined;
    // `.mvn` only holds the wrapper: it is reported, but `build`, `out` under src/ are real code dirs in some repos.
    if (reason && !(i > 0 && (segments[i] === 'build' || segments[i] === 'out') && segments.slice(0, i).includes('src'))) {
      return { dir: segments.slice(0, i + 1).join('/'), reason };
    }
  }
  return undefined;
}

/** Directories of test inputs (`FIXTURE_DIR_NAMES`, also part of the default test patterns). */
const FIXTURE_DIRS = new Set<string>(FIXTURE_DIR_NAMES);

/** True when a directory on the path is a fixture directory. */
export function isUnderFixtureDir(path: string): boolean {
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i++) if (FIXTURE_DIRS.has(segments[i])) return true;
  return false;
}

/**
 * Test inputs and data rather than code: under a fixture directory, under a test tree's
 * `resources` (`src/test/resources/`), or binary or compressed by name. A model's context lists
 * them never: they crowd out the files a change needs.
 */
export function isTestData(path: string): boolean {
  if (isUnderFixtureDir(path) || isBinaryByName(path)) return true;
  const segments = path.split('/');
  const resources = segments.lastIndexOf('resources', segments.length - 2);
  return resources > 0 && segments.slice(0, resources).some((s) => s === 'test' || s === 'tests');
}

export function isVendoredOrBuildOutput(path: string): boolean {
  return ignoredDirOf(path) !== undefined;
}

const BINARY_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'ico',
  'webp',
  'tiff',
  'psd',
  'pdf',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'rar',
  'jar',
  'war',
  'ear',
  'class',
  'so',
  'dll',
  'dylib',
  'exe',
  'bin',
  'o',
  'a',
  'lib',
  'pyc',
  'pyo',
  'wasm',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'mp3',
  'mp4',
  'mov',
  'avi',
  'wav',
  'flac',
  'ogg',
  'webm',
  'sqlite',
  'db',
  'keystore',
  'jks',
  'p12',
  'pfx',
]);

/** A TypeScript declaration file (`index.d.ts`, `.d.cts`, `.d.mts`): types of code that lives elsewhere, no bodies. */
export function isDeclarationFile(path: string): boolean {
  return /\.d\.[cm]?ts$/.test(path);
}

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function dirName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Binary by extension; content sniffing (`looksBinary`) is done lazily by whoever reads the file. */
export function isBinaryByName(path: string): boolean {
  return BINARY_EXTENSIONS.has(extensionOf(path));
}

/** A NUL byte in the first 8000 bytes, as git decides. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
