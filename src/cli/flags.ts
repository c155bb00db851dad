import * as Flags from '@oclif/core/flags'

import {OUTPUT_FORMATS} from '../core/render/output-format.js'
import {choiceFlag, pathFlag} from './flag-kinds.js'

/** Flags every command has (besides `--json`, which oclif adds). */
export const globalFlags = {
  quiet: Flags.boolean({
    char: 'q',
    description: 'Print only results and errors; no progress or notes.',
    helpGroup: 'GLOBAL',
  }),
  verbose: Flags.boolean({
    char: 'v',
    description: 'Print details: where each setting came from, and stack traces of errors.',
    helpGroup: 'GLOBAL',
  }),
}

/** Where a command acts. Each falls back to XPK_<NAME>, then `xpk config`, then the active gcloud configuration. */
export const targetFlags = {
  project: Flags.string({description: 'Google Cloud project ID. [env: XPK_PROJECT]', helpGroup: 'TARGET'}),
  zone: Flags.string({description: 'Compute zone, e.g. us-central2-b. [env: XPK_ZONE]', helpGroup: 'TARGET'}),
  cluster: Flags.string({description: 'GKE cluster name. [env: XPK_CLUSTER]', helpGroup: 'TARGET'}),
}

/** Commands that call the GKE API can be pointed at another endpoint (like gcloud's api_endpoint_overrides/container). */
export const gkeEndpointFlag = {
  'gke-endpoint': Flags.string({
    description:
      'GKE API endpoint, e.g. https://us-central1-container.googleapis.com/ for a regional endpoint. [env: XPK_GKE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
}

/** Flags of commands that change things. */
export const changeFlags = {
  'dry-run': Flags.boolean({
    description: 'Show what would be done and change nothing.',
    helpGroup: 'GLOBAL',
  }),
  force: Flags.boolean({
    description:
      'Do not ask for confirmation: before deleting or recreating anything, or packing a large --script-dir.',
    helpGroup: 'GLOBAL',
  }),
}

/**
 * `--dry-run` on a command that changes nothing (workload list, cluster list, cluster describe): accepted, as Python
 * xpk accepts it there, so its scripts run unchanged; the command runs as usual, and a note says so (base-command.ts).
 */
export const noChangeDryRunFlag = {
  'dry-run': {
    ...Flags.boolean({
      description: 'Accepted as in Python xpk: this command changes nothing, so it runs as usual (with a note).',
      helpGroup: 'GLOBAL',
    }),
    changesNothing: true,
  },
}

/** `--offline`: plan without any network call, as if nothing exists yet. */
export const offlineFlag = {
  offline: Flags.boolean({
    description: 'With --dry-run: make no network call at all and plan as if nothing exists yet.',
    dependsOn: ['dry-run'],
    helpGroup: 'GLOBAL',
  }),
}

/** The accelerator of a cluster or workload: exactly one of these two. */
export const acceleratorFlags = {
  'tpu-type': Flags.string({
    description: 'TPU type, e.g. v5p-8, v5litepod-16, v6e-256, tpu7x-128 (see `xpk accelerator list`).',
    exclusive: ['device-type'],
    helpGroup: 'ACCELERATOR',
  }),
  'device-type': Flags.string({
    description: 'Any accelerator type: TPU, GPU (e.g. h100-80gb-8) or CPU (e.g. n2-standard-32-4).',
    exclusive: ['tpu-type'],
    helpGroup: 'ACCELERATOR',
  }),
}

/**
 * How a command reaches the cluster's Kubernetes API when it should not go through GKE's endpoint: any cluster a
 * kubeconfig reaches (kind, minikube, a cluster made elsewhere). Without them, the GKE cluster's endpoint and CA.
 */
export const kubeAccessFlags = {
  kubeconfig: pathFlag('file', {
    description:
      'Reach the cluster through this kubeconfig instead of the GKE endpoint (kind, minikube, a cluster made elsewhere). [env: KUBECONFIG]',
    helpGroup: 'TARGET',
  }),
  context: Flags.string({
    description: 'The kubeconfig context to use (default: its current context).',
    helpGroup: 'TARGET',
  }),
}

/**
 * kubectl's output flags, on every list and describe command and only there (README, "Output"); what each form
 * prints is src/core/render/output.ts's, checked before anything is sent.
 */
export const outputFlags = {
  output: {
    ...choiceFlag(OUTPUT_FORMATS, {
      description:
        'Print the result as json (what --json prints), yaml (the same data), name (one name per line) or wide (the table with more columns). [default: the table]',
      helpGroup: 'OUTPUT',
    }),
    char: 'o' as const,
  },
  'no-headers': Flags.boolean({
    description: 'Print tables (the default and -o wide) without their header line.',
    helpGroup: 'OUTPUT',
  }),
}
