/**
 * Everything a command needs once its flags are parsed, gathered in one module: commands import it lazily, so
 * `xpk --help` never loads it, and the bundle loads it as a single chunk instead of a dozen small ones (each
 * module load costs start-up time). SDKs are not here: adapters import them on first use.
 */
export {
  applyTuning,
  clusterCreateDeps,
  configDeps,
  gkeConnector,
  realTime,
  resolveCommandSettings,
  workloadCreateDeps,
} from './context.js'
export {describeAccelerator, listAccelerators} from '../services/accelerators.js'
export {createCluster} from '../services/cluster-create.js'
export {deleteCluster} from '../services/cluster-delete.js'
export {describeCluster, listClusters} from '../services/cluster-read.js'
export {getConfig, listConfig, setConfig, unsetConfig} from '../services/config.js'
export {createWorkload} from '../services/workload-create.js'
export {renderAcceleratorDetails, renderAcceleratorTable} from '../core/render/accelerators.js'
export {renderClusterDetails, renderClusterList} from '../core/render/clusters.js'
export {renderConfigList} from '../core/render/config.js'
export {requireSetting} from '../core/settings.js'
