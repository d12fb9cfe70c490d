import type { PathRules } from '../paths/path-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { binaryStringToBytes } from './binary-string.js';
import { hashBlobBytes, readHead } from './git-objects.js';
import { fileChangeRisk } from '../risk/change-risk.js';
import type { RiskLevel } from '../risk/risk-score.js';
import { commitSide, indexSide, workspaceSide, type SideFile, type TreeSide } from './tree-side.js';
import { diffSides, formatNumstat, type FilePatch, type PatchKind } from './unified-patch.js';
import type { VirtualIndex } from './virtual-index.js';

export interface DiffLimits {
  maxFiles: number;
  maxPatchBytesForModel: number;
  maxPatchBytesAsArtifact: number;
}

/** Default options. */
export const DEFAULT_DIFF_LIMITS: DiffLimits = { maxFiles: 100, maxPatchBytesForModel: 120_000, maxPatchBytesAsArtifact: 10_000_000 };

export interface DiffSummaryFile {
  path: string;
  kind: PatchKind;
  insertions: number;
  deletions: number;
  risk: RiskLevel;
  reason: string;
  generated: boolean;
  binary: boolean;
}

export interface DiffSummary {
  baseCommitSha: string;
  headSha: string;
  filesChanged: number;
  insertions: number;
  deletions: number;
  files: DiffSummaryFile[];
  warnings: string[];
}

export interface DiffResult {
  /** The full patch: the artifact (cut at maxPatchBytesAsArtifact, with a warning, if larger). */
  patch: Uint8Array;
  /** What a model may see: no binary or generated files, cut at maxPatchBytesForModel, and it says so. */
  modelPatch: string;
  modelTruncated: boolean;
  numstat: string;
  summary: DiffSummary;
  files: FilePatch[];
}

export interface DiffOptions {
  limits?: Partial<DiffLimits>;
  paths?: string[];
  /** The run's path rules (the policy's): which files are generated, and each file's risk. */
  rules: PathRules;
}

const decoder = new TextDecoder();

/**
 * Turn file patches into the artifact, the model view, numstat and the summary. The model
 * view never holds binary or generated files and ends with an explicit truncation notice
 * when anything was left out.
 */
