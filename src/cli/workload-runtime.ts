/**
 * What `workload create` and `workload delete` need after flag parsing, as one lazily loaded chunk without the
 * cluster code (GKE adapter, planner, executor) that `runtime.ts` gathers; GKE and Kubernetes connect on first use.
 */
export {resolveCommandSettings} from './context.js'
export {workloadCreateDeps, workloadDeleteDeps, workloadTiming} from './workload-context.js'
export {createWorkload} from '../services/workload-create.js'
export {deleteWorkloads} from '../services/workload-delete.js'
