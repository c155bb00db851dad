/**
 * Every environment variable xpk reads, in one table: what it is for, what it must hold, and what happens without
 * it. xpk's own (XPK_*) are held to their rule when read, like flags: a value that breaks it, or one set but empty, is
 * bad input naming the variable and the fix (exit 2), never silently replaced by the default. The others belong to
 * other tools and standards (XDG, Docker, gcloud, kubectl, POSIX) and are read as those say. The README's list is
 * generated from this table (a test keeps the two in step), and a test checks that every variable the source reads
 * is here.
 */
import {parseEndpoint, parseEndpointOverride, type Endpoint, type EndpointSetting} from './endpoint.js'
import {UsageError} from './errors.js'
import {MAX_WAIT_SECONDS, parseInteger, valueShapeProblem, type IntegerRange} from './input.js'
import {gcloudVariable, SETTINGS} from './settings.js'
import {escapeInline, redactCredentials} from './text.js'

/** The longest wait a Node.js timer can hold, in milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** How xpk reads a variable. */
export type VariableKind =
  /** One of the settings (project, zone, ...): resolved and checked with them (src/core/settings.ts). */
  | 'setting'
  /** An API endpoint, by the rule every endpoint follows (src/core/endpoint.ts). */
  | 'endpoint'
  /** A secret, used as given and never printed. */
  | 'token'
  /** A whole number in a range. */
  | 'integer'
  /** Another tool's or standard's variable, read as it says. */
  | 'standard'

export interface VariableDefinition {
  readonly kind: VariableKind
  /** What it is for, and what happens without it. */
  readonly description: string
  /** For `integer` variables: the range and the unit. */
  readonly range?: IntegerRange & {readonly unit: string}
  /** What applies when it is unset, as shown in the README. */
  readonly default?: string
  /** For `standard` variables: whose variable it is (xpk reads it as they do). */
  readonly owner?: string
}

const SECONDS: IntegerRange & {unit: string} = {
  min: 1,
  max: MAX_WAIT_SECONDS,
  limit: "seconds; Node's timers wait at most about 24.8 days",
  unit: 's',
}
const FIRST_WAIT: IntegerRange & {unit: string} = {
  min: 1,
  max: MAX_TIMER_MS,
  limit: "milliseconds; Node's timers wait at most about 24.8 days",
  unit: 'ms',
}

const settingVariables = Object.fromEntries(
  SETTINGS.map((def) => [
    def.env,
    {kind: 'setting', description: `${def.description} Used when --${def.key} is not given.`},
  ]),
) as Record<(typeof SETTINGS)[number]['env'], VariableDefinition>

const gcloudVariables = Object.fromEntries(
  SETTINGS.flatMap((def) =>
    'gcloudProperty' in def
      ? [
          [
            gcloudVariable(def.gcloudProperty),
            {
              kind: 'standard',
              owner: 'gcloud',
              description: `gcloud's override of its property ${def.gcloudProperty}: the ${def.key} setting when no flag, XPK_* variable or xpk config gives it.`,
            },
          ],
        ]
      : [],
  ),
) as Record<string, VariableDefinition>

