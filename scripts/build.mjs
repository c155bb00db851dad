// Bundles the CLI into dist/ with esbuild. One bundle keeps start-up fast (oclif alone is ~160 CommonJS
// modules when loaded file by file); the cloud SDKs stay external and are only imported lazily by adapters.
import {build} from 'esbuild'
import {rm} from 'node:fs/promises'

const external = [
  '@google-cloud/*',
  '@kubernetes/client-node',
  'dockerode',
  'google-auth-library',
  'google-gax',
  '@grpc/*',
  'tar-stream',
  // oclif only reaches for these to run TypeScript sources in development; never in the bundle.
  'typescript',
  'tsx',
  'ts-node',
]

await rm(new URL('../dist', import.meta.url), {recursive: true, force: true})
await build({
  entryPoints: {xpk: 'src/index.ts'},
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  external,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import {createRequire as __xpkCreateRequire} from 'node:module'; const require = __xpkCreateRequire(import.meta.url);",
  },
})
