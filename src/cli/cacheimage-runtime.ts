/**
 * What `cluster cacheimage` needs once its flags are parsed, as one lazily loaded chunk: `xpk --help` never loads
 * it, and the Kubernetes client stays in its adapter, imported on first use.
 */
export {cacheImageDeps, cacheImageTuning} from './cacheimage-context.js'
export {resolveCommandSettings} from './context.js'
export {cacheImage} from '../services/cluster-cacheimage.js'
