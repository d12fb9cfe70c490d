import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import type { ArtifactStore } from '../../core/ports.js';
import { IngestionArtifact } from '../../core/ingestion/artifacts.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { RepoMap } from '../../core/repomap/repo-map-schema.js';
import { TargetSelection } from '../../core/targets/target-selection-schema.js';
import { displayPath, escapeControls } from '../../core/text/quote-path.js';
import type { StageCommand } from './stage-args.js';

/** One warning of a stage, with the paths it concerns. */
export interface FoundWarning {
  stage: 'ingestion' | 'map' | 'targets';
  code: string;
  message: string;
  paths: string[];
}

/** What the stages found, read back from the attempt's artifacts: `--json` prints all of it as `found`. */
export interface StageFindings {
  /** Ingestion's own sentence when it failed (not in the --json `found`: `message` carries it). */
  error?: { reason: string; message: string };
  warnings: FoundWarning[];
  modules?: { id: string; path: string; name?: string; buildSystem: string; language?: string }[];
  buildSystems?: string[];
  languages?: { language: string; files: number; share: number }[];
  targets?: {
    strategy: string;
    selected: { path: string; rank: number; classification: string; allowedToEdit: boolean; module?: string; reasons: string[] }[];
    excluded: { path: string; reason: string }[];
  };
}

/** The findings of the artifacts the attempt wrote (those it did not get to are left out). */
export async function readFindings(store: ArtifactStore, result: PipelineResult): Promise<StageFindings> {
  const read = <S extends Parameters<typeof readArtifactIfPresent>[2]>(name: string, schema: S) =>
    result.artifacts[name] ? readArtifactIfPresent(store, result.artifacts[name], schema).catch(() => undefined) : Promise.resolve(undefined);
  const [ingestion, map, targets] = await Promise.all([
    read('ingestion.json', IngestionArtifact),
    read('repo-map.json', RepoMap),
    read('target-selection.json', TargetSelection),
  ]);
  const found: StageFindings = {
    warnings: [
      ...(ingestion?.warnings ?? []).map((w) => warningOf('ingestion', w)),
      ...(map?.warnings ?? []).map((w) => warningOf('map', w)),
      ...(targets?.warnings ?? []).map((w) => warningOf('targets', w)),
    ],
  };
  if (ingestion?.error) found.error = ingestion.error;
  if (map) {
    found.modules = map.modules.map((m) => ({ id: m.id, path: m.path, name: m.name, buildSystem: m.buildSystem, language: m.language }));
    found.buildSystems = [...new Set(map.modules.map((m) => m.buildSystem))];
    found.languages = map.languages.map((l) => ({ language: l.language, files: l.files, share: l.share }));
  }
  if (targets) {
    found.targets = {
      strategy: targets.strategy,
      selected: targets.selectedFiles.map(({ path, rank, classification, allowedToEdit, module, reasons }) => ({
        path,
        rank,
        classification,
        allowedToEdit,
        ...(module ? { module } : {}),
        reasons,
      })),
      excluded: targets.excludedFiles,
    };
  }
  return found;
}

function warningOf(stage: FoundWarning['stage'], warning: { code: string; message: string; data?: Record<string, unknown> }): FoundWarning {
  const data = warning.data ?? {};
  const paths = [...(Array.isArray(data.paths) ? data.paths : []), ...(typeof data.path === 'string' ? [data.path] : [])].filter(
    (p): p is string => typeof p === 'string',
  );
  return { stage, code: warning.code, message: warning.message, paths };
}

/** How much the terminal shows; `--json` has everything. */
const SHOWN = { paths: 5, modules: 12, languages: 5, targets: 10, reasons: 3 };

/**
 * What a person ran the command for, short: `ingest` the warnings with their paths; `map` the
 * modules, build systems and languages too; `targets` the ranked files with their reasons. Names
 * from the repository are shown, never obeyed (control characters quoted).
 */
export function findingsText(command: StageCommand, found: StageFindings): string[] {
  if (command === 'run') return [];
  const lines = warningLines(found.warnings);
  if (command === 'map') lines.push(...mapLines(found));
  if (command === 'targets') lines.push(...targetLines(found));
  return lines;
}

function warningLines(warnings: FoundWarning[]): string[] {
  if (warnings.length === 0) return [];
  const lines = [`warnings (${warnings.length}):`];
  for (const w of warnings) {
    lines.push(`  ${w.code}  ${escapeControls(w.message)}`);
    lines.push(...w.paths.slice(0, SHOWN.paths).map((p) => `      ${displayPath(p)}`));
    if (w.paths.length > SHOWN.paths) lines.push(`      … ${w.paths.length - SHOWN.paths} more`);
  }
  return lines;
}

function mapLines(found: StageFindings): string[] {
  const modules = found.modules ?? [];
  const lines = [`build systems: ${found.buildSystems?.join(', ') || 'none found'}`];
  const languages = (found.languages ?? []).slice(0, SHOWN.languages).map((l) => `${l.language} ${Math.round(l.share * 100)}% (${l.files})`);
  lines.push(`languages: ${languages.join(', ') || 'none found'}`);
  lines.push(`modules (${modules.length}):`);
  const width = Math.min(40, Math.max(0, ...modules.slice(0, SHOWN.modules).map((m) => displayPath(m.path).length)));
  for (const m of modules.slice(0, SHOWN.modules))
    lines.push(
      `  ${displayPath(m.path).padEnd(width)}  ${m.buildSystem.padEnd(8)}  ${(m.language ?? '').padEnd(10)}  ${escapeControls(m.name ?? '')}`.trimEnd(),
    );
  if (modules.length > SHOWN.modules) lines.push(`  … ${modules.length - SHOWN.modules} more (--json lists all)`);
  return lines;
}

function targetLines(found: StageFindings): string[] {
  const targets = found.targets;
  if (!targets) return [];
  const lines = [`targets (${targets.selected.length}, ${targets.strategy}):`];
  targets.selected.slice(0, SHOWN.targets).forEach((t, i) => {
    const where = [t.classification, t.module, t.allowedToEdit ? undefined : 'read only'].filter(Boolean).join(', ');
    lines.push(`  ${i + 1}. ${displayPath(t.path)}  (${where})`);
    const reasons = t.reasons.slice(0, SHOWN.reasons).map(escapeControls);
    if (t.reasons.length > SHOWN.reasons) reasons.push(`${t.reasons.length - SHOWN.reasons} more`);
    if (reasons.length) lines.push(`       ${reasons.join('; ')}`);
  });
  if (targets.selected.length > SHOWN.targets) lines.push(`  … ${targets.selected.length - SHOWN.targets} more (--json lists all)`);
  if (targets.excluded.length)
    lines.push(
      `excluded (${targets.excluded.length}): ${targets.excluded
        .slice(0, SHOWN.paths)
        .map((e) => `${displayPath(e.path)} (${e.reason})`)
        .join(', ')}`,
    );
  return lines;
}
