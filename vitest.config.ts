import { defineConfig } from 'vitest/config';

const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  setupFiles: ['test/helpers/openapi/contract-hooks.ts'],
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

/**
 * One project per tier (`vitest run --project unit`). The unit tier runs its files one after
 * another in shared worker processes (`isolate: false`): its files start no servers and restore
 * what they stub, and importing src once per worker instead of once per file is most of the
 * tier's time. The other tiers keep a fresh process per file.
 */
const tier = (name: string, isolate = true) => ({ test: { ...shared, name, include: [`test/${name}/**/*.test.ts`], isolate } });

export default defineConfig({
  test: {
    ...shared,
    // Runs once for the whole run (the projects do not inherit it).
    globalSetup: ['test/helpers/openapi/usage-report.ts'],
    // Both cores: vitest's default leaves one idle on a 2-core machine, where most files wait on
    // child processes and loopback servers rather than on the CPU.
    maxWorkers: 2,
    projects: [tier('unit', false), tier('integration'), tier('e2e'), tier('reliability')],
  },
});
