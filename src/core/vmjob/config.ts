/**
 * jobman's config file (`xpk vm job create --config job.yaml`) read into a checked {@link VmJobSpec}, every problem
 * at once, each naming the file, the line and the key path, and the fix. Pure: the caller passes the file's text
 * and functions that read the files the config names.
 *
 * Flags given with --config fill in what the file leaves out; where the file also sets the value they must agree
 * (a disagreement is a problem naming the flag and the file's line), so no value is silently chosen over another.
 * The defaults (`xpk config` settings) fill in only what neither the file nor a flag sets.
 */
import {throwIfProblems, UsageError} from '../errors.js'
import {escapeInline} from '../text.js'
import {orList} from '../suggest.js'
import {resolveTpuVmType, validateRuntimeVersion, type TpuVmType} from '../vm/catalog.js'
import {checkWorkers, jobNameProblem, parseWorkersText, type VmJobFlags} from './flags.js'
import {formatPath, Interpolator, type KeyPath} from './interpolation.js'
import {ConfigReader, describe, localPath, type Block, type ConfigWarning, type Read} from './reader.js'
import type {
  VmJobAllocationMode,
  VmJobConda,
  VmJobDocker,
  VmJobGcsfuse,
  VmJobModule,
  VmJobPricing,
  VmJobSpec,
  VmJobSsh,
  VmJobSshIdentity,
  VmJobVenv,
  VmJobWorkers,
} from './spec.js'
import {parseYamlTree, type YamlMap} from './yaml-tree.js'

export type {ConfigWarning as VmJobConfigWarning} from './reader.js'

export interface VmJobConfigOptions {
  /** The config file as the user named it (messages say `path:line`). */
  readonly path: string
  /** Relative paths in the file are from here, as in jobman (which runs from the directory it is started in). */
  readonly cwd: string
  /** What `~` in a path stands for. */
  readonly homeDir: string
  /** The `xpk config` settings: used only for what neither the file nor a flag sets. */
  readonly defaults?: {readonly project?: string; readonly zone?: string}
  /** Flags given with --config. */
  readonly flags?: VmJobFlags
  /** For `${oc.env:NAME}`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** A file's text, or undefined when it cannot be read (the startup script is read whole). */
  readonly readFile: (path: string) => string | undefined
  /** Whether a file can be read (keys, environment files); defaults to readFile's answer. */
  readonly fileReadable?: (path: string) => boolean
}

export interface VmJobConfig {
  readonly spec: VmJobSpec
  /** Keys xpk accepts but does not use, and blocks the chosen environment leaves out. */
  readonly warnings: readonly ConfigWarning[]
}

const TOP_KEYS = ['job', 'tpu', 'gcsfuse', 'ssh', 'docker', 'conda', 'venv', 'setup', 'command'] as const
const TOP_IGNORED = {brevo_email: 'ignored: xpk sends no e-mail; `xpk vm job list` and `logs` show the state.'}
const JOB_KEYS = ['name', 'env_type', 'loop', 'remote_user', 'max_recoveries']
const JOB_IGNORED = {
  environment: 'ignored: give environment variables in the command, or in docker.env_vars.',
  queue: "ignored: xpk runs one command per job (jobman's queue mode is not supported).",
  dir: 'ignored: xpk keeps each job in its own directory under your state directory.',
}
const TPU_KEYS = [
  'allocation_mode',
  'accelerator',
  'name',
  'zone',
  'version',
  'pricing',
  'startup_script',
  'tags',
  'metadata',
  'project',
]
const ENV_TYPES = ['docker', 'conda', 'venv', 'none'] as const
const ENV_MODULES = ['docker', 'conda', 'venv'] as const
const MODULES = ['ssh', 'gcsfuse', 'docker', 'conda', 'venv', 'command'] as const
const ALLOCATION_MODES: readonly VmJobAllocationMode[] = ['tpu-vm', 'queued-resources']
const PRICINGS: readonly VmJobPricing[] = ['spot', 'ondemand', 'preemptible']
// Cloud Storage bucket names (the dotted, domain-named form aside): 3-63 of these, starting and ending alphanumeric.
const BUCKET = /^[a-z0-9][a-z0-9_.-]{1,61}[a-z0-9]$/
// Network tags: RFC 1035 labels.
const TAG = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/

