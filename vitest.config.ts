import { defineConfig } from 'vitest/config';

const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  setupFiles: ['test/helpers/openapi/contract-hooks.ts'],
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

/**
 * One project per tier (`vitest run --project unit`). Every tier runs its files one after another
 * in shared worker processes (`isolate: false`): importing src, the AWS SDK and the GitHub
 * stand-in once per worker instead of once per file was 100 of the run's 610 s here. Files start
 * and stop their own servers in their hooks, restore what they stub (`vi.unstubAllEnvs`), and
 * keep nothing in module state that another file reads.
 */
const tier = (name: string) => ({ test: { ...shared, name, include: [`test/${name}/**/*.test.ts`], isolate: false } });

export default defineConfig({
  test: {
    ...shared,
    // Runs once for the whole run (the projects do not inherit it).
    globalSetup: ['test/helpers/openapi/usage-report.ts'],
    // Both cores: vitest's default leaves one idle on a 2-core machine, where most files wait on
    // child processes and loopback servers rather than on the CPU.
    maxWorkers: 2,
    projects: [tier('unit'), tier('integration'), tier('e2e'), tier('reliability')],
  },
});
