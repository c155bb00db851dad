import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // oclif writes through console.log; vitest's interception would swallow it.
    disableConsoleIntercept: true,
    setupFiles: ['test/setup.ts'],
  },
})
