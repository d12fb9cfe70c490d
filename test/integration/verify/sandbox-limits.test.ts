import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxVerifier } from '../../../src/app/local/sandbox-verifier.js';
import { commandResultOf } from '../../../src/core/pipeline/command-outcome.js';
import type { CheckoutFile, VerifyCommand, VerifyLimits } from '../../../src/core/verify/verifier.js';

/**
 * The sandbox's limits hold against commands written to break them: one that runs forever, one
 * that prints without end, one that leaves processes behind (setsid, double fork), one that
 * looks for the caller's tokens, HOME and /proc, one that writes outside its checkout or follows
 * a symlink out of it, one that reaches the network.
 */
const verifier = createSandboxVerifier();
const sandbox = await verifier.available();
if (!sandbox.ok && process.env.DRAFTSMAN_REQUIRE_SANDBOX) throw new Error(`the verification sandbox is required here: ${sandbox.why}`);

const TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
const LIMITS: VerifyLimits = { commandTimeoutMs: 20_000, budgetMs: 60_000, maxOutputBytes: 1024 * 1024, network: false };
const enc = new TextEncoder();
const FILES: CheckoutFile[] = [
  { path: 'README.md', mode: '100644', content: enc.encode('# x\n') },
  { path: 'bin/run.sh', mode: '100755', content: enc.encode('#!/bin/sh\necho ran\n') },
  { path: 'escape', mode: '120000', content: enc.encode('../../../etc/passwd') },
  { path: 'inside', mode: '120000', content: enc.encode('README.md') },
  // Through another symlink: `up` is the root itself, so `up/../..` would be two levels above it.
  { path: 'up', mode: '120000', content: enc.encode('.') },
  { path: 'through', mode: '120000', content: enc.encode('up/../../..') },
  // A symlink as a directory of another: `dir` is made a real directory, so `dir/x` cannot land in the root's parent.
  { path: 'dir', mode: '120000', content: enc.encode('.') },
  { path: 'dir/x', mode: '120000', content: enc.encode('../../etc') },
  { path: 'dir/y', mode: '120000', content: enc.encode('../README.md') },
];

let tmp: string;
async function run(commandLines: string[], limits: Partial<VerifyLimits> = {}, options: { kind?: VerifyCommand['kind']; files?: CheckoutFile[] } = {}) {
  const commands: VerifyCommand[] = commandLines.map((run) => ({ run, cwd: '.', kind: options.kind ?? 'build', source: 'test' }));
  const files = async function* () {
    yield* options.files ?? FILES;
  };
  const local = createSandboxVerifier({ tmpDir: tmp });
  return local.run({ files, commands, limits: { ...LIMITS, ...limits } });
}

