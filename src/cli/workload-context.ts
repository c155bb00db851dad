import {imageBuildDeps} from './image-build-deps.js'
import {NodeFiles} from '../adapters/local-files.js'
import type {Console} from '../ports/console.js'
import {buildImage} from '../services/image-build.js'
import type {WorkloadCreateDeps} from '../services/workload-create.js'

/** Everything `workload create` needs; the image build's SDKs load only if an image is actually built. */
export function workloadCreateDeps(console: Console): WorkloadCreateDeps {
  return {
    console,
    files: new NodeFiles(),
    env: process.env,
    cwd: process.cwd(),
    buildImage: async (options) => buildImage(options, await imageBuildDeps(console)),
  }
}
