import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  setupFiles: ['test/helpers/openapi/contract-hooks.ts'],
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

/**
 * Two projects: `unit` (`vitest run --project unit`, the edit loop) and `scenarios` (the
 * integration, e2e and reliability folders, which start real servers). Vitest runs a
 * non-isolated project's files in its own workers, one project after another; as one project
 * the three scenario folders share their workers and the run does not wait at each folder's
 * slowest file (35 of 460 s here). Every project runs its files one after another
 * in shared worker processes (`isolate: false`): importing src, the AWS SDK and the GitHub
 * stand-in once per worker instead of once per file was 100 of the run's 610 s here. Files start
 * and stop their own servers in their hooks, restore what they stub (`vi.unstubAllEnvs`), and
 * keep nothing in module state that another file reads.
 */
const tier = (name: string, folders = [name]) => ({
  test: { ...shared, name, include: folders.map((folder) => `test/${folder}/**/*.test.ts`), isolate: false },
});

export default defineConfig({
  test: {
    ...shared,
    // Runs once for the whole run (the projects do not inherit it).
    globalSetup: ['test/helpers/openapi/usage-report.ts'],
    // More workers than cores: vitest's default leaves one of two cores idle, and most scenario
    // files wait on child processes and loopback servers rather than on the CPU (a worker was idle
    // 45% of a profiled e2e file). On 2 cores the whole run took 267 s with 2 workers, 229 s with 3.
    maxWorkers: 3,
    // The slowest files first, with or without vitest's duration cache (test/helpers/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [tier('unit'), tier('scenarios', ['integration', 'e2e', 'reliability'])],
  },
});
