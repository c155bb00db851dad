import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // oclif writes through console.log; vitest's interception would swallow it.
    disableConsoleIntercept: true,
    // A temporary root per run, removed at the end; the run fails if a test leaves anything in it.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
  },
})