/** Every variable xpk reads, by name. */
export const ENVIRONMENT = {
  ...settingVariables,
  XPK_TPU_ENDPOINT: {
    kind: 'endpoint',
    description:
      'The Cloud TPU API endpoint of the vm commands when --tpu-endpoint is not given, e.g. https://tpu.googleapis.com/.',
    default: 'https://tpu.googleapis.com/',
  },
  XPK_FILESTORE_ENDPOINT: {
    kind: 'endpoint',
    description:
      'The Filestore API endpoint where xpk reads, creates and deletes the instances of gcpfilestore storages, e.g. https://file.googleapis.com/.',
    default: 'https://file.googleapis.com/',
  },
  XPK_STORAGE_ENDPOINT: {
    kind: 'endpoint',
    description:
      "The Cloud Storage JSON API endpoint where xpk reads a gcsfuse storage's bucket and grants access to it (the bucket's IAM policy), e.g. https://storage.googleapis.com/.",
    default: 'https://storage.googleapis.com/',
  },
  XPK_RESOURCE_MANAGER_ENDPOINT: {
    kind: 'endpoint',
    description:
      '`doctor`: the Cloud Resource Manager API endpoint where xpk reads the project and tests the permissions xpk uses, e.g. https://cloudresourcemanager.googleapis.com/.',
    default: 'https://cloudresourcemanager.googleapis.com/',
  },
  XPK_SERVICE_USAGE_ENDPOINT: {
    kind: 'endpoint',
    description:
      '`doctor`: the Service Usage API endpoint where xpk reads which APIs the project has enabled, e.g. https://serviceusage.googleapis.com/.',
    default: 'https://serviceusage.googleapis.com/',
  },
  XPK_ACCESS_TOKEN: {
    kind: 'token',
    description:
      'An OAuth 2.0 access token used instead of Application Default Credentials for every Google API and GKE cluster xpk calls. Never printed.',
    default: 'Application Default Credentials',
  },
  XPK_POLL_INTERVAL_MS: {
    kind: 'integer',
    description:
      'The first wait between two looks at a long operation or an object being waited for; waits grow from it.',
    range: FIRST_WAIT,
    default: "each wait's own, 250-2000 ms",
  },
  XPK_RETRY_INTERVAL_MS: {
    kind: 'integer',
    description: 'The first wait before retrying a request that failed transiently; waits grow from it.',
    range: FIRST_WAIT,
    default: '1000',
  },
  XPK_CONTROLLER_TIMEOUT_S: {
    kind: 'integer',
    description:
      '`cluster create`: how long to wait for the JobSet and Kueue controllers to be Available (then exit 124).',
    range: SECONDS,
    default: '600',
  },
  XPK_CACHE_IMAGE_TIMEOUT_S: {
    kind: 'integer',
    description: '`cluster cacheimage`: how long to wait for every node to pull the image (then exit 124).',
    range: SECONDS,
    default: '1800',
  },
  XPK_WORKLOAD_DELETE_TIMEOUT_S: {
    kind: 'integer',
    description:
      '`workload delete --wait` and `workload create --replace`: how long to wait for a deleted workload to go (then exit 124).',
    range: SECONDS,
    default: '600',
  },
  XPK_SCRIPT_DIR_MAX_MB: {
    kind: 'integer',
    description:
      '`workload create` and `vm run`: the size of --script-dir, in MB, above which xpk asks before packing it (0: no limit).',
    // A terabyte: beyond it, the limit is surely a typo.
    range: {min: 0, max: 1_000_000, limit: 'MB; 0 for no limit', unit: 'MB'},
    default: '100',
  },
  XPK_CLUSTER_LOCK_STALE_S: {
    kind: 'integer',
    description:
      "`cluster create` and `cluster delete`: how old another run's cluster lock must be to be taken over (with a warning naming its holder); 0 takes over any lock at once.",
    range: {min: 0, max: 7 * 24 * 60 * 60, limit: 'seconds, a week at most; 0 takes over any lock at once', unit: 's'},
    default: '10800',
  },
  XPK_SSH_HANDSHAKE_TIMEOUT_MS: {
    kind: 'integer',
    description: '`vm run`: how long a worker may take to complete the SSH handshake before it counts as unreachable.',
    range: FIRST_WAIT,
    default: '20000',
  },
  KUBECONFIG: {
    kind: 'standard',
    owner: 'kubectl',
    description: "kubectl's list of kubeconfig files, read for --context when --kubeconfig is not given.",
    default: '~/.kube/config',
  },
  ...gcloudVariables,
  CLOUDSDK_CONFIG: {
    kind: 'standard',
    owner: 'gcloud',
    description: "gcloud's configuration directory, where the active configuration's properties are read.",
    default: '~/.config/gcloud',
  },
  CLOUDSDK_ACTIVE_CONFIG_NAME: {
    kind: 'standard',
    owner: 'gcloud',
    description: "gcloud's active configuration, instead of the one its active_config file names.",
  },
  XDG_CONFIG_HOME: {
    kind: 'standard',
    owner: 'the XDG specification',
    description:
      'Where xpk keeps config.yaml and the known hosts of TPU VMs (under xpk/); empty or a relative path means unset, as the XDG specification says.',
    default: '~/.config',
  },
  XDG_CACHE_HOME: {
    kind: 'standard',
    owner: 'the XDG specification',
    description:
      'Where xpk keeps its caches (compile cache, file digests, manifests; under xpk/); a relative path is ignored, as the XDG specification says.',
    default: '~/.cache',
  },
  XDG_STATE_HOME: {
    kind: 'standard',
    owner: 'the XDG specification',
    description:
      'Where xpk keeps the records and logs of TPU VM jobs (under xpk/vm-jobs/); a relative path is ignored, as the XDG specification says.',
    default: '~/.local/state',
  },
  TERM: {
    kind: 'standard',
    owner: 'the terminal',
    description: 'The terminal type `vm job ssh` asks the worker for, with a pseudo-terminal of your terminal’s size.',
    default: 'xterm',
  },
  HOME: {
    kind: 'standard',
    owner: 'POSIX',
    description: 'Your home directory, where the defaults above and ~/.docker and ~/.ssh are.',
  },
  TMPDIR: {
    kind: 'standard',
    owner: 'POSIX',
    description: '`vm run`: where run logs go without --log-dir (xpk-runs/).',
    default: '/tmp',
  },
  USER: {
    kind: 'standard',
    owner: 'POSIX',
    description:
      '`vm run`: the login on the workers without --ssh-user (else LOGNAME, else root); `cluster create` and `cluster delete`: the user named in the cluster lock when this user has no passwd entry.',
  },
  LOGNAME: {kind: 'standard', owner: 'POSIX', description: '`vm run`: the login on the workers when USER is not set.'},
  SSH_AUTH_SOCK: {kind: 'standard', owner: 'OpenSSH', description: "`vm run`: the SSH agent's socket, when one runs."},
  DOCKER_HOST: {
    kind: 'standard',
    owner: 'Docker',
    description: "`workload create`: the Docker engine that builds images, as Docker's own tools read it.",
    default: 'unix:///var/run/docker.sock',
  },
  GOOGLE_APPLICATION_CREDENTIALS: {
    kind: 'standard',
    owner: 'Google Cloud client libraries',
    description:
      'A credentials file (a service-account key, ...) used as Application Default Credentials; `doctor` names it and its account.',
    default: "gcloud's application_default_credentials.json",
  },
  DOCKER_CONFIG: {
    kind: 'standard',
    owner: 'Docker',
    description:
      "`workload create`: Docker's configuration directory, for credentials of registries other than Google's.",
    default: '~/.docker',
  },
} as const satisfies Record<string, VariableDefinition>

