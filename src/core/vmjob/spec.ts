/**
 * A TPU VM job (`xpk vm job create`) as checked: what a jobman config file (or the flags of the simple case) asks
 * for, with every value decided. The config reader produces it; the supervisor runs it; the job's directory keeps
 * it (with the addresses the TPU got) so that `resume` needs nothing else.
 */

/** How the TPU is requested: a TPU VM node directly, or a queued resource that creates it. */
export type VmJobAllocationMode = 'tpu-vm' | 'queued-resources'

/** jobman's pricing names. `ondemand` is the default. */
export type VmJobPricing = 'spot' | 'ondemand' | 'preemptible'

/** The setup modules, run in the order the config lists them; `command` marks where the command runs (last). */
export type VmJobModule = 'ssh' | 'gcsfuse' | 'docker' | 'conda' | 'venv'

export interface VmJobTpu {
  readonly allocationMode: VmJobAllocationMode
  /** The accelerator type, e.g. v4-8, v6e-64 (checked against the TPU catalog). */
  readonly accelerator: string
  /** The TPU node name (and queued resource id), after interpolation. */
  readonly name: string
  readonly zone: string
  /** The TPU runtime version (jobman's `version`). */
  readonly runtimeVersion: string
  readonly pricing: VmJobPricing
  /** The startup script's text (read from the file the config names), or null. */
  readonly startupScript: string | null
  readonly tags: readonly string[]
  readonly metadata: Readonly<Record<string, string>>
}

export interface VmJobGcsfuse {
  readonly bucket: string
  readonly mountPath: string
}

export interface VmJobSshIdentity {
  /** Paths on the machine running xpk, `~` expanded. */
  readonly privateKey: string
  readonly publicKey: string
  /** A block appended to ~/.ssh/config on every worker. */
  readonly configEntry?: string
}

export interface VmJobSsh {
  /**
   * The key pair xpk connects to the workers with (jobman's `ssh.private_key`; its public half is the same path
   * with `.pub`, as gcloud's --ssh-key-file expects); undefined uses xpk's own key, as `xpk vm run` does.
   */
  readonly login?: {readonly privateKey: string; readonly publicKey: string}
  readonly identities: readonly VmJobSshIdentity[]
}

export interface VmJobDocker {
  readonly image: string
  /** `NAME=value` entries. */
  readonly envVars: readonly string[]
  /** `host[:container]` entries. */
  readonly mountDirs: readonly string[]
  readonly workdir?: string
  /** Extra `docker run` arguments, each one argument. */
  readonly flags: readonly string[]
}

export interface VmJobConda {
  readonly name: string
  /** Path on the machine running xpk of the environment file, copied to the workers. */
  readonly configFile: string
}

export interface VmJobVenv {
  readonly name: string
  /** Path on the machine running xpk of the requirements file, copied to the workers. */
  readonly requirementsFile: string
  /** The interpreter to create it with, e.g. python3.10. */
  readonly python: string
}

/** Which workers run the command: every worker, or the listed indexes (of the TPU's workers, in order). */
export type VmJobWorkers = 'all' | readonly number[]

export interface VmJobCommand {
  readonly run: string
  readonly workers: VmJobWorkers
}

/** A detached job (`--detach`): the code in a bucket, a startup script on every worker, the logs back in the bucket. */
export interface VmJobDetached {
  readonly bucket: string
  /** The objects' prefix: `D/R`, or `R` without --bucket-dir. */
  readonly prefix: string
  /** The run name: the queued resource's id and its nodes' prefix. */
  readonly runName: string
  readonly numSlices: number
  /** Workers per slice (from the accelerator): how many exit statuses make the job done. */
  readonly workersPerSlice: number
  readonly capacity: 'on-demand' | 'reserved' | 'spot' | 'best-effort'
  readonly reservation?: string
  /** Keep the queued resource when every worker is done (the startup script deletes it otherwise). */
  readonly keep: boolean
  /** The code archive's object name (content-addressed), or null when no directory is shipped. */
  readonly archive: string | null
}

export interface VmJobSpec {
  /** The job's name (jobman's `job.name`). */
  readonly name: string
  readonly project: string
  /** The environment the command runs in; `none` runs it in the worker's login shell. */
  readonly envType: 'docker' | 'conda' | 'venv' | 'none'
  /** The login name on the workers (jobman's `job.remote_user`); undefined leaves it to the supervisor. */
  readonly remoteUser?: string
  /** Re-request, set up again and re-run after a preemption. */
  readonly loop: boolean
  /** Stop after this many recoveries; undefined is unlimited. */
  readonly maxRecoveries?: number
  readonly tpu: VmJobTpu
  /** Setup modules in the order they run. */
  readonly modules: readonly VmJobModule[]
  readonly gcsfuse?: VmJobGcsfuse
  readonly ssh?: VmJobSsh
  readonly docker?: VmJobDocker
  readonly conda?: VmJobConda
  readonly venv?: VmJobVenv
  readonly command: VmJobCommand
  /** A local directory copied to every worker before setup (the flags' --script-dir). */
  readonly scriptDir?: string
  /** Set for a detached job: no supervisor; the startup script runs the command (README, Detached jobs). */
  readonly detached?: VmJobDetached
}
