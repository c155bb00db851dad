import * as Flags from '@oclif/core/flags'

import {WORKLOAD_DEFAULTS} from '../core/workload/defaults.js'
import {DEFAULT_GONE_TIMEOUT_MS} from '../core/workload/jobsets.js'
import {DEFAULT_PRIORITY, PRIORITY_NAMES} from '../core/workload/priority.js'
import {STATUS_FILTERS} from '../core/workload/status.js'
import {choiceFlag, integerFlag, pathFlag, valueShape} from './flag-kinds.js'
import {kubeAccessFlags} from './flags.js'

/** The flags of `xpk workload create`, grouped as in `--help`. Defaults are applied (and documented) in src/core. */
export const workloadCreateFlags = {
  workload: Flags.string({description: 'Workload name: lowercase letters, digits and hyphens, at most 40 characters.'}),
  command: Flags.string({
    ...valueShape('text'),
    description: 'Command run in every container, e.g. "python3 train.py --steps=100".',
  }),
  'num-slices': integerFlag('workload:num-slices', {
    description: 'TPU/CPU: number of slices (JobSet replicas).',
    default: WORKLOAD_DEFAULTS.numSlices,
  }),
  'num-nodes': integerFlag('workload:num-nodes', {
    description: 'GPU only: number of VMs.',
    default: WORKLOAD_DEFAULTS.numNodes,
  }),
  priority: choiceFlag(PRIORITY_NAMES, {
    description: 'Kueue scheduling priority; higher priorities preempt lower ones.',
    default: DEFAULT_PRIORITY,
  }),
  'max-restarts': integerFlag('workload:max-restarts', {
    description: 'Times the whole JobSet may restart after a failure.',
    default: WORKLOAD_DEFAULTS.maxRestarts,
  }),
  'restart-on-exit-codes': Flags.string({
    ...valueShape('list'),
    description: 'Extra exit codes that restart instead of failing, e.g. "3,5-7" (42 and 127-255 always do).',
  }),
  'ttl-seconds-after-finished': integerFlag('workload:ttl-seconds-after-finished', {
    description: 'Delete the JobSet this long after it finishes.',
    default: WORKLOAD_DEFAULTS.ttlSecondsAfterFinished,
  }),
  'termination-grace-period-seconds': integerFlag('workload:termination-grace-period-seconds', {
    description: 'Seconds between SIGTERM and SIGKILL.',
    default: WORKLOAD_DEFAULTS.terminationGracePeriodSeconds,
  }),
  env: Flags.string({
    ...valueShape('text'),
    description: 'Environment variable KEY=VALUE for the containers; repeat for more.',
    multiple: true,
    exclusive: ['env-file'],
    helpGroup: 'ENVIRONMENT',
  }),
  'env-file': pathFlag('file', {
    description: 'File of KEY=VALUE lines (# comments; a bare KEY copies your local value).',
    exclusive: ['env'],
    helpGroup: 'ENVIRONMENT',
  }),
  'debug-dump-gcs': Flags.string({description: 'Upload XLA dumps to this gs:// path when the command ends.'}),
  'enable-debug-logs': Flags.boolean({description: 'Turn on verbose TPU runtime logging.'}),
  scheduler: Flags.string({description: 'Kubernetes scheduler; GPU: default-scheduler or gke.io/topology-aware-auto.'}),
  'use-parallel-containers': Flags.boolean({
    description: "tpu7/tpu7x: split each VM's chips across parallel containers. [default: true]",
    allowNo: true,
  }),
  'docker-image': Flags.string({
    description: 'Run this image as it is (no build).',
    exclusive: ['base-docker-image', 'script-dir'],
    helpGroup: 'IMAGE',
  }),
  'base-docker-image': Flags.string({
    description: `Base image to layer --script-dir onto. [default: ${WORKLOAD_DEFAULTS.baseDockerImage}]`,
    helpGroup: 'IMAGE',
  }),
  'script-dir': pathFlag('directory', {
    description:
      'Directory copied to /app in the image (honours .dockerignore). Asks first when it holds node_modules or .git, or more than XPK_SCRIPT_DIR_MAX_MB (default 100, 0: no limit) MB; --force packs it without asking. [default: current directory]',
    helpGroup: 'IMAGE',
  }),
  'docker-name': Flags.string({
    description: `Name of the image and of its container. [default: ${WORKLOAD_DEFAULTS.dockerName}]`,
    helpGroup: 'IMAGE',
  }),
  registry: Flags.string({
    description:
      'Where to push built images, e.g. us-docker.pkg.dev/PROJECT/REPO. [default: gcr.io/PROJECT] [env: XPK_REGISTRY]',
    helpGroup: 'IMAGE',
  }),
  'docker-image-pull-secret': Flags.string({
    description: 'Kubernetes secret for pulling a private image.',
    helpGroup: 'IMAGE',
  }),
  'output-manifest-file': pathFlag('output-file', {
    description: 'Also write the JobSet YAML to this file (works with --dry-run).',
  }),
  replace: Flags.boolean({
    description:
      'If a workload of this name exists, delete it (stopping its pods; asks first, --force does not), wait until it is gone, then submit. Without it, an existing name is refused (exit 6).',
  }),
  ...kubeAccessFlags,
}

/** The flags of `xpk workload delete` besides the target and global ones. */
export const workloadDeleteFlags = {
  workload: Flags.string({
    description:
      'Delete this workload (its JobSet; Kueue and JobSet objects made for it go with it). No question asked.',
    exclusive: ['filter-by-job', 'filter-by-status'],
  }),
  'filter-by-job': Flags.string({
    description:
      'Without --workload: delete every workload whose name contains this text (all of them without it), after listing them and asking.',
  }),
  'filter-by-status': choiceFlag(STATUS_FILTERS, {
    description:
      'Without --workload: only the workloads in this state, as `workload list` shows them (any case): QUEUED, RUNNING, FINISHED, and of those FAILED or SUCCESSFUL.',
    default: 'EVERYTHING',
  }),
  wait: Flags.boolean({
    description: `Return only once the workloads and their pods are gone (at most XPK_WORKLOAD_DELETE_TIMEOUT_S, default ${DEFAULT_GONE_TIMEOUT_MS / 60_000} min; then exit 124).`,
  }),
  ...kubeAccessFlags,
}
