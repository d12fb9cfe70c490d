import { describe, expect, it } from 'vitest';
import { annotatedPaths, ciClusters, MAX_CI_CLUSTER_FILES, MAX_CI_CLUSTERS } from '../../../src/core/pipeline/ci-clusters.js';
import { topLevelModule } from '../../../src/core/pipeline/parse-clusters.js';
import type { CiAnnotation, CiFailure, CiFailureReport } from '../../../src/core/runs/ci-failure.js';

const SHA = 'a'.repeat(40);

function annotation(path: string, line: number, level: CiAnnotation['level'] = 'failure', message = `broken at ${line}`): CiAnnotation {
  return { path, startLine: line, endLine: line, level, message };
}

function failure(name: string, annotations: CiAnnotation[]): CiFailure {
  return { kind: 'check_run', name, conclusion: 'failure', annotations };
}

function report(...failures: CiFailure[]): CiFailureReport {
  return { headSha: SHA, failures, truncated: false };
}

const allowAll = () => undefined;

describe('ciClusters', () => {
  it('groups failure and warning annotations by module, files in path order, checks named; notices are not repair work', () => {
    const r = report(
      failure('build', [annotation('svc/B.java', 3), annotation('svc/A.java', 7), annotation('api/Req.java', 1, 'warning')]),
      failure('lint', [annotation('svc/A.java', 9), annotation('docs/guide.md', 2, 'notice')]),
    );
    const { clusters, skipped } = ciClusters(r, topLevelModule, allowAll);
    expect(skipped).toEqual([]);
    expect(clusters.map((c) => [c.id, c.checks, c.files.map((f) => f.path)])).toEqual([
      ['ci:api', ['build'], ['api/Req.java']],
      ['ci:svc', ['build', 'lint'], ['svc/A.java', 'svc/B.java']],
    ]);
    expect(clusters[1].files[0].problems).toEqual([
      { line: 7, message: 'broken at 7', check: 'build' },
      { line: 9, message: 'broken at 9', check: 'lint' },
    ]);
    expect(annotatedPaths(r)).toEqual(['api/Req.java', 'svc/A.java', 'svc/B.java']);
  });

  it('leaves out paths the caller refuses, with the reason, and drops a module left empty', () => {
    const r = report(failure('build', [annotation('.github/workflows/ci.yml', 1), annotation('svc/A.java', 2), annotation('svc/gone.java', 3)]));
    const refuse = (p: string) => (p.startsWith('.github/') ? 'workflow' : p === 'svc/gone.java' ? 'not a file' : undefined);
    const { clusters, skipped } = ciClusters(r, topLevelModule, refuse);
    expect(clusters.map((c) => [c.id, c.files.map((f) => f.path)])).toEqual([['ci:svc', ['svc/A.java']]]);
    expect(skipped).toEqual([
      { path: '.github/workflows/ci.yml', why: 'workflow' },
      { path: 'svc/gone.java', why: 'not a file' },
    ]);
  });

  it('is bounded: at most MAX_CI_CLUSTERS clusters of MAX_CI_CLUSTER_FILES files, the rest listed as skipped', () => {
    const many = Array.from({ length: MAX_CI_CLUSTER_FILES + 2 }, (_, i) => annotation(`big/F${String(i).padStart(2, '0')}.java`, 1));
    const modules = Array.from({ length: MAX_CI_CLUSTERS + 1 }, (_, i) => annotation(`m${i}/X.java`, 1));
    const { clusters, skipped } = ciClusters(report(failure('build', [...many, ...modules])), topLevelModule, allowAll);
    expect(clusters).toHaveLength(MAX_CI_CLUSTERS);
    expect(clusters[0]).toMatchObject({ id: 'ci:big' });
    expect(clusters[0].files).toHaveLength(MAX_CI_CLUSTER_FILES);
    expect(skipped.map((s) => s.path)).toEqual(['big/F10.java', 'big/F11.java', `m${MAX_CI_CLUSTERS - 1}/X.java`, `m${MAX_CI_CLUSTERS}/X.java`]);
  });
});
