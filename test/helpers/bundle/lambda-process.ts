import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InvokeOutcome } from './aws-standins.js';

const RUNNER = fileURLToPath(new URL('./lambda-runner.mjs', import.meta.url));

/** One warm execution environment of a packaged function: a fresh `node` process that imported the bundle. */
export interface LambdaProcess {
  name: string;
  /** Everything the function wrote to stdout and stderr (CloudWatch's view), line by line. */
  logs: string[];
  invoke(event: unknown): Promise<InvokeOutcome>;
  stop(): Promise<void>;
}

export class LambdaInitError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
    readonly logs: string[],
  ) {
    super(`${functionName} failed at cold start: ${errorType}: ${message}\n${logs.slice(-20).join('\n')}`);
    this.name = 'LambdaInitError';
  }
}

export interface StartLambdaProcessOptions {
  /** The deployed function name (AWS_LAMBDA_FUNCTION_NAME). */
  name: string;
  taskRoot: string;
  /** serverless.yml's handler, `src/handlers/webhook.handler`. */
  handler: string;
  /** The function's environment; nothing of the test process's environment is inherited but PATH. */
  environment: Record<string, string>;
  memorySize?: number;
  timeoutSeconds?: number;
  /** Waits of 0.2 to 5 s run this many times faster (see lambda-runner.mjs); default 1. */
  timeScale?: number;
}

/**
 * Starts the runner in a fresh Node process with the task root as its working directory and
 * the variables the Lambda runtime sets, and resolves once the cold start is over (or rejects
 * with the init error, as a function whose module scope throws never becomes ready).
 */
export async function startLambdaProcess(options: StartLambdaProcessOptions): Promise<LambdaProcess> {
  const logs: string[] = [];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    LAMBDA_TASK_ROOT: options.taskRoot,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: options.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memorySize ?? 1024),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.name}`,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...options.environment,
  };
  const child: ChildProcess = fork(RUNNER, [options.taskRoot, options.handler, String(options.timeScale ?? 1)], {
    cwd: options.taskRoot,
    env,
    execArgv: [],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const collect = (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let nextId = 0;
  const pending = new Map<number, (outcome: InvokeOutcome) => void>();
  let exited: string | undefined;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type: string; id?: number; ok?: boolean; result?: unknown; errorType?: string; errorMessage?: string }) => {
      if (message.type === 'ready') resolve();
      else if (message.type === 'init-error') reject(new LambdaInitError(options.name, message.errorType ?? 'Error', message.errorMessage ?? '', logs));
      else if (message.type === 'result' && message.id !== undefined) {
        const settle = pending.get(message.id);
        pending.delete(message.id);
        settle?.(
          message.ok ? { ok: true, result: message.result } : { ok: false, errorType: message.errorType ?? 'Error', errorMessage: message.errorMessage ?? '' },
        );
      }
    });
    child.on('exit', (code, signal) => {
      exited = `exited with ${signal ?? code}`;
      reject(new LambdaInitError(options.name, 'Runtime.ExitError', exited, logs));
      for (const settle of pending.values()) settle({ ok: false, errorType: 'Runtime.ExitError', errorMessage: exited });
      pending.clear();
    });
  });

  const timeoutMs = (options.timeoutSeconds ?? 30) * 1000;
  return {
    name: options.name,
    logs,
    invoke(event) {
      if (exited) return Promise.resolve({ ok: false, errorType: 'Runtime.ExitError', errorMessage: exited });
      const id = ++nextId;
      return new Promise<InvokeOutcome>((resolve) => {
        pending.set(id, resolve);
        child.send({ id, event, requestId: `${options.name}-request-${id}`, deadlineMs: Date.now() + timeoutMs });
      });
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