describe.skipIf(!sandbox.ok)('the verification sandbox', () => {
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'sandbox-limits-'));
    process.env.GITHUB_TOKEN = TOKEN;
  });
  afterAll(() => {
    delete process.env.GITHUB_TOKEN;
    rmSync(tmp, { recursive: true, force: true });
  });

  it('stops a command that runs forever at its wall time, and the next one when the budget is spent', async () => {
    const started = Date.now();
    const result = await run(['while :; do :; done', 'echo never'], { commandTimeoutMs: 1500, budgetMs: 1500 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.outcomes[0]).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.outcomes[1]).toMatchObject({ skipped: 'the verification budget (agent.verify.budgetSeconds) was spent' });
    const shown = commandResultOf(result.outcomes[0], result.checkoutRoot, { commandTimeoutMs: 1500, maxOutputBytes: LIMITS.maxOutputBytes });
    expect(shown).toMatchObject({ status: 'TIMED_OUT', why: 'stopped after 2 s (agent.verify.timeoutSeconds)' });
  }, 30_000);

  it('stops a command that prints without end past the output limit, keeping a bounded excerpt', async () => {
    const result = await run(['yes draftsman'], { maxOutputBytes: 1024 * 1024 });
    const [outcome] = result.outcomes;
    expect(outcome).toMatchObject({ outputLimited: true, exitCode: null });
    expect(outcome.outputBytes).toBeGreaterThan(1024 * 1024);
    expect(outcome.output.length).toBeLessThan(70 * 1024);
    expect(outcome.output).toContain('bytes of output omitted');
  }, 30_000);

  it('leaves no process behind: setsid and double forks end with the sandbox', async () => {
    const marker = `sleep 3${process.pid % 1000}7`;
    const result = await run([`setsid ${marker} >/dev/null 2>&1 & ( ${marker} >/dev/null 2>&1 & ) ; echo started`]);
    expect(result.outcomes[0]).toMatchObject({ exitCode: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() === marker);
    expect(left).toEqual([]);
  }, 30_000);

  it("finds none of the caller's tokens, nor its HOME, nor its processes", async () => {
    const result = await run([
      'cat /proc/1/environ | tr "\\0" "\\n"; env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; echo "HOME=$HOME"',
      `ls /root; ls /home; ls /proc/${process.pid}`,
    ]);
    const [environment, home] = result.outcomes;
    expect(environment.exitCode).toBe(0);
    expect(environment.output).not.toContain(TOKEN);
    expect(environment.output).not.toContain('GITHUB_TOKEN');
    expect(environment.output).toContain('HOME=/sandbox/home');
    expect(home.exitCode).not.toBe(0);
    expect(home.output).toContain("cannot access '/root'");
    expect(home.output).toContain(`cannot access '/proc/${process.pid}'`);
  }, 30_000);

  it('cannot write outside its checkout, a symlink out of the tree never comes back, and the checkout is deleted afterwards', async () => {
    const result = await run([
      'touch /usr/draftsman-was-here; echo $?',
      'test -e escape; echo "escape $?"; test -e through; echo "through $?"; test -e dir/x; echo "dir/x $?"; test -d dir -a ! -L dir; echo "dir real $?"; cat dir/y; cat inside; ./bin/run.sh; echo changed > README.md',
    ]);
    expect(result.outcomes[0].output).toMatch(/Read-only file system[\s\S]*\n1\n?$/);
    expect(result.outcomes[1].output).toContain('escape 1');
    expect(result.outcomes[1].output).toContain('through 1');
    expect(result.outcomes[1].output).toContain('dir/x 1');
    expect(result.outcomes[1].output).toContain('dir real 0');
    expect(result.outcomes[1].output).toContain('# x');
    expect(result.outcomes[1].output).toContain('ran');
    expect(readdirSync(tmp)).toEqual([]);
  }, 30_000);

  it('reads the JUnit reports a test command wrote, never one the repository held already nor a symlink out of the checkout', async () => {
    const old = '<testsuite><testcase classname="old.Committed" name="stale"><failure message="committed long ago"/></testcase></testsuite>';
    const files = [...FILES, { path: 'target/surefire-reports/TEST-old.xml', mode: '100644', content: enc.encode(old) }];
    const report =
      '<testsuite><testcase classname="org.acme.CartTest" name="adds" file="src/test/java/org/acme/CartTest.java" line="9"><failure message="expected 2"/></testcase></testsuite>';
    const result = await run(
      [
        `mkdir -p target/surefire-reports && printf '%s' '${report}' > target/surefire-reports/TEST-new.xml && ln -s /etc/passwd junit.xml; echo 'make: *** [test] Error 1'; exit 1`,
      ],
      {},
      { kind: 'test', files },
    );
    const [outcome] = result.outcomes;
    expect(outcome.reports?.map((r) => r.path)).toEqual(['target/surefire-reports/TEST-new.xml']);
    expect(commandResultOf(outcome, result.checkoutRoot, LIMITS).failures).toEqual([
      { test: 'org.acme.CartTest.adds', file: 'src/test/java/org/acme/CartTest.java', line: 9, message: 'expected 2' },
    ]);
  }, 30_000);

  it('holds a command to its memory limit when the policy sets one', async () => {
    // An address-space limit: Python starts well under it, then cannot take 768 MiB.
    const grab = `python3 -c "b = bytearray(768 * 1024 * 1024); print('allocated', len(b))"`;
    const limited = await run([grab], { memoryMb: 512 });
    expect(limited.outcomes[0].exitCode).not.toBe(0);
    expect(limited.outcomes[0].output).toContain('MemoryError');
    const free = await run([grab]);
    expect(free.outcomes[0]).toMatchObject({ exitCode: 0 });
    expect(free.outcomes[0].output).toContain('allocated 805306368');
  }, 30_000);

  it('scrubs secret-looking output in the excerpt', async () => {
    const result = await run([`echo "token: ${TOKEN}"`]);
    expect(result.outcomes[0].output).toContain(TOKEN);
    const shown = commandResultOf(result.outcomes[0], result.checkoutRoot, LIMITS);
    expect(shown.excerpt).not.toContain(TOKEN);
    expect(shown.excerpt).toContain('token: ghs_');
  }, 30_000);

  describe('network', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => res.end('reached'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    const fetchLine = () =>
      `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.log('unreachable'); process.exit(3); })"`;

    it('is off unless the policy allows it', async () => {
      const off = await run([fetchLine()]);
      expect(off.outcomes[0]).toMatchObject({ exitCode: 3 });
      expect(off.outcomes[0].output).toContain('unreachable');
      const on = await run([fetchLine()], { network: true });
      expect(on.outcomes[0]).toMatchObject({ exitCode: 0 });
      expect(on.outcomes[0].output).toContain('reached');
    }, 30_000);
  });
});
