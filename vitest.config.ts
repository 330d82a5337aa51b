import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql: without this, Vite hands our sources the ESM build (index.mjs) while
  // graphql-yoga, loaded by Node, gets the CommonJS one, so `instanceof GraphQLError` fails and
  // every typed error is masked as INTERNAL_SERVER_ERROR.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: 'test/artifacts/vitest-report.json' }]],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real servers on port 0; two workers suit the 2-core CI machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
