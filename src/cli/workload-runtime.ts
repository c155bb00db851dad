/**
 * What `workload create` needs after flag parsing, as one lazily loaded chunk without the cluster code (GKE
 * adapter, planner, executor) that `runtime.ts` gathers.
 */
export {resolveCommandSettings} from './context.js'
export {workloadCreateDeps} from './workload-context.js'
export {createWorkload} from '../services/workload-create.js'
