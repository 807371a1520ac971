import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // one temporary folder per run, removed at its end (test/support/tmpRoot.ts)
    globalSetup: ['test/support/tmpRoot.ts'],
    // the built CLI's stats cache (src/cli/stats/cache.ts) stays off: tests that count work or kill workers must
    // read their files; the cache's own tests turn it on in a folder of their own
    env: { RUN_OUTCOME_CACHE: '0' },
  },
})