type EnvType = VmJobSpec['envType']

/**
 * Reads a jobman config into the job it asks for.
 * @throws UsageError (UsageErrors when several) naming the file, line, key and fix of each problem; nothing is
 *   returned when any value is wrong
 */
export function readVmJobConfig(text: string, options: VmJobConfigOptions): VmJobConfig {
  const tree = parseYamlTree(text)
  if (tree !== null && 'reason' in tree) {
    throw new UsageError(`${options.path}:${tree.line}: not valid YAML: ${tree.reason}.`, {
      hints: ['Fix the YAML: indent with spaces, and quote values that hold ": " or start with a special character.'],
    })
  }
  if (tree === null || tree.kind !== 'map') {
    throw new UsageError(
      `${options.path}:1: the file should be a mapping of blocks (job:, tpu:, command: ...), not ${tree === null ? 'empty' : describe(tree)}.`,
      {hints: ['Start from the example in the README ("Jobs: config files").']},
    )
  }
  const reader = new ConfigReader(options.path, text, new Interpolator(tree, options.env))
  const spec = new JobReading(reader, tree, options).read()
  throwIfProblems(reader.problems)
  return {spec: spec!, warnings: reader.warnings}
}

class JobReading {
  private readonly flags: VmJobFlags
  private readonly readable: (path: string) => boolean

  constructor(
    private readonly r: ConfigReader,
    private readonly root: YamlMap,
    private readonly options: VmJobConfigOptions,
  ) {
    this.flags = options.flags ?? {}
    this.readable = options.fileReadable ?? ((p) => options.readFile(p) !== undefined)
  }

  private readonly tops = new Map<string, Block | undefined>()

  /** A top-level block, read once (so a block of the wrong type is reported once). */
  private top(key: string): Block | undefined {
    if (!this.tops.has(key)) this.tops.set(key, this.r.block(this.root, [], key))
    return this.tops.get(key)
  }

  read(): VmJobSpec | undefined {
    const {r, root} = this
    r.checkKeys(root, [], TOP_KEYS, TOP_IGNORED)
    const job = r.block(root, [], 'job')
    const tpuBlock = r.block(root, [], 'tpu')
    const commandBlock = r.block(root, [], 'command')
    const top = {offset: 0, fix: ''}

    if (job) r.checkKeys(job.map, job.path, JOB_KEYS, JOB_IGNORED)
    const jobAt = job ? {offset: job.at} : top
    const name = this.agree('--name', this.flags.name, r.string(job?.map, ['job'], 'name'))
    if (name === undefined) {
      r.problem(jobAt.offset, 'job.name', 'is missing', 'Add `name: my-job` under job:, or give --name.')
    } else {
      const p = jobNameProblem(name.value, 'job.name')
      if (p) r.problem(name.offset, 'job.name', `"${escapeInline(name.value)}": ${afterName(p.message)}`)
    }
    const envTypeRead = r.oneOf(job?.map, ['job'], 'env_type', ENV_TYPES)
    const loop = this.agreeFlag('--loop', this.flags.loop, r.boolean(job?.map, ['job'], 'loop'))
    const maxRecoveries = this.agree(
      '--max-recoveries',
      this.flags.maxRecoveries,
      r.integer(job?.map, ['job'], 'max_recoveries', 0),
    )
    const remoteUser = r.string(job?.map, ['job'], 'remote_user')

    const tpu = this.readTpu(tpuBlock, name?.value)
    const setup = this.readSetup()
    const envType = this.environment(envTypeRead, setup)
    const modules = this.modules(setup, envType)
    const gcsfuse = this.readGcsfuse()
    const ssh = this.readSsh()
    const docker = envType === 'docker' ? this.readDocker() : undefined
    const conda = envType === 'conda' ? this.readConda() : undefined
    const venv = envType === 'venv' ? this.readVenv() : undefined
    const command = this.readCommand(commandBlock, tpu?.type)

    if (r.problems.length > 0 || !name || !tpu || !command) return undefined
    return {
      name: name.value,
      project: tpu.project,
      envType,
      ...(remoteUser ? {remoteUser: remoteUser.value} : {}),
      loop: loop?.value ?? false,
      ...(maxRecoveries === undefined ? {} : {maxRecoveries: maxRecoveries.value}),
      tpu: tpu.spec,
      modules,
      ...(gcsfuse ? {gcsfuse} : {}),
      ...(ssh ? {ssh} : {}),
      ...(docker ? {docker} : {}),
      ...(conda ? {conda} : {}),
      ...(venv ? {venv} : {}),
      command,
      ...(this.flags.scriptDir === undefined ? {} : {scriptDir: this.flags.scriptDir}),
    }
  }

