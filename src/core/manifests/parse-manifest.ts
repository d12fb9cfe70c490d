import { parseGoMod, parseGoWork } from './go-manifests.js';
import { parseGradleCatalog } from './gradle-catalogs.js';
import { parseGradleBuild, parseGradleSettings } from './gradle-manifests.js';
import { parseGradleProperties } from './gradle-properties.js';
import type { ManifestKind } from './manifest-schema.js';
import { parsePom } from './maven-manifests.js';
import { parsePackageJson, parsePnpmWorkspace } from './npm-manifests.js';
import { parseCargo, parseComposer, parseCsproj, parseDockerfile, parseGemfile, parseOpenApi, parseWorkflow } from './other-manifests.js';
import type { ManifestParser, ParsedManifest } from './parse-util.js';
import { parsePyproject, parseRequirements, parseSetupCfg, parseSetupPy } from './python-manifests.js';

/** One parser per manifest kind (`manifest-kinds.ts` names the files of each). */
const PARSERS: Record<ManifestKind, ManifestParser> = {
  'package.json': parsePackageJson,
  'pnpm-workspace': parsePnpmWorkspace,
  maven: parsePom,
  'gradle-build': parseGradleBuild,
  'gradle-settings': parseGradleSettings,
  'gradle-script': parseGradleBuild,
  'gradle-catalog': parseGradleCatalog,
  'gradle-properties': parseGradleProperties,
  'go.mod': parseGoMod,
  'go.work': parseGoWork,
  cargo: parseCargo,
  pyproject: parsePyproject,
  requirements: parseRequirements,
  'setup-cfg': parseSetupCfg,
  'setup-py': parseSetupPy,
  gemfile: parseGemfile,
  composer: parseComposer,
  csproj: parseCsproj,
  dockerfile: parseDockerfile,
  openapi: parseOpenApi,
  'github-workflow': parseWorkflow,
};

/** Parse one manifest at `path`; a malformed file gives `parseError`, never an exception. */
export function parseManifest(kind: ManifestKind, text: string, path: string): ParsedManifest {
  try {
    return PARSERS[kind](text, path);
  } catch (error) {
    return { dependencies: [], parseError: error instanceof Error ? error.message.split('\n')[0].slice(0, 300) : String(error) };
  }
}