export function summarizeDiff(files: FilePatch[], baseCommitSha: string, headSha: string, options: DiffOptions): DiffResult {
  const limits = { ...DEFAULT_DIFF_LIMITS, ...options.limits };
  const { rules } = options;
  const warnings: string[] = [];
  let full = files.map((f) => f.text).join('');
  if (full.length > limits.maxPatchBytesAsArtifact) {
    full = full.slice(0, limits.maxPatchBytesAsArtifact);
    warnings.push(`patch artifact truncated at ${limits.maxPatchBytesAsArtifact} bytes`);
  }
  if (files.length > limits.maxFiles) warnings.push(`${files.length} files changed, more than maxFiles ${limits.maxFiles}: narrow the scope`);

  let model = '';
  const omitted: string[] = [];
  let truncated = false;
  files.forEach((f, i) => {
    const generated = rules.isGenerated(f.path);
    if (f.binary || generated) {
      omitted.push(f.path);
      warnings.push(`Diff omitted for ${f.binary ? 'binary' : 'generated'} file ${f.path}`);
      return;
    }
    if (truncated || i >= limits.maxFiles) {
      truncated = true;
      omitted.push(f.path);
      return;
    }
    const text = decoder.decode(binaryStringToBytes(f.text));
    if (model.length + text.length > limits.maxPatchBytesForModel) {
      truncated = true;
      omitted.push(f.path);
      return;
    }
    model += text;
  });
  if (truncated) warnings.push(`patch for the model truncated at ${limits.maxPatchBytesForModel} bytes; the full patch is an artifact`);
  if (omitted.length > 0)
    model += `\n[draftsman: this patch is incomplete; ${omitted.length} file(s) not shown: ${omitted.join(', ')}. The full patch is stored as an artifact.]\n`;

  const summaryFiles: DiffSummaryFile[] = files.map((f) => {
    const r = fileChangeRisk({ path: f.path, kind: f.kind }, rules);
    return {
      path: f.path,
      kind: f.kind,
      insertions: f.insertions,
      deletions: f.deletions,
      risk: r.level,
      reason: r.reasons.join(', '),
      generated: rules.isGenerated(f.path),
      binary: f.binary,
    };
  });
  return {
    patch: binaryStringToBytes(full),
    modelPatch: model,
    modelTruncated: omitted.length > 0,
    numstat: formatNumstat(files),
    files,
    summary: {
      baseCommitSha,
      headSha,
      filesChanged: files.length,
      insertions: files.reduce((n, f) => n + f.insertions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      files: summaryFiles,
      warnings,
    },
  };
}

async function headSideOf(workspace: Workspace): Promise<{ sha: string; side: TreeSide }> {
  const head = await readHead(workspace.fs, workspace.gitdir, workspace.baseCommitSha);
  const sha = head.sha ?? workspace.baseCommitSha;
  return { sha, side: await commitSide(workspace.fs, workspace.gitdir, sha) };
}

/** `git diff`: workspace view vs the virtual index (unstaged changes to tracked files). */
export async function diffUnstaged(workspace: Workspace, index: VirtualIndex, options: DiffOptions): Promise<DiffResult> {
  const { sha } = await headSideOf(workspace);
  const work = await workspaceSide(workspace);
  // Untracked files are not part of `git diff`.
  for (const path of [...work.files.keys()]) if (!index.has(path)) work.files.delete(path);
  const files = await diffSides(indexSide(workspace.fs, workspace.gitdir, index), work, options);
  return summarizeDiff(files, workspace.baseCommitSha, sha, options);
}

/** `git diff --cached`: virtual index vs HEAD (what a commit would contain). */
export async function diffStaged(workspace: Workspace, index: VirtualIndex, options: DiffOptions): Promise<DiffResult> {
  const { sha, side } = await headSideOf(workspace);
  const files = await diffSides(side, indexSide(workspace.fs, workspace.gitdir, index), options);
  return summarizeDiff(files, workspace.baseCommitSha, sha, options);
}

/** `git diff <base>...HEAD`: the committed change of the run (the base is HEAD's merge base by construction). */
export async function diffBaseToHead(workspace: Workspace, options: DiffOptions): Promise<DiffResult> {
  const { sha, side } = await headSideOf(workspace);
  const base = await commitSide(workspace.fs, workspace.gitdir, workspace.baseCommitSha);
  return summarizeDiff(await diffSides(base, side, options), workspace.baseCommitSha, sha, options);
}

/**
 * The same diff as `diffWorkspaceToBase`, reading only the paths the overlay changed: the
 * base tree is not walked, so the cost follows the size of the change, not of the repository.
 */
export async function diffWorkspaceChanges(workspace: Workspace, options: DiffOptions): Promise<DiffResult> {
  const changed = workspace.changes().map((c) => c.path);
  const base = new Map<string, SideFile>();
  const view = new Map<string, SideFile>();
  for (const path of changed) {
    const b = workspace.baseEntry(path);
    if (b) base.set(path, { mode: b.mode, oid: b.oid });
    const e = workspace.entry(path);
    if (e) view.set(path, { mode: e.mode, oid: e.oid && !e.changed ? e.oid : await hashBlobBytes(await workspace.read(path)) });
  }
  const from: TreeSide = { files: base, read: (path) => workspace.readBase(path) };
  const to: TreeSide = { files: view, read: (path) => workspace.read(path) };
  return summarizeDiff(await diffSides(from, to, { paths: options.paths }), workspace.baseCommitSha, workspace.baseCommitSha, options);
}

/** Workspace view vs the base commit: everything the run changed, committed or not. */
export async function diffWorkspaceToBase(workspace: Workspace, options: DiffOptions): Promise<DiffResult> {
  const base = await commitSide(workspace.fs, workspace.gitdir, workspace.baseCommitSha);
  return summarizeDiff(await diffSides(base, await workspaceSide(workspace), options), workspace.baseCommitSha, workspace.baseCommitSha, options);
}