  /** A value set by the file, a flag, or both (then they must agree). */
  private agree<T extends string | number>(
    flag: string,
    flagValue: T | undefined,
    file: Read<T> | undefined,
  ): Read<T> | undefined {
    if (flagValue === undefined) return file
    if (file !== undefined && String(file.value) !== String(flagValue)) {
      this.flagConflict(flag, String(flagValue), file)
    }
    return file ?? {value: flagValue, text: String(flagValue), offset: 0, path: []}
  }

  /** A boolean flag says something only when given (true). */
  private agreeFlag(flag: string, flagValue: boolean | undefined, file: Read<boolean> | undefined) {
    if (!flagValue) return file
    if (file !== undefined && !file.value) this.flagConflict(flag, 'true', file)
    return file ?? {value: true, text: 'true', offset: 0, path: []}
  }

  private flagConflict(flag: string, flagValue: string, file: Read<unknown>): void {
    this.r.problems.push(
      new UsageError(
        `${flag}=${flagValue} disagrees with ${this.r.where(file.offset)}: ${formatPath(file.path)} is "${escapeInline(typeof file.value === 'boolean' ? String(file.value) : file.text)}".`,
        {flag, hints: [`Drop ${flag}, or change ${formatPath(file.path)} in ${this.options.path}.`]},
      ),
    )
  }

