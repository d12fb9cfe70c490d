#!/usr/bin/env node
/**
 * `npm test`'s first stage: the type check, the lint and the format check, run side by side
 * (each is one process on one core, and none reads what another writes). Every output is shown
 * once its check ends, under the check's name; the exit code is non-zero when any check failed.
 * `npm run typecheck`, `npm run lint` and `npm run format:check` run each alone.
 */
import { spawn } from 'node:child_process';

const CHECKS = [
  { name: 'typecheck', script: 'typecheck' },
  { name: 'lint', script: 'lint' },
  { name: 'format', script: 'format:check' },
];

function run({ name, script }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', (error) => resolve({ name, code: 1, output: String(error), seconds: 0 }));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString(), seconds });
    });
  });
}

const results = await Promise.all(
  CHECKS.map((check) =>
    run(check).then((result) => {
      const status = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`;
      process.stdout.write(`\n── ${result.name}: ${status} in ${result.seconds.toFixed(1)} s\n${result.output}`);
      return result;
    }),
  ),
);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
if (failed.length > 0) {
  process.stderr.write(`\nstatic checks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
