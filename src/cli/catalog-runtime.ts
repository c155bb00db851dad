/**
 * What the `accelerator` commands need after flag parsing: the catalog and its rendering only, so listing types
 * does not load the cluster and workload code that `runtime.ts` gathers.
 */
export {describeAccelerator, listAccelerators} from '../services/accelerators.js'
export {renderAcceleratorDetails, renderAcceleratorTable} from '../core/render/accelerators.js'
export {versionReport} from '../services/version.js'