  private readTpu(block: Block | undefined, jobName: string | undefined) {
    const {r, flags} = this
    const map = block?.map
    const at = block?.at ?? 0
    if (block) r.checkKeys(block.map, block.path, TPU_KEYS)
    else if (flags.tpuType === undefined) {
      r.problem(0, 'tpu', 'is missing', 'Add a tpu: block with at least accelerator: and zone:.')
    }
    const base = ['tpu']
    const accelerator = this.agree('--tpu-type', flags.tpuType, r.string(map, base, 'accelerator'))
    let type: TpuVmType | undefined
    if (accelerator === undefined) {
      if (block) r.problem(at, 'tpu.accelerator', 'is missing', 'Add e.g. `accelerator: v4-8` under tpu:.')
    } else {
      try {
        type = resolveTpuVmType(accelerator.value, 'tpu.accelerator')
      } catch (error) {
        this.reportAt(accelerator, error as UsageError)
      }
    }
    const allocationMode = r.oneOf(map, base, 'allocation_mode', ALLOCATION_MODES)?.value ?? 'queued-resources'
    const pricingRead = r.oneOf(map, base, 'pricing', PRICINGS)
    if (flags.spot && pricingRead && pricingRead.value !== 'spot') this.flagConflict('--spot', 'true', pricingRead)
    const pricing: VmJobPricing = pricingRead?.value ?? (flags.spot ? 'spot' : 'ondemand')
    if (pricing === 'preemptible' && allocationMode === 'queued-resources') {
      r.problem(
        pricingRead!.offset,
        'tpu.pricing',
        'a queued resource cannot be preemptible (the TPU API offers spot or on-demand for queued resources)',
        'Use `pricing: spot`, or `allocation_mode: tpu-vm` for a preemptible TPU VM.',
      )
    }
    const versionRead = this.agree('--runtime-version', flags.runtimeVersion, r.string(map, base, 'version'))
    const runtimeVersion = versionRead?.value ?? type?.defaultRuntime ?? ''
    if (type && versionRead) {
      try {
        validateRuntimeVersion(versionRead.value, type, 'tpu.version')
      } catch (error) {
        this.reportAt(versionRead, error as UsageError)
      }
    }
    const zone = this.agree('--zone', flags.zone, r.string(map, base, 'zone'))?.value ?? this.options.defaults?.zone
    if (zone === undefined) {
      r.problem(at, 'tpu.zone', 'is missing', 'Add e.g. `zone: us-central2-b` under tpu:, or give --zone.')
    }
    const project =
      this.agree('--project', flags.project, r.string(map, base, 'project'))?.value ?? this.options.defaults?.project
    if (project === undefined) {
      r.problem(
        at,
        'tpu.project',
        "no project: jobman used gcloud's, xpk needs it said",
        'Give --project, set it once with `xpk config set project ID`, or add `project: ID` under tpu:.',
      )
    }
    const nameRead = r.string(map, base, 'name')
    const tpuName = nameRead?.value ?? jobName
    if (nameRead) {
      const p = jobNameProblem(nameRead.value, 'tpu.name')
      if (p) r.problem(nameRead.offset, 'tpu.name', `"${escapeInline(nameRead.value)}": ${afterName(p.message)}`)
    }
    const startupScript = this.readStartupScript(map)
    const tags = r.stringList(map, base, 'tags')
    for (const [i, tag] of (tags?.value ?? []).entries()) {
      if (!TAG.test(tag)) {
        r.problem(
          tags!.offset,
          `tpu.tags[${i}]`,
          `"${escapeInline(tag)}" is not a valid network tag`,
          'Use lowercase letters, digits and hyphens, starting with a letter, at most 63 characters.',
        )
      }
    }
    const metadata = r.stringMap(map, base, 'metadata')
    if (metadata && 'startup-script' in metadata.value && startupScript !== null) {
      r.problem(
        metadata.offset,
        'tpu.metadata.startup-script',
        'is set and so is tpu.startup_script; the TPU has one startup script',
        'Keep one of them.',
      )
    }
    if (!type || zone === undefined || project === undefined || tpuName === undefined) return undefined
    return {
      type,
      project,
      spec: {
        allocationMode,
        accelerator: type.name,
        name: tpuName,
        zone,
        runtimeVersion,
        pricing,
        startupScript,
        tags: tags?.value ?? [],
        metadata: metadata?.value ?? {},
      },
    }
  }

  private readStartupScript(map: YamlMap | undefined): string | null {
    const read = this.r.string(map, ['tpu'], 'startup_script')
    if (read === undefined) return null
    const path = this.localPath(read.value)
    const content = this.options.readFile(path)
    if (content === undefined) this.unreadable(read, path)
    return content ?? null
  }

  private unreadable(read: Read<string>, path: string): void {
    this.r.problem(
      read.offset,
      read.path,
      `cannot read ${path}`,
      `Check the path (a relative path is from the directory you run xpk in, ${this.options.cwd}).`,
    )
  }

  private localPath(path: string): string {
    return localPath(path, this.options.cwd, this.options.homeDir)
  }

  /** A file the config names that must be readable; its local path. */
  private requiredFile(map: YamlMap | undefined, base: KeyPath, key: string, blockOffset: number): string | undefined {
    const read = this.r.string(map, base, key, {
      offset: blockOffset,
      fix: `Add \`${key}: PATH\` under ${formatPath(base)}:.`,
    })
    if (read === undefined) return undefined
    const path = this.localPath(read.value)
    if (!this.readable(path)) {
      this.unreadable(read, path)
      return undefined
    }
    return path
  }

