import { z } from 'zod';
import { PATH_CLASSES } from '../paths/path-rules.js';
import { RiskPath, RiskRule } from '../risk/risk-schema.js';

/** Bumped whenever a layer's output can change for the same input; part of the cache key. */
export const REPO_MAP_SCANNER_VERSION = 'repomap-1.4.0';

/** Where a fact came from: the file, what kind of fact, which extractor, and the digest of what was read. */
export const EvidenceRecord = z.object({
  id: z.string(),
  path: z.string(),
  type: z.enum(['manifest', 'file_pattern', 'parsed_symbol', 'ownership', 'build_config', 'content_match']),
  extractor: z.string(),
  /** `git:<blob sha>` when file content was read, `sha256:<hex>` of the rule and path otherwise. */
  digest: z.string(),
});
export type EvidenceRecord = z.infer<typeof EvidenceRecord>;

export const MapWarning = z.object({ code: z.string(), message: z.string(), path: z.string().optional() });
export type MapWarning = z.infer<typeof MapWarning>;

import { ManifestRecord } from '../manifests/manifest-schema.js';

export { ManifestDependency, ManifestKind, MANIFEST_KINDS, ManifestRecord, VersionSite } from '../manifests/manifest-schema.js';

export const BuildSystem = z.enum(['maven', 'gradle', 'npm', 'pnpm', 'yarn', 'go', 'cargo', 'python', 'dotnet', 'composer', 'bundler']);
export type BuildSystem = z.infer<typeof BuildSystem>;

export const ModuleRecord = z.object({
  id: z.string(),
  /** Directory, `.` for the repository root. */
  path: z.string(),
  name: z.string().optional(),
  language: z.string().optional(),
  buildSystem: BuildSystem,
  sourceRoots: z.array(z.string()),
  testRoots: z.array(z.string()),
  resourceRoots: z.array(z.string()),
  manifests: z.array(z.string()),
  /** Module ids this module depends on, from manifests. */
  dependsOn: z.array(z.string()),
  evidenceRefs: z.array(z.string()),
});
export type ModuleRecord = z.infer<typeof ModuleRecord>;

export const LanguageProfile = z.object({
  language: z.string(),
  type: z.string(),
  files: z.number().int(),
  /** Share of classified files, 0..1. */
  share: z.number(),
  /** Mean certainty of the extension -> language mapping for its files, 0..1. */
  confidence: z.number(),
});
export type LanguageProfile = z.infer<typeof LanguageProfile>;

export const Command = z.object({ cwd: z.string(), argv: z.array(z.string()) });
export type Command = z.infer<typeof Command>;

export const BuildProfile = z.object({
  moduleId: z.string(),
  buildSystem: BuildSystem,
  compile: Command.optional(),
  unitTest: Command.optional(),
  /** argv with `{className}`, `{testFile}` or `{testName}` to fill in. */
  focusedTestTemplate: Command.optional(),
  /**
   * The test runner the test commands were chosen for and the declaration that names it (the
   * `test` script, a dependency, pytest's configuration, the wrapper…); `name` is absent when
   * nothing the project declares names one, and `focusedTestTemplate` is then absent too.
   */
  testRunner: z.object({ name: z.string().optional(), reason: z.string() }).optional(),
  needsNetwork: z.boolean(),
  networkReason: z.string(),
  evidenceRefs: z.array(z.string()),
});
export type BuildProfile = z.infer<typeof BuildProfile>;

export const OwnershipRule = z.object({ pattern: z.string(), owners: z.array(z.string()), source: z.string(), line: z.number().int() });
export type OwnershipRule = z.infer<typeof OwnershipRule>;

export const HINT_KINDS = ['entrypoint', 'api', 'config', 'test', 'schema', 'migration', 'generated'] as const;
export const NavigationHint = z.object({
  kind: z.enum(HINT_KINDS),
  path: z.string(),
  confidence: z.number(),
  reason: z.string(),
  evidenceRefs: z.array(z.string()),
  /** Framework signal when one was seen (jax-rs, spring, express, fastapi, ...). */
  framework: z.string().optional(),
  origin: z.literal('detected'),
});
export type NavigationHint = z.infer<typeof NavigationHint>;

export const ModuleEdge = z.object({ from: z.string(), to: z.string(), via: z.string(), evidenceRef: z.string() });
export type ModuleEdge = z.infer<typeof ModuleEdge>;

export const PathClassSchema = z.enum(PATH_CLASSES);

/** Every file of the repository by class (from the path rules), each list sorted. */
export const PathClassification = z.record(PathClassSchema, z.array(z.string()));
export type PathClassification = z.infer<typeof PathClassification>;

export const RepoMapIdentity = z.object({
  owner: z.string(),
  repo: z.string(),
  commit: z.string(),
  scannerVersion: z.string(),
  policyDigest: z.string(),
  workspaceDigest: z.string(),
});
export type RepoMapIdentity = z.infer<typeof RepoMapIdentity>;

/** repo-map.json: deterministic layers with evidence, bound to one commit. */
export const RepoMap = z.object({
  schemaVersion: z.literal(1),
  baseCommitSha: z.string(),
  identity: RepoMapIdentity,
  filesystem: z.object({
    fileCount: z.number().int(),
    topLevelDirs: z.array(z.string()),
    importantFiles: z.array(z.string()),
    ignoredDirs: z.array(z.object({ path: z.string(), reason: z.string(), files: z.number().int() })),
    largeFiles: z.array(z.object({ path: z.string(), sizeBytes: z.number().int() })),
    binaryFiles: z.array(z.string()),
    symlinks: z.array(z.object({ path: z.string(), target: z.string(), withinWorkspace: z.boolean() })),
    submodules: z.array(z.string()),
  }),
  manifests: z.array(ManifestRecord),
  modules: z.array(ModuleRecord),
  languages: z.array(LanguageProfile),
  build: z.array(BuildProfile),
  ownership: z.object({ source: z.string().optional(), rules: z.array(OwnershipRule) }),
  dependencies: z.object({
    /** L0: module -> module from manifests. L1 (file imports) and L2 (symbols) are computed on demand. */
    modules: z.array(ModuleEdge),
  }),
  classification: PathClassification,
  risk: z.object({ rules: z.array(RiskRule), paths: z.array(RiskPath), truncated: z.boolean() }),
  navigationHints: z.array(NavigationHint),
  evidence: z.array(EvidenceRecord),
  warnings: z.array(MapWarning),
});
export type RepoMap = z.infer<typeof RepoMap>;
