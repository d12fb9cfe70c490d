import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, chmod, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as codebuild from '@aws-sdk/client-codebuild';
import { checkShape, operationShapes } from '../aws-model/model-check.js';

/**
 * AWS CodeBuild on loopback: the JSON 1.1 protocol the real `@aws-sdk/client-codebuild` speaks
 * (`X-Amz-Target: CodeBuild_20161006.<Operation>`), StartBuild and BatchGetBuilds. Every request
 * and every response is checked against the SDK's own model shapes (test/helpers/aws-model/model-check.ts); a mismatch
 * is recorded in `violations` and answered 400. A build runs its buildspec's install, build and
 * post_build commands with bash in a temporary directory, with only the build's environment
 * variables (no variable of the test process), an `aws` command that copies to and from the S3
 * test server, and CODEBUILD_SRC_DIR as a NO_SOURCE build has it. As CodeBuild does, a failing
 * install command ends the build before build and post_build; a failing build command skips the
 * rest of that phase, and post_build still runs. When it ends, the "CodeBuild Build State Change"
 * event goes to `onEvent`.
 */
export interface CodeBuildStandin {
  url: string;
  /** Requests and responses that did not match the SDK's model. */
  violations: string[];
  /** Every StartBuild input, as received. */
  starts: Record<string, unknown>[];
  /** Resolves when every started build has ended and its event was delivered. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

interface StandinBuild {
  id: string;
  arn: string;
  projectName: string;
  buildStatus: string;
  startTime: number;
  endTime?: number;
  env: { name: string; value: string; type?: string }[];
  image: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';

export async function startCodeBuildStandin(options: {
  s3Endpoint: string;
  onEvent: (event: unknown) => Promise<void>;
  clock?: () => number;
}): Promise<CodeBuildStandin> {
  const now = options.clock ?? (() => Date.now());
  const builds = new Map<string, StandinBuild>();
  const byToken = new Map<string, string>();
  const running = new Set<Promise<void>>();
  const violations: string[] = [];
  const starts: Record<string, unknown>[] = [];
  let n = 0;

  const view = (b: StandinBuild) => ({
    id: b.id,
    arn: b.arn,
    buildNumber: 1,
    startTime: b.startTime / 1000,
    ...(b.endTime ? { endTime: b.endTime / 1000 } : {}),
    currentPhase: b.endTime ? 'COMPLETED' : 'BUILD',
    buildStatus: b.buildStatus,
    projectName: b.projectName,
    buildComplete: Boolean(b.endTime),
    environment: { type: 'LINUX_CONTAINER', image: b.image, computeType: 'BUILD_GENERAL1_SMALL', environmentVariables: b.env },
  });

  const operations: Record<string, (input: Record<string, unknown>) => Promise<unknown>> = {
    async StartBuild(input) {
      starts.push(input);
      const token = input.idempotencyToken as string | undefined;
      const existing = token ? byToken.get(token) : undefined;
      if (existing) return { build: view(builds.get(existing)!) };
      const id = `${String(input.projectName)}:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
      const build: StandinBuild = {
        id,
        arn: `arn:aws:codebuild:${REGION}:${ACCOUNT}:build/${id}`,
        projectName: String(input.projectName),
        buildStatus: 'IN_PROGRESS',
        startTime: now(),
        env: (input.environmentVariablesOverride as StandinBuild['env'] | undefined) ?? [],
        image: String(input.imageOverride ?? 'aws/codebuild/standard:7.0'),
      };
      builds.set(id, build);
      if (token) byToken.set(token, id);
      const run = runBuild(build, String(input.buildspecOverride ?? ''), options.s3Endpoint).then(async (status) => {
        build.buildStatus = status;
        build.endTime = now();
        await options.onEvent(stateChange(build));
      });
      running.add(run);
      void run.finally(() => running.delete(run));
      return { build: view(build) };
    },
    async BatchGetBuilds(input) {
      const ids = input.ids as string[];
      return { builds: ids.filter((id) => builds.has(id)).map((id) => view(builds.get(id)!)), buildsNotFound: ids.filter((id) => !builds.has(id)) };
    },
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const operation = target.startsWith('CodeBuild_20161006.') ? target.slice('CodeBuild_20161006.'.length) : '';
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(body));
        };
        const handler = operations[operation];
        if (
          req.method !== 'POST' ||
          !handler ||
          req.headers['content-type'] !== 'application/x-amz-json-1.1' ||
          !String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256')
        ) {
          violations.push(`unexpected request ${req.method} ${target} ${String(req.headers['content-type'])}`);
          return answer(400, { __type: 'InvalidInputException', message: 'unsupported request' });
        }
        const shapes = operationShapes(codebuild, operation);
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        const inputErrors = checkShape(shapes.input, input);
        if (inputErrors.length > 0) {
          violations.push(...inputErrors.map((e) => `${operation} request ${e}`));
          return answer(400, { __type: 'InvalidInputException', message: inputErrors.join('; ') });
        }
        const output = await handler(input);
        violations.push(...checkShape(shapes.output, output).map((e) => `${operation} response ${e}`));
        answer(200, output);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    violations,
    starts,
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async close() {
      await Promise.all([...running]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** EventBridge's "CodeBuild Build State Change", as AWS documents it. */
function stateChange(build: StandinBuild): unknown {
  return {
    version: '0',
    id: `event-${build.id}`,
    'detail-type': 'CodeBuild Build State Change',
    source: 'aws.codebuild',
    account: ACCOUNT,
    time: new Date(build.endTime ?? build.startTime).toISOString(),
    region: REGION,
    resources: [build.arn],
    detail: {
      'build-status': build.buildStatus,
      'project-name': build.projectName,
      'build-id': build.arn,
      'additional-information': { 'build-complete': true, initiator: 'verifier', 'start-time': new Date(build.startTime).toUTCString() },
      'current-phase': 'COMPLETED',
      'current-phase-context': '[]',
      version: '1',
    },
  };
}

interface Buildspec {
  version: number;
  env?: { shell?: string; variables?: Record<string, string> };
  phases?: Record<string, { commands?: string[] }>;
}

async function runBuild(build: StandinBuild, buildspecText: string, s3Endpoint: string): Promise<string> {
  const spec = JSON.parse(buildspecText) as Buildspec;
  if (spec.version !== 0.2 || spec.env?.shell !== 'bash') return 'FAULT';
  const root = await mkdtemp(join(tmpdir(), 'codebuild-standin-'));
  try {
    const bin = join(root, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'aws'), `#!/bin/sh\nexec "${process.execPath}" "${join(HERE, 'aws-shim.mjs')}" "$@"\n`);
    await chmod(join(bin, 'aws'), 0o755);
    const env: Record<string, string> = {
      PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
      HOME: join(root, 'home'),
      TMPDIR: join(root, 'tmp'),
      CODEBUILD_SRC_DIR: join(root, 'src'),
      CODEBUILD_BUILD_ID: build.id,
      AWS_ENDPOINT_URL_S3: s3Endpoint,
      AWS_REGION: REGION,
      ...(spec.env?.variables ?? {}),
      ...Object.fromEntries(build.env.map((v) => [v.name, v.value])),
    };
    await mkdir(env.TMPDIR);
    await mkdir(env.HOME);
    const phase = async (name: string) => {
      for (const command of spec.phases?.[name]?.commands ?? []) if ((await bash(command, env, root)) !== 0) return false;
      return true;
    };
    if (!(await phase('install')) || !(await phase('pre_build'))) return 'FAILED';
    const built = await phase('build');
    const posted = await phase('post_build');
    return built && posted ? 'SUCCEEDED' : 'FAILED';
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function bash(command: string, env: Record<string, string>, cwd: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', command], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (c: Buffer) => {
      if (process.env.STANDIN_DEBUG) process.stderr.write(c);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}