  /** Reports a catalog error (which names `flag=value`) at the value's line. */
  private reportAt(read: Read<string>, error: UsageError): void {
    if (read.path.length === 0) {
      this.r.problems.push(error)
      return
    }
    const message = error.message.replace(/^[\w.]+=\S+:?\s*/, '')
    this.r.problem(read.offset, read.path, `"${escapeInline(read.value)}": ${message}`, error.hints[0])
  }

  private readSetup(): Read<string>[] | undefined {
    const {r} = this
    const setup = this.top('setup')
    if (setup === undefined) return undefined
    r.checkKeys(setup.map, setup.path, ['modules'])
    const e = r.entry(setup.map, 'modules')
    if (e === undefined || (e.value.kind === 'scalar' && e.value.value === null)) return undefined
    if (e.value.kind !== 'seq') {
      r.problem(e.value.offset, 'setup.modules', `should be a list of module names, not ${describe(e.value)}`)
      return undefined
    }
    const out: Read<string>[] = []
    e.value.items.forEach((item, i) => {
      const read = r.resolveNode(item, ['setup', 'modules', i], 'a module name')
      if (read === undefined) return
      if (!(MODULES as readonly string[]).includes(String(read.value))) {
        r.problem(
          read.offset,
          read.path,
          `"${escapeInline(read.text)}" is not a module`,
          `Modules: ${orList(MODULES)} (command last).`,
        )
        return
      }
      if (out.some((m) => m.value === read.value)) {
        r.problem(read.offset, read.path, `lists ${read.text} twice`, 'List each module once.')
        return
      }
      out.push(read as Read<string>)
    })
    const command = out.findIndex((m) => m.value === 'command')
    if (command >= 0 && command !== out.length - 1) {
      r.problem(
        out[command]!.offset,
        out[command]!.path,
        'command must be the last module (the command runs after the setup)',
        'Move command to the end of the list.',
      )
    }
    return out
  }

  /** The one environment: job.env_type, else the env module setup.modules lists, else the one env block given. */
  private environment(envTypeRead: Read<EnvType> | undefined, setup: Read<string>[] | undefined): EnvType {
    const {r} = this
    const listed = (setup ?? []).filter((m) => (ENV_MODULES as readonly string[]).includes(m.value))
    for (const extra of listed.slice(1)) {
      r.problem(
        extra.offset,
        extra.path,
        `a second environment (${listed.map((m) => m.value).join(' and ')}): a job runs in one of docker, conda or venv`,
        'Keep one environment module.',
      )
    }
    const blocks = ENV_MODULES.filter((m) => this.top(m) !== undefined)
    const envType: EnvType =
      envTypeRead?.value ?? (listed[0]?.value as EnvType | undefined) ?? (blocks.length === 1 ? blocks[0]! : 'none')
    if (envTypeRead === undefined && listed.length === 0 && blocks.length > 1) {
      const entry = r.entry(this.root, blocks[1]!)!
      r.problem(
        entry.keyOffset,
        blocks[1]!,
        `the file has ${orList(blocks)} blocks and no job.env_type to choose one`,
        `Add \`env_type: ${blocks[0]}\` (or the one you use) under job:.`,
      )
    }
    if (envType !== 'none' && !blocks.includes(envType)) {
      const at = envTypeRead ?? listed[0]
      r.problem(
        at?.offset ?? 0,
        at?.path ?? 'job.env_type',
        `the environment is ${envType} but the file has no ${envType} block`,
        `Add a ${envType}: block${envType === 'docker' ? ' with image:' : ' with name:'}, or change job.env_type.`,
      )
    }
    if (envTypeRead && listed[0] && listed[0].value !== envType) {
      r.problem(
        listed[0].offset,
        listed[0].path,
        `setup.modules runs ${listed[0].value} but job.env_type is ${envType}`,
        'Make them the same environment.',
      )
    }
    if (setup && envType !== 'none' && listed.length === 0 && envTypeRead) {
      r.problem(
        envTypeRead.offset,
        'setup.modules',
        `job.env_type is ${envType} but setup.modules does not list ${envType}, so the environment would never be set up`,
        `Add ${envType} to setup.modules (before command).`,
      )
    }
    for (const other of blocks) {
      if (other === envType) continue
      const entry = r.entry(this.root, other)!
      r.warn(entry.keyOffset, [other], `ignored: the job's environment is ${envType} (job.env_type).`)
    }
    return envType
  }

