import { describe, expect, it } from 'vitest';
import { TerminalReporter } from '../../../src/app/cli/terminal-reporter.js';

function reporter(enabled: boolean) {
  let text = '';
  return { r: new TerminalReporter({ write: (t) => void (text += t), enabled }), text: () => text };
}

describe('TerminalReporter', () => {
  it('prints one line per finished stage: state, name, files, elapsed seconds, summary', () => {
    const { r, text } = reporter(true);
    r.phase({ phase: 'ingestion', state: 'running' });
    r.phase({ phase: 'ingestion', state: 'done', summary: 'refs/heads/main at 0123456789ab', files: { count: 1234, of: 'snapshot' }, elapsedMs: 2345 });
    r.phase({ phase: 'mechanical_change', state: 'done', summary: 'edited', files: { count: 1, of: 'changed' }, elapsedMs: 50 });
    r.phase({ phase: 'discovery', state: 'failed', summary: 'boom' });
    expect(text().split('\n')).toEqual([
      '  ✓ ingestion                 1234 files    2.3s  refs/heads/main at 0123456789ab',
      '  ✓ mechanical_change          1 changed    0.1s  edited',
      '  ✗ discovery                               0.0s  boom',
      '',
    ]);
  });

  it('is silent when disabled (--json)', async () => {
    const { r, text } = reporter(false);
    r.start('map o/r run x attempt 1');
    r.phase({ phase: 'intake', state: 'done', summary: 'ok', files: { count: 0, of: 'changed' }, elapsedMs: 1 });
    await r.report({ runId: 'x', attempt: 1, status: 'READY', phases: [] });
    r.finish({ status: 'READY', agentBranch: 'agent/local/rx', artifacts: {} }, '/tmp/run');
    expect(text()).toBe('');
  });

  it('ends with the status, the base, the commit and the run directory', () => {
    const { r, text } = reporter(true);
    r.finish(
      {
        status: 'COMPLETED',
        baseRef: 'refs/heads/main',
        baseCommitSha: 'b'.repeat(40),
        headCommitSha: 'c'.repeat(40),
        agentBranch: 'agent/local/rx',
        artifacts: {},
      },
      '/tmp/run',
      { publishNote: 'published' },
    );
    expect(text()).toBe(
      `draftsman: COMPLETED\n  base     refs/heads/main ${'b'.repeat(40)}\n  commit   ${'c'.repeat(40)} on agent/local/rx\n  publish  published\n  run dir  /tmp/run\n`,
    );
  });
});
