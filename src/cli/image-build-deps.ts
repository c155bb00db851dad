/** Wires the real adapters behind `buildImage` (src/services/image-build.ts). */

import {homedir} from 'node:os'
import {join} from 'node:path'

import {xdgDirectory} from '../core/environment.js'
import type {Console} from '../ports/console.js'
import type {ImageBuildDeps} from '../services/image-build.js'
import {FsBuildContextSource, type FsBuildContextOptions} from '../adapters/build-context.js'
import {DockerEngine, type DockerEngineOptions} from '../adapters/docker-engine.js'
import {DockerAndGoogleCredentials, type RegistryCredentialOptions} from '../adapters/registry-credentials.js'
import {RegistryHttpClient, type RegistryHttpOptions} from '../adapters/registry-http.js'

/** Overrides for {@link imageBuildDeps}; everything defaults to the local machine's own setup. */
export interface ImageBuildDepsOptions {
  /** @default file digests remembered in $XDG_CACHE_HOME/xpk/digests (~/.cache/xpk/digests) */
  readonly context?: FsBuildContextOptions
  readonly engine?: DockerEngineOptions
  readonly registry?: RegistryHttpOptions
  readonly credentials?: RegistryCredentialOptions
  /** @default Date.now */
  readonly now?: () => number
}

/**
 * The real dependencies of `buildImage`: the local file system, the Docker engine (DOCKER_HOST or the local
 * socket), the Registry HTTP API, and credentials from ADC or the Docker config. No SDK is loaded until it is used.
 */
export async function imageBuildDeps(console: Console, options: ImageBuildDepsOptions = {}): Promise<ImageBuildDeps> {
  return {
    context: new FsBuildContextSource(options.context ?? {digestCacheDir: defaultDigestCacheDir()}),
    engine: new DockerEngine(options.engine),
    registry: new RegistryHttpClient(options.registry),
    credentials: new DockerAndGoogleCredentials(options.credentials),
    console,
    now: options.now ?? Date.now,
  }
}

/** `$XDG_CACHE_HOME/xpk/digests`; XDG says a relative XDG_CACHE_HOME is to be ignored (as bin/run.js does). */
function defaultDigestCacheDir(): string {
  const cacheHome = xdgDirectory(process.env, 'XDG_CACHE_HOME', homedir())
  return join(cacheHome, 'xpk', 'digests')
}