  private modules(setup: Read<string>[] | undefined, envType: EnvType): VmJobModule[] {
    const {r} = this
    if (setup === undefined) {
      const out: VmJobModule[] = []
      if (this.top('ssh')) out.push('ssh')
      if (this.top('gcsfuse')) out.push('gcsfuse')
      if (envType !== 'none') out.push(envType)
      return out
    }
    const out: VmJobModule[] = []
    for (const m of setup) {
      if (m.value === 'command' || (ENV_MODULES as readonly string[]).includes(m.value)) {
        if (m.value === envType) out.push(m.value as VmJobModule)
        continue
      }
      if (this.top(m.value) === undefined) {
        r.problem(
          m.offset,
          m.path,
          `lists ${m.value} but the file has no ${m.value} block`,
          `Add a ${m.value}: block, or drop ${m.value} from setup.modules.`,
        )
        continue
      }
      out.push(m.value as VmJobModule)
    }
    for (const block of ['ssh', 'gcsfuse'] as const) {
      const entry = r.entry(this.root, block)
      if (entry && this.top(block) && !out.includes(block)) {
        r.warn(entry.keyOffset, [block], `not run: setup.modules does not list ${block}.`)
      }
    }
    return out
  }

  private readGcsfuse(): VmJobGcsfuse | undefined {
    const {r} = this
    const block = this.top('gcsfuse')
    if (block === undefined) return undefined
    const {map, path} = block
    r.checkKeys(map, path, ['bucket_name', 'mount_path', 'extra_mounts'])
    const extra = r.entry(map, 'extra_mounts')
    if (extra && !(extra.value.kind === 'scalar' && extra.value.value === null)) {
      r.problem(
        extra.keyOffset,
        'gcsfuse.extra_mounts',
        'is not supported: xpk mounts one bucket',
        'Mount the other buckets in the command (gcsfuse BUCKET DIR), or drop extra_mounts.',
      )
    }
    const bucket = r.string(map, path, 'bucket_name', {
      offset: block.at,
      fix: 'Add `bucket_name: BUCKET` under gcsfuse:.',
    })
    if (bucket && !BUCKET.test(bucket.value.replace(/^gs:\/\//, ''))) {
      r.problem(
        bucket.offset,
        bucket.path,
        `"${escapeInline(bucket.value)}" is not a bucket name`,
        'Give the bare name (3-63 lowercase letters, digits, -, _ and .), without gs://.',
      )
    }
    const mount = r.string(map, path, 'mount_path', {
      offset: block.at,
      fix: 'Add `mount_path: /path/on/the/workers` under gcsfuse:.',
    })
    if (mount && !mount.value.startsWith('/') && !mount.value.startsWith('~')) {
      r.problem(mount.offset, mount.path, `"${escapeInline(mount.value)}" should be an absolute path on the workers`)
    }
    return bucket && mount ? {bucket: bucket.value, mountPath: mount.value} : undefined
  }

  private readSsh(): VmJobSsh | undefined {
    const {r} = this
    const block = this.top('ssh')
    if (block === undefined) return undefined
    const {map, path} = block
    r.checkKeys(map, path, ['private_key', 'identities', 'tpu_private_key', 'tpu_public_key'])
    let login: VmJobSsh['login']
    const privateKey = r.string(map, path, 'private_key')
    if (privateKey) {
      const local = this.localPath(privateKey.value)
      if (!this.readable(local)) this.unreadable(privateKey, local)
      else if (!this.readable(`${local}.pub`)) {
        r.problem(
          privateKey.offset,
          privateKey.path,
          `cannot read ${local}.pub, the public half xpk adds to the workers`,
          `Create it with \`ssh-keygen -y -f ${local} > ${local}.pub\`.`,
        )
      } else login = {privateKey: local, publicKey: `${local}.pub`}
    }
    const identities: VmJobSshIdentity[] = []
    const list = r.entry(map, 'identities')
    if (list && !(list.value.kind === 'scalar' && list.value.value === null)) {
      if (list.value.kind !== 'seq') {
        r.problem(list.value.offset, 'ssh.identities', `should be a list of identities, not ${describe(list.value)}`)
      } else {
        list.value.items.forEach((item, i) => {
          const base = [...path, 'identities', i]
          if (item.kind !== 'map') {
            r.problem(
              item.offset,
              base,
              `should be a mapping (private_key, public_key, config_entry), not ${describe(item)}`,
            )
            return
          }
          r.checkKeys(item, base, ['private_key', 'public_key', 'config_entry'])
          const pri = this.requiredFile(item, base, 'private_key', item.offset)
          const pub = this.requiredFile(item, base, 'public_key', item.offset)
          const entry = r.string(item, base, 'config_entry')
          if (pri && pub)
            identities.push({privateKey: pri, publicKey: pub, ...(entry ? {configEntry: entry.value} : {})})
        })
      }
    }
    // jobman-v2's form: one key pair for the workers to reach each other.
    const tpuPri = r.entry(map, 'tpu_private_key')
    const tpuPub = r.entry(map, 'tpu_public_key')
    if (tpuPri || tpuPub) {
      const pri = this.requiredFile(map, path, 'tpu_private_key', (tpuPub ?? tpuPri)!.keyOffset)
      const pub = this.requiredFile(map, path, 'tpu_public_key', (tpuPri ?? tpuPub)!.keyOffset)
      if (pri && pub) identities.push({privateKey: pri, publicKey: pub})
    }
    return {...(login ? {login} : {}), identities}
  }

  private readDocker(): VmJobDocker | undefined {
    const {r} = this
    const block = this.top('docker')
    if (block === undefined) return undefined
    const {map, path} = block
    r.checkKeys(map, path, ['image', 'env_vars', 'mount_dirs', 'workdir', 'flags'])
    const image = r.string(map, path, 'image', {
      offset: block.at,
      fix: 'Add e.g. `image: python:3.11` under docker:.',
    })
    const envVars = r.stringList(map, path, 'env_vars')
    for (const [i, v] of (envVars?.value ?? []).entries()) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
        r.problem(envVars!.offset, `docker.env_vars[${i}]`, `"${escapeInline(v)}" should be NAME=value`)
      }
    }
    const mountDirs = r.stringList(map, path, 'mount_dirs')
    const workdir = r.string(map, path, 'workdir')
    const flags = r.stringList(map, path, 'flags')
    if (!image) return undefined
    return {
      image: image.value,
      envVars: envVars?.value ?? [],
      mountDirs: mountDirs?.value ?? [],
      ...(workdir ? {workdir: workdir.value} : {}),
      flags: flags?.value ?? [],
    }
  }