export type VariableName = keyof typeof ENVIRONMENT
export type Environment = Readonly<Record<string, string | undefined>>

function definition(name: VariableName): VariableDefinition {
  return ENVIRONMENT[name] as VariableDefinition
}

/** A variable's value when it is set; '' and blank are refused by name (unset it to get the default). */
function given(env: Environment, name: VariableName, unsetFor: string): string | undefined {
  const value = env[name]
  if (value === undefined) return undefined
  if (value.trim() === '') {
    throw new UsageError(`${name} is set but empty. Unset it (\`unset ${name}\`) ${unsetFor}, or give it a value.`)
  }
  return value
}

/** An `integer` variable's value, or undefined when unset. @throws UsageError naming the variable and its range */
export function integerVariable(env: Environment, name: VariableName): number | undefined {
  const def = definition(name)
  const range = def.range!
  const value = given(env, name, `to use the default of ${def.default} ${range.unit}`)
  if (value === undefined) return undefined
  const parsed = parseInteger(value, range)
  if ('value' in parsed) return parsed.value
  throw new UsageError(`${name}: ${parsed.problem}.`, {
    hints: [
      `Unset ${name} to use the default (${def.default}${/^\d+$/.test(def.default ?? '') ? ` ${range.unit}` : ''}).`,
    ],
  })
}

/** An `endpoint` variable's value, checked, or undefined when unset. @throws UsageError naming the variable */
export function endpointVariable(env: Environment, name: VariableName): Endpoint | undefined {
  const def = definition(name)
  const value = given(env, name, `to use ${def.default}`)
  if (value === undefined) return undefined
  const parsed = parseEndpoint(value)
  if ('problem' in parsed) {
    throw new UsageError(`${name} "${redactCredentials(escapeInline(value))}": ${parsed.problem}.`, {
      hints: [`Unset ${name} to use ${def.default}, or give a URL like ${def.default}.`],
    })
  }
  return parsed
}

