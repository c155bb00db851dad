import {defineConfig} from 'vitest/config'

/** The in-process tests: pure core, services over in-memory fakes, the executor and the CLI layer. */
const IN_PROCESS = [
  'test/core/**/*.test.ts',
  'test/services/**/*.test.ts',
  'test/executor/**/*.test.ts',
  'test/cli/**/*.test.ts',
]

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // oclif writes through console.log; vitest's interception would swallow it.
    disableConsoleIntercept: true,
    // A temporary root per run, removed at the end; the run fails if a test leaves anything in it.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        // They mock nothing and share no state, so one module graph per worker serves them all: 22 s -> 8 s.
        test: {name: 'in-process', include: IN_PROCESS, isolate: false},
      },
      {
        extends: true,
        // Subprocesses, servers, Docker, sshd, and module mocks (test/commands): each file in its own worker.
        test: {name: 'integration', include: ['test/**/*.test.ts'], exclude: IN_PROCESS},
      },
    ],
  },
})
