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
  {
    // SDKs stay behind ports: only src/adapters may import them.
    files: ['src/**/*.ts'],
    ignores: ['src/adapters/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {patterns: [{group: sdkPackages, message: 'SDK imports belong in src/adapters/ behind a port.'}]},
      ],
    },
  },
  {
    // The pure core does no I/O at all.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {group: sdkPackages, message: 'src/core is pure: no SDKs.'},
            {
              group: ['node:fs', 'node:fs/*', 'node:child_process', 'node:net', 'node:http', 'node:https'],
              message: 'src/core is pure: no I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs', 'bench/**/*.mjs', 'bench/**/*.js', 'eslint.config.js'],
    languageOptions: {globals: {process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly'}},
  },
)