/**
 * An API endpoint a command uses: its flag's value, else its variable's, else undefined (the API's default), checked
 * now, so a bad one is bad input before any request, naming where it came from.
 * @throws UsageError naming the flag or the variable
 */
export function resolveEndpointOverride(
  flag: string | undefined,
  env: Environment,
  setting: EndpointSetting & {readonly variable: VariableName},
): string | undefined {
  if (flag !== undefined) {
    parseEndpointOverride(flag, setting)
    return flag
  }
  // Checked (and refused set but empty) by endpointVariable; then used as written.
  return endpointVariable(env, setting.variable) === undefined ? undefined : given(env, setting.variable, '')
}

/** A `token` variable's value, or undefined when unset. Never quoted in a message. @throws UsageError naming it */
export function tokenVariable(env: Environment, name: VariableName): string | undefined {
  const def = definition(name)
  const value = given(env, name, `to use ${def.default}`)
  if (value === undefined) return undefined
  // A token never holds white space: "Bearer ya29..." or a pasted line break would fail every call as bad credentials.
  const problem = valueShapeProblem(value, 'word') ?? (/\s/.test(value) ? 'has white space inside' : undefined)
  if (problem) {
    // The token itself stays out of the message: it is a secret.
    throw new UsageError(`${name}: it ${problem}.`, {
      hints: ['Set it to the token alone, e.g. XPK_ACCESS_TOKEN="$(gcloud auth print-access-token)".'],
    })
  }
  return value
}

/** Checks every XPK_* variable that is set (settings excepted: they are checked with the other settings). */
export function environmentProblems(env: Environment): UsageError[] {
  const problems: UsageError[] = []
  for (const [name, def] of Object.entries(ENVIRONMENT) as [VariableName, VariableDefinition][]) {
    try {
      if (def.kind === 'integer') integerVariable(env, name)
      else if (def.kind === 'endpoint') endpointVariable(env, name)
      else if (def.kind === 'token') tokenVariable(env, name)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      problems.push(error)
    }
  }
  return problems
}

/** What a variable must hold, in words, for the README's table. */
function valueRule(def: VariableDefinition): string {
  switch (def.kind) {
    case 'setting':
      return 'the setting\'s rule ("Bad input", rule 2)'
    case 'endpoint':
      return 'an https:// URL (http:// on loopback only), no credentials, no query'
    case 'token':
      return 'a token as given, no white space'
    case 'integer':
      return `a whole number, ${def.range!.min}-${def.range!.max} ${def.range!.unit}`
    case 'standard':
      return `as ${def.owner} reads it`
  }
}

/**
 * The README's table of variables (between `<!-- environment:start -->` and `<!-- environment:end -->`), generated
 * from {@link ENVIRONMENT}; a test keeps the README in step.
 */
export function environmentTable(): string {
  const rows = Object.entries(ENVIRONMENT as Record<string, VariableDefinition>).map(([name, def]) => {
    const unset = def.kind === 'setting' ? 'xpk config, then gcloud' : (def.default ?? '—')
    return `| \`${name}\` | ${valueRule(def)} | ${unset} | ${def.description} |`
  })
  return ['| variable | value | when unset | what for |', '|---|---|---|---|', ...rows].join('\n')
}

const XDG_FALLBACKS = {XDG_CONFIG_HOME: '.config', XDG_CACHE_HOME: '.cache', XDG_STATE_HOME: '.local/state'} as const

/**
 * An XDG base directory: the variable when it holds an absolute path, else `<home>/.config` or `<home>/.cache`. The
 * specification says a relative path is invalid and to be ignored, like an empty one (bin/run.js, which runs before
 * this bundle, reads XDG_CACHE_HOME by the same rule for Node's compile cache).
 */
export function xdgDirectory(env: Environment, name: keyof typeof XDG_FALLBACKS, home: string): string {
  const value =
    name === 'XDG_CONFIG_HOME'
      ? env.XDG_CONFIG_HOME
      : name === 'XDG_CACHE_HOME'
        ? env.XDG_CACHE_HOME
        : env.XDG_STATE_HOME
  return value?.startsWith('/') ? value : `${home.replace(/\/+$/, '')}/${XDG_FALLBACKS[name]}`
}
