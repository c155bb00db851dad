/**
 * Every note, warning and question xpk prints besides its results carries a stable code from this table, the way
 * aws-cdk's I/O host does. The English text may be reworded at any time; the code and its data may not change
 * meaning. Tests assert on codes, and a host that is not a terminal (a test, a wrapper) can react to them.
 *
 * The table is also a contract snapshot (test/golden/contract/messages.json): adding, removing or re-levelling a
 * code is a visible diff.
 */
export const MESSAGES = {
  // cluster create
  'cluster.create.offline-plan': {level: 'info', summary: 'An offline dry run planned as if nothing exists.'},
  'cluster.create.reading': {level: 'info', summary: 'Reading the live cluster and GKE versions before planning.'},
  'cluster.create.plan': {level: 'info', summary: 'The plan about to be applied (or shown by --dry-run).'},
  'cluster.create.dry-run': {level: 'info', summary: 'A dry run ended without changing anything.'},
  'cluster.create.summary': {level: 'info', summary: 'What the applied plan did, in counts.'},
  'cluster.create.confirm-delete-pools': {
    level: 'question',
    summary: 'Asked before the plan deletes node pools that have nodes.',
  },
  'cluster.create.confirm-kueue-upgrade': {
    level: 'question',
    summary: 'Asked before a Kueue older than v0.15 and every Kueue object are deleted to install the new one.',
  },
  // the cluster lock of cluster create and cluster delete
  'cluster.lock.held': {
    level: 'warn',
    summary: 'A dry run found the cluster locked by another xpk run (or its lock stale): what a real run would do.',
  },
  'cluster.lock.taken-over': {
    level: 'warn',
    summary:
      "Another run's lock was taken over: older than XPK_CLUSTER_LOCK_STALE_S, or taken on this machine by a process that has ended.",
  },
  'cluster.lock.releasing': {
    level: 'info',
    summary: 'An interrupted run releases its cluster lock before it exits (a few seconds at most).',
  },
  'cluster.lock.not-released': {
    level: 'warn',
    summary: "This run's cluster lock could not be released; it stays until taken over.",
  },
  // cluster delete
  'cluster.delete.absent': {level: 'info', summary: 'The cluster to delete does not exist: nothing to do.'},
  'cluster.delete.plan': {level: 'info', summary: 'The deletion plan about to be applied.'},
  'cluster.delete.dry-run': {level: 'info', summary: 'A dry run ended without deleting anything.'},
  'cluster.delete.confirm': {level: 'question', summary: 'Asked before a cluster and its node pools are deleted.'},
  'cluster.delete.done': {level: 'info', summary: 'The cluster was deleted.'},
  // cluster describe
  'cluster.describe.unreachable': {
    level: 'warn',
    summary: 'The inside of the cluster could not be read; only what GKE reports is shown.',
  },
  'cluster.describe.no-gke': {
    level: 'info',
    summary: 'Reached through a kubeconfig: GKE was not asked, so there is no node-pool information from it.',
  },
  // cluster cacheimage
  'cluster.cacheimage.dry-run': {
    level: 'info',
    summary: 'A dry run showed the image-cache DaemonSet without applying it.',
  },
  'cluster.cacheimage.applied': {
    level: 'info',
    summary: 'The image-cache DaemonSet was created, updated or found unchanged; its nodes pull the image.',
  },
  'cluster.cacheimage.no-nodes': {level: 'warn', summary: 'No node of the type is in the cluster to pull the image.'},
  // config
  'config.set': {level: 'info', summary: 'A default was saved.'},
  'config.unset': {level: 'info', summary: 'A default was removed.'},
  'config.not-set': {level: 'info', summary: 'The asked-for default is not saved.'},
  'config.file': {level: 'info', summary: 'Where the config file lives.'},
  // image build
  'image.offline': {level: 'info', summary: 'Offline: the registry was not asked whether the image exists.'},
  'image.credential-problem': {level: 'warn', summary: 'Registry credentials could not be found or read.'},
  'image.exists': {level: 'info', summary: 'The image is already in the registry: nothing to build or push.'},
  'image.would-build': {level: 'info', summary: 'A dry run found the image missing: a real run would build it.'},
  'image.pushed': {level: 'info', summary: 'The image was built and pushed.'},
  'image.unsupported-files': {level: 'warn', summary: 'Entries of the script directory that cannot be packed.'},
  'image.vanished-files': {level: 'warn', summary: 'Files that disappeared while the script directory was read.'},
  'image.default-script-dir': {level: 'info', summary: 'No --script-dir: the current directory is packed.'},
  'image.confirm-large-script-dir': {
    level: 'question',
    summary: 'Asked before packing a script directory that looks too big or holds node_modules/.git.',
  },
  'image.base-lookup-fallback': {level: 'warn', summary: 'The local engine could not say the base image digest.'},
  'image.base-platform-mismatch': {level: 'warn', summary: 'The local base image is for another platform.'},
  // workload create
  'workload.manifest-written': {level: 'info', summary: 'The JobSet manifest was written to a file.'},
  'workload.dry-run': {level: 'info', summary: 'A dry run ended without submitting anything.'},
  'workload.capacity': {
    level: 'info',
    summary: "The cluster's resources ConfigMap has room for the workload (or node auto-provisioning does).",
  },
  'workload.gpu-networks': {level: 'info', summary: "The GPU networks read from the cluster's GKENetworkParamSets."},
  'workload.gpu-networks-missing': {
    level: 'warn',
    summary: 'A GPUDirect workload on a cluster without GKENetworkParamSets: its pods get the default network only.',
  },
  'workload.gpu-networks-assumed': {
    level: 'info',
    summary: 'A dry run assumed the GPU network names instead of reading them from the cluster.',
  },
  'workload.replacing': {
    level: 'info',
    summary: '--replace: the existing JobSet of the name is deleted and waited for before the submit.',
  },
  'workload.confirm-replace': {
    level: 'question',
    summary: '--replace: asked before the existing JobSet of the name (and its running pods) is deleted.',
  },
  'workload.replace-planned': {
    level: 'info',
    summary: 'A dry run with --replace: which existing JobSet a submit would delete.',
  },
  'workload.rbac-applied': {
    level: 'info',
    summary: "The workloads' ServiceAccount, Role or RoleBindings were missing or differed, and were applied.",
  },
  'workload.queue-inactive': {
    level: 'warn',
    summary:
      "Kueue reports the cluster's LocalQueue as not active (e.g. its ClusterQueue is missing): the workload waits.",
  },
  'workload.kueue-older': {
    level: 'warn',
    summary:
      'The cluster runs a Kueue before v0.15 (v1beta1 only): the workload is queued, and cluster create upgrades it.',
  },
  'workload.name-taken': {
    level: 'warn',
    summary: 'A dry run found a workload of the name: a submit without --replace would be refused.',
  },
  'workload.cluster-unchecked': {
    level: 'info',
    summary: 'A dry run did not read the cluster (--offline, or nothing to find it by): its set-up was not checked.',
  },
  // workload delete
  'workload.delete.no-match': {level: 'info', summary: 'No workload matches the filter: nothing to delete.'},
  'workload.delete.absent': {level: 'info', summary: 'A workload to delete is already gone: nothing to do for it.'},
  'workload.delete.dry-run': {level: 'info', summary: 'A dry run showed what would be deleted without deleting it.'},
  'workload.delete.confirm': {
    level: 'question',
    summary: 'Asked before the workloads a filter selected are deleted (their names are listed).',
  },
  // workload list
  'workload.list.console': {level: 'info', summary: "Where the project's workloads are in the Cloud Console."},
  'workload.list.waiting': {
    level: 'info',
    summary: '--wait-for-job-completion: the workload is watched until it finishes or the timeout passes.',
  },
  'workload.list.finished': {level: 'info', summary: 'The awaited workload finished successfully.'},
  // workload logs
  'workload.logs.gone': {
    level: 'warn',
    summary: 'A pod whose log was asked for does not exist (any more, or yet): where its logs are in Cloud Logging.',
  },
  'workload.logs.unreadable': {
    level: 'warn',
    summary: "A pod's log could not be read (its container has not started, or the server refused); others go on.",
  },
  'workload.logs.reading': {level: 'info', summary: 'Which pods are read, and whether they are followed.'},
  'workload.logs.restarted': {
    level: 'warn',
    summary: "A followed pod's container restarted, or the JobSet made a new pod for its place: following that one.",
  },
  'workload.logs.started': {
    level: 'info',
    summary: 'The container of a followed pod whose log could not be read yet has started: following it.',
  },
  'workload.logs.reconnected': {
    level: 'info',
    summary:
      "A followed pod's log stream was cut short while its container runs (idle, reset, timed out): read on from its last line.",
  },
  'workload.logs.waiting': {
    level: 'info',
    summary: 'With --follow, a place has no pod (a JobSet restart deleted it): waiting for the new pod.',
  },
  'workload.logs.ended': {
    level: 'info',
    summary: 'Following stopped: the workload completed or failed, or its JobSet was deleted.',
  },
  // vm create / delete / run
  'vm.create.exists': {level: 'info', summary: 'The queued resource exists already with the same request.'},
  'vm.create.requesting': {level: 'info', summary: 'The queued resource is being requested.'},
  'vm.create.async': {level: 'info', summary: '--async: not waiting for the queued resource.'},
  'vm.create.active': {level: 'info', summary: 'The queued resource is ACTIVE, with its nodes.'},
  'vm.delete.absent': {level: 'info', summary: 'The queued resource to delete does not exist: nothing to do.'},
  'vm.delete.confirm': {level: 'question', summary: 'Asked before a queued resource and its TPU VMs are deleted.'},
  'vm.delete.async': {level: 'info', summary: '--async: the deletion goes on in the background.'},
  'vm.delete.done': {level: 'info', summary: 'The queued resource and its TPU VMs were deleted.'},
  'vm.run.starting': {level: 'info', summary: 'The command starts on every worker.'},
  'vm.run.succeeded': {level: 'info', summary: 'Every worker succeeded.'},
  'vm.run.worker-failed': {level: 'info', summary: 'A worker failed; the others are being stopped.'},
  'vm.run.stopping': {level: 'info', summary: 'Running workers are being stopped.'},
  'vm.run.lost': {
    level: 'info',
    summary: "A worker's connection was lost: its command is stopped through a new connection.",
  },
  'vm.run.not-stopped': {
    level: 'warn',
    summary: 'A worker whose connection was lost could not be reached again: its command may still run there.',
  },
  'vm.run.confirm-create-key': {
    level: 'question',
    summary: 'Asked before creating ~/.ssh/google_compute_engine (answered yes when nobody can be asked).',
  },
  'vm.run.key-created': {level: 'info', summary: 'An SSH key was created.'},
  'vm.run.default-script-dir': {
    level: 'info',
    summary: 'No --script-dir: the current directory is copied to every worker.',
  },
  'vm.run.confirm-large-script-dir': {
    level: 'question',
    summary: 'Asked before copying a script directory that looks too big or holds node_modules/.git to every worker.',
  },
  'vm.run.adding-key': {level: 'info', summary: "The SSH key is being added to the nodes' ssh-keys metadata."},
} as const satisfies Record<string, MessageDefinition>

