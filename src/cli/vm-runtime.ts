/**
 * What the `vm` commands need once their flags are parsed, as one lazily loaded chunk: `xpk --help` never loads
 * it, and the SDKs stay in the adapters, imported on first use.
 */
export {resolveCommandSettings} from './context.js'
export {localUser, vmApiDeps, vmRunDeps, vmTiming, workerFailureJson} from './vm-context.js'
export {requireSetting} from '../core/settings.js'
export {capacityFromFlags} from '../core/vm/create-options.js'
export {renderVmList} from '../core/vm/render.js'
export {createVms} from '../services/vm-create.js'
export {deleteVms} from '../services/vm-delete.js'
export {listVms} from '../services/vm-list.js'
export {runOnVms} from '../services/vm-run.js'
