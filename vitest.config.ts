import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default on 2 cores is one fork; most suites wait on sockets, timers and child
    // processes rather than compute, so two forks take the run from about 6.5 to under 4 minutes.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
