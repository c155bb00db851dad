import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const sdkPackages = [
  '@google-cloud/*',
  '@kubernetes/client-node',
  'dockerode',
  'google-auth-library',
  'google-gax',
  '@grpc/*',
  'tar-stream',
]

const SDK = {group: sdkPackages, message: 'SDK imports belong in src/adapters/ behind a port.'}
const NO_IO = {
  group: ['node:fs', 'node:fs/*', 'node:child_process', 'node:net', 'node:http', 'node:https'],
  message: 'src/core is pure: no I/O.',
}
const ALL = ['commands', 'cli', 'services', 'executor', 'adapters', 'ports', 'core', 'templates']
/** What each layer may import from src/ (besides itself). */
const ALLOWED = {
  commands: ['cli'],
  cli: ['services', 'executor', 'adapters', 'ports', 'core', 'templates'],
  services: ['executor', 'ports', 'core', 'templates'],
  executor: ['ports', 'core'],
  adapters: ['ports', 'core', 'templates'],
  ports: ['core'],
  core: ['templates'],
  templates: [],
}

function layers() {
  return Object.entries(ALLOWED).map(([layer, allowed]) => {
    const forbidden = ALL.filter((other) => other !== layer && !allowed.includes(other))
    const patterns = forbidden.map((other) => ({
      // Relative imports only: `@oclif/core/flags` is not src/core.
      regex: `^(\\.\\./)+${other}/`,
      message: `src/${layer} may import only ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'nothing else in src'}; not src/${other}.`,
    }))
    if (layer !== 'adapters') patterns.push(SDK)
    if (layer === 'core') patterns.push(NO_IO)
    return {files: [`src/${layer}/**/*.ts`], rules: {'no-restricted-imports': ['error', {patterns}]}}
  })
}

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The layers (README, Development): commands -> cli -> services -> executor -> core/ports; adapters -> ports/core.
  // Each layer may import only those below it; SDKs only in src/adapters; src/core does no I/O.
  ...layers(),
  // The Google client libraries are dev dependencies (their message types, the fakes' protos): src may import their
  // types only, which the bundle drops, never a value, which would need the package at run time.
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@google-cloud/*', 'google-gax', 'google-gax/*'],
              allowTypeImports: true,
              message: 'A dev dependency: import its types only (`import type`); the adapters speak REST themselves.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs', 'bench/**/*.mjs', 'bench/**/*.js', 'eslint.config.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
)
