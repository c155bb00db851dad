// The GKE fake (test/fakes/fake-gke.ts) for benchmarks that run the CLI against it. It is TypeScript with
// constructs Node's type stripping does not take (parameter properties), so it is transpiled with esbuild to a
// temporary .mjs; its bare imports (@grpc/grpc-js, @google-cloud/container's protos) resolve through a
// node_modules link beside that file.
import {mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {build} from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Builds the fake once into a scratch directory; `cleanup()` removes it. */
export async function loadFakeGke() {
  const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-fake-gke-'))
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir')
  const outfile = join(scratch, 'fake-gke.mjs')
  await build({
    entryPoints: [join(root, 'test/fakes/fake-gke.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  })
  const {FakeGke} = await import(pathToFileURL(outfile).href)
  return {FakeGke, cleanup: () => rmSync(scratch, {recursive: true, force: true})}
}

/**
 * The CLI's environment against the fake: nothing from the user's config, gcloud or shell tuning
 * (XPK_POLL_INTERVAL_MS etc.), no metadata server (plain http to loopback sends no credentials anyway), and the
 * compile cache in `cacheHome`, shared by the runs of one benchmark as a user's runs share theirs.
 */
export function cliEnv(fake, scratch, cacheHome) {
  return {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(scratch, 'home-')),
    XDG_CONFIG_HOME: mkdtempSync(join(scratch, 'config-')),
    ...(cacheHome ? {XDG_CACHE_HOME: cacheHome} : {}),
    CLOUDSDK_CONFIG: mkdtempSync(join(scratch, 'gcloud-')),
    METADATA_SERVER_DETECTION: 'none',
    GCE_METADATA_HOST: '127.0.0.1:9',
    GCE_METADATA_IP: '127.0.0.1:9',
    NO_COLOR: '1',
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
  }
}
