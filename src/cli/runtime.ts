/**
 * What the cluster and config commands need once their flags are parsed, gathered in one module: commands import
 * it lazily, so `xpk --help` never loads it, and the bundle loads it as one chunk instead of a dozen small ones
 * (each module load costs start-up time). `accelerator` and `workload` commands have their own, smaller ones
 * (catalog-runtime.ts, workload-runtime.ts). SDKs are not here: adapters import them on first use.
 */
export {
  applyTuning,
  clusterCreateDeps,
  clusterDeleteDeps,
  clusterDescribeDeps,
  clusterLockTuning,
  clusterReadDeps,
  describeTarget,
  inClusterTuning,
} from './cluster-context.js'
export {configDeps, realTime, resolveCommandSettings} from './context.js'
export {createCluster} from '../services/cluster-create.js'
export {deleteCluster} from '../services/cluster-delete.js'
export {describeCluster, listClusters} from '../services/cluster-read.js'
export {getConfig, listConfig, setConfig, unsetConfig} from '../services/config.js'
export {renderClusterDetails, renderClusterList} from '../core/render/clusters.js'
export {renderConfigList} from '../core/render/config.js'
export {requireSetting} from '../core/settings.js'
