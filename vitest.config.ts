import {availableParallelism} from 'node:os'

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
    // One file more than there are cores (vitest's default is one fewer): the end-to-end files spend much of their
    // time waiting on the processes and servers they start (timeouts, locks, polls), so a file more keeps the cores
    // busy. On 2 cores the whole run took 243 s with 1 worker, 133 s with 2, 107 s with 3; with 4 it was no faster
    // (102 s) and a loaded machine's races showed (README, Development: test speed).
    maxWorkers: availableParallelism() + 1,
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