  private readConda(): VmJobConda | undefined {
    const {r} = this
    const block = this.top('conda')
    if (block === undefined) return undefined
    const {map, path} = block
    r.checkKeys(map, path, ['name', 'config_file'])
    const name = r.string(map, path, 'name', {offset: block.at, fix: 'Add `name: ENV` under conda:.'})
    const configFile = this.requiredFile(map, path, 'config_file', block.at)
    return name && configFile ? {name: name.value, configFile} : undefined
  }

  private readVenv(): VmJobVenv | undefined {
    const {r} = this
    const block = this.top('venv')
    if (block === undefined) return undefined
    const {map, path} = block
    r.checkKeys(map, path, ['name', 'requirements_file', 'python'])
    const name = r.string(map, path, 'name', {offset: block.at, fix: 'Add `name: ENV` under venv:.'})
    const requirements = this.requiredFile(map, path, 'requirements_file', block.at)
    const python = r.string(map, path, 'python')
    if (!name || !requirements) return undefined
    // jobman's examples give "python3.9" and "3.9" alike: a bare version names the interpreter python<version>.
    const interpreter =
      python === undefined ? 'python3' : /^\d/.test(python.value) ? `python${python.value}` : python.value
    return {name: name.value, requirementsFile: requirements, python: interpreter}
  }

