/** Wires the real adapters behind `buildImage` (src/services/image-build.ts). */

import type {Console} from '../ports/console.js'
import type {ImageBuildDeps} from '../services/image-build.js'
import {FsBuildContextSource} from '../adapters/build-context.js'
import {DockerEngine, type DockerEngineOptions} from '../adapters/docker-engine.js'
import {DockerAndGoogleCredentials, type RegistryCredentialOptions} from '../adapters/registry-credentials.js'
import {RegistryHttpClient, type RegistryHttpOptions} from '../adapters/registry-http.js'

/** Overrides for {@link imageBuildDeps}; everything defaults to the local machine's own setup. */
export interface ImageBuildDepsOptions {
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
    context: new FsBuildContextSource(),
    engine: new DockerEngine(options.engine),
    registry: new RegistryHttpClient(options.registry),
    credentials: new DockerAndGoogleCredentials(options.credentials),
    console,
    now: options.now ?? Date.now,
  }
}
