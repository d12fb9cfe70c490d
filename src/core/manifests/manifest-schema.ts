import { z } from 'zod';

/**
 * The dependency manifests draftsman reads, one list for the repository map and the recipes
 * (`manifest-kinds.ts` names the files of each kind; `parse-manifest.ts` has one parser per kind).
 */
export const MANIFEST_KINDS = [
  'package.json',
  'pnpm-workspace',
  'maven',
  'gradle-build',
  'gradle-settings',
  /** Any other Gradle script: `gradle/*.gradle` applied with `apply from`, buildSrc's precompiled script plugins. */
  'gradle-script',
  /** A Gradle version catalog (`gradle/libs.versions.toml`, any `*.versions.toml`). */
  'gradle-catalog',
  /** `gradle.properties`: project properties a Gradle script's `$kotlinVersion` may come from. Never a module. */
  'gradle-properties',
  'go.mod',
  'go.work',
  'cargo',
  'pyproject',
  'requirements',
  'setup-cfg',
  'setup-py',
  'gemfile',
  'composer',
  'csproj',
  'dockerfile',
  'openapi',
  'github-workflow',
] as const;
export const ManifestKind = z.enum(MANIFEST_KINDS);
export type ManifestKind = z.infer<typeof ManifestKind>;

/** A place in the repository: the file and 1-based line a version is written on. */
export const VersionSite = z.object({ path: z.string(), line: z.number().int().positive() });
export type VersionSite = z.infer<typeof VersionSite>;

export const ManifestDependency = z.object({
  name: z.string(),
  /** As written where it is used (`1.2.3`, `^4`, `${jackson.version}`); `resolvedVersion` when a reference was followed. */
  version: z.string().optional(),
  resolvedVersion: z.string().optional(),
  /** The section or group it is declared in (`devDependencies`, `test`, a Poetry group, a Gradle configuration). */
  scope: z.string().optional(),
  /** dependency, plugin, parent, project (Gradle project()), path (local path dependency), workspace (workspace: protocol). */
  kind: z.enum(['dependency', 'plugin', 'parent', 'project', 'path', 'workspace']),
  /** For path/project dependencies: the repository path it points to. */
  target: z.string().optional(),
  /** 1-based line of the declaration in this manifest. */
  line: z.number().int().positive().optional(),
  /**
   * Where a bump edits the version: this manifest's line, or another file's (a Maven property in a
   * parent pom, a version catalog entry). Absent when the version is not written anywhere a bump may edit.
   */
  versionAt: VersionSite.optional(),
  /** The name the version comes through (`jackson.version`, `versions.kotlin`, `libs.junit`), when it is not written inline. */
  versionRef: z.string().optional(),
  /** A version catalog entry's alias as written (`androidx-core-ktx`): what a script's `libs.androidx.core.ktx` accessor names. */
  alias: z.string().optional(),
  /** go.mod's `// indirect`: required for the build, not imported by this module. */
  indirect: z.boolean().optional(),
});
export type ManifestDependency = z.infer<typeof ManifestDependency>;

/** A manifest parsed (never executed). A parse error is recorded here and in the map's warnings. */
export const ManifestRecord = z.object({
  path: z.string(),
  kind: ManifestKind,
  name: z.string().optional(),
  version: z.string().optional(),
  /** Declared members: npm/pnpm workspaces, Maven modules, Gradle includes, go.work uses, Cargo members (as written). */
  members: z.array(z.string()).optional(),
  parent: z.object({ name: z.string(), version: z.string().optional(), relativePath: z.string().optional() }).optional(),
  properties: z.record(z.string(), z.string()).optional(),
  /**
   * The 1-based line each property's value is written on in this file, when another manifest's
   * version may come from it: Maven `<properties>` children (and `project.version`/
   * `project.parent.version` where the pom writes them), gradle.properties keys, a catalog's
   * `[versions]`, a Gradle script's `ext` variables.
   */
  propertyLines: z.record(z.string(), z.number().int().positive()).optional(),
  dependencies: z.array(ManifestDependency),
  plugins: z.array(z.string()).optional(),
  /** Scripts by name with their command line (package.json `scripts`), each clipped to 300 characters. */
  scripts: z.record(z.string(), z.string()).optional(),
  /**
   * Other files this manifest pulls in, as repository paths resolved against its directory: a
   * requirements file's `-r`/`-c` includes, setup.cfg's `file:` requirement lists. The map reads
   * those that are not manifests by name as `requirements` too.
   */
  includes: z.array(z.string()).optional(),
  /** Free facts per kind: packaging, go version, base images, workflow jobs, OpenAPI title... */
  facts: z.record(z.string(), z.string()).optional(),
  /** What does not parse, with its line when the parser knows it (`line 12: …`). */
  parseError: z.string().optional(),
  evidenceRef: z.string(),
});
export type ManifestRecord = z.infer<typeof ManifestRecord>;