export interface MessageDefinition {
  /** Where the message goes: a note (hidden by --quiet), a warning (always shown), or a yes/no question. */
  readonly level: 'info' | 'warn' | 'question'
  /** What the message is about, for the contract snapshot and for hosts that react to codes. */
  readonly summary: string
}

export type MessageCode = keyof typeof MESSAGES

/** A note or warning: a stable code, the English text, and the values the text was made from. */
export interface Message {
  readonly code: MessageCode
  readonly text: string
  readonly data?: Readonly<Record<string, unknown>>
}

/**
 * A yes/no question. `default` is the answer to Enter or end of input, and the answer the host gives on its own
 * when nobody can be asked (no terminal, --quiet): destructive questions default to no, so there they stop the
 * command with a hint to re-run with --force.
 */
export interface Question extends Message {
  readonly default: boolean
}

/**
 * The answer to a {@link Question} and who gave it: the person at the terminal, `--force`, or the host itself with
 * the question's default because nobody could be asked (`why` says which).
 */
export type Answer =
  | {readonly yes: boolean; readonly by: 'person' | 'force'}
  | {readonly yes: boolean; readonly by: 'default'; readonly why: 'no-terminal' | 'quiet'}

/** Builds a message; `data` holds the values behind the text, for hosts and tests. */
export function message(code: MessageCode, text: string, data?: Readonly<Record<string, unknown>>): Message {
  return data === undefined ? {code, text} : {code, text, data}
}

/** Builds a question with its default answer. */
export function question(
  code: MessageCode,
  text: string,
  defaultAnswer: boolean,
  data?: Readonly<Record<string, unknown>>,
): Question {
  return {...message(code, text, data), default: defaultAnswer}
}
