import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real servers on port 0; two workers suit the 2-core CI machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