  private readCommand(block: Block | undefined, type: TpuVmType | undefined) {
    const {r, flags} = this
    if (block === undefined && flags.command === undefined) {
      r.problem(0, 'command', 'is missing', 'Add a command: block with cmd: (the script to run) and workers:.')
      return undefined
    }
    const map = block?.map
    if (block) r.checkKeys(block.map, block.path, ['cmd', 'run', 'workers'])
    const cmd = r.string(map, ['command'], 'cmd')
    const run = r.string(map, ['command'], 'run')
    if (cmd && run) {
      r.problem(run.offset, 'command.run', 'is set and so is command.cmd; they are the same thing', 'Keep one of them.')
    }
    const script = this.agree('--command', flags.command, cmd ?? run)
    if (script === undefined || script.value.trim() === '') {
      r.problem(
        block?.at ?? 0,
        'command.cmd',
        script ? 'is empty' : 'is missing',
        'Add `cmd: |` and the script under command:.',
      )
    }
    const workers = this.readWorkers(map, type)
    if (script === undefined || workers === undefined) return undefined
    return {run: script.value, workers}
  }

  private readWorkers(map: YamlMap | undefined, type: TpuVmType | undefined): VmJobWorkers | undefined {
    const {r, flags} = this
    const e = r.entry(map, 'workers')
    const path = ['command', 'workers']
    let given: 'all' | number | number[] | undefined
    let offset = 0
    if (e && !(e.value.kind === 'scalar' && e.value.value === null)) {
      offset = e.value.offset
      if (e.value.kind === 'seq') {
        const list: number[] = []
        e.value.items.forEach((item, i) => {
          const read = r.resolveNode(item, [...path, i], 'a worker index')
          if (read === undefined) return
          if (typeof read.value === 'number' && Number.isSafeInteger(read.value)) list.push(read.value)
          else
            r.problem(read.offset, read.path, `should be a worker index (0, 1, ...), not "${escapeInline(read.text)}"`)
        })
        if (list.length === e.value.items.length) given = list
      } else {
        const read = r.resolveNode(e.value, path, 'a worker index, a list of them, or "all"')
        if (read?.value === 'all' || (typeof read?.value === 'number' && Number.isSafeInteger(read.value))) {
          given = read.value as 'all' | number
        } else if (read) {
          r.problem(
            read.offset,
            path,
            `should be "all", a worker index or a list of them, not "${escapeInline(read.text)}"`,
          )
          return undefined
        } else return undefined
      }
      if (given === undefined) return undefined
    }
    if (flags.workers !== undefined) {
      const fromFlag = parseWorkersText(flags.workers)
      if (fromFlag === undefined) {
        r.problems.push(
          new UsageError(
            `--workers=${flags.workers}: give "all", a worker index or indexes separated by commas (0,2).`,
            {
              flag: '--workers',
            },
          ),
        )
        return undefined
      }
      if (given !== undefined && String(given) !== String(fromFlag)) {
        this.flagConflict('--workers', flags.workers, {value: given, text: String(given), offset, path})
      }
      given ??= fromFlag
    }
    if (given === undefined) return 'all'
    if (type === undefined) return undefined
    const checked = checkWorkers(given, type.hosts)
    if ('problem' in checked) {
      r.problem(
        offset,
        path,
        `${checked.problem}`,
        `${type.name} has ${type.hosts} worker${type.hosts === 1 ? '' : 's'}; use indexes below ${type.hosts}, or "all".`,
      )
      return undefined
    }
    return checked.workers
  }
}

/** idProblem's message without its leading `flag "value": `. */
function afterName(message: string): string {
  return message.replace(/^\S+ "[^"]*": /, '')
}
