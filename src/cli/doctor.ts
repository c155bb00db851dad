/**
 * `xpk doctor`, a topic of its own: its flags, read at start-up, and its wiring, imported when it runs: the
 * settings, the Google APIs it reads (Cloud Resource Manager, Service Usage, Compute Engine, GKE), the cluster, the
 * Docker engine and the registry credentials, each on first use.
 */
import * as Flags from '@oclif/core/flags'

import type {DoctorReport} from '../services/doctor.js'
import type {Invocation} from './base-command.js'
import {startCommand} from './command-start.js'
import {integerFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {acceleratorFlags, gkeEndpointFlag, kubeAccessFlags, targetFlags} from './flags.js'

/** How long one check may take. */
const CHECK_TIME_LIMIT_MS = 20_000

export const doctorFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  'compute-endpoint': Flags.string({
    description: 'Compute Engine API endpoint, for quotas and reservations. [env: XPK_COMPUTE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
  ...kubeAccessFlags,
  registry: Flags.string({
    description:
      'The registry whose credentials to check, e.g. us-docker.pkg.dev/PROJECT/REPO. [default: gcr.io/PROJECT] [env: XPK_REGISTRY]',
  }),
  ...acceleratorFlags,
  'num-slices': integerFlag('doctor:num-slices', {
    description: 'With --tpu-type: the slices to check quota or reservations for. [default: 1]',
    helpGroup: 'ACCELERATOR',
  }),
  reservation: Flags.string({
    ...valueShape('list'),
    description: "With --tpu-type: check these reservations' room instead of the quota: NAME[,NAME2].",
    exclusive: ['spot'],
    helpGroup: 'ACCELERATOR',
  }),
  spot: Flags.boolean({
    description: 'With --tpu-type: check the Spot (preemptible) quota.',
    exclusive: ['reservation'],
    helpGroup: 'ACCELERATOR',
  }),
}

/** `xpk doctor`: the checks, printed as a table; any failure is exit 1, with the report still printed. */
export async function doctor(options: FlagOptions<typeof doctorFlags>, run: Invocation): Promise<DoctorReport> {
  const [{doctorCapacity}, {doctorEndpoints}] = await Promise.all([
    import('../core/doctor/inputs.js'),
    import('../core/doctor/endpoints.js'),
  ])
  const capacity = doctorCapacity(options)
  const [{wiring, settings, timing}, {runDoctor}, {renderDoctor}, {DoctorFailed}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/doctor.js'),
    import('../core/doctor/render.js'),
    import('../core/doctor/failure.js'),
  ])
  const endpoints = doctorEndpoints(process.env)
  const token = wiring.accessToken()
  const connection = (endpoint: string | undefined) => ({endpoint, accessToken: token})
  const report = await runDoctor(
    {
      ...wiring.clusterTarget(settings),
      viaKubeconfig: wiring.viaKubeconfig(options),
      capacity,
      registry: settings.registry.value,
      xpkVersion: run.version,
      nodeVersion: process.version,
      timing,
      checkTimeLimitMs: CHECK_TIME_LIMIT_MS,
    },
    {
      ...wiring.systemClock,
      signal: run.signal,
      credentials: async () => {
        const {AdcCredentialsProbe} = await import('../adapters/google-credentials.js')
        return new AdcCredentialsProbe({accessToken: token})
      },
      resourceManager: async () =>
        (await import('../adapters/resource-manager-rest.js')).createResourceManagerClient(
          connection(endpoints.resourceManager),
        ),
      serviceUsage: async () =>
        (await import('../adapters/service-usage-rest.js')).createServiceUsageClient(
          connection(endpoints.serviceUsage),
        ),
      compute: async () =>
        (await import('../adapters/compute-rest.js')).createComputeClient(
          connection(settings['compute-endpoint'].value),
        ),
      gke: wiring.gkeConnector(settings),
      kube: wiring.kubeConnector(options),
      engine: async () => new (await import('../adapters/docker-engine.js')).DockerEngine(),
      registryCredentials: async () => {
        const {DockerAndGoogleCredentials} = await import('../adapters/registry-credentials.js')
        return new DockerAndGoogleCredentials(token ? {googleAccessToken: async () => token} : {})
      },
    },
  )
  run.console.result(renderDoctor(report))
  if (report.summary.fail > 0) throw new DoctorFailed(report)
  return report
}

/** What `xpk doctor --json` prints when a check failed: the report, as when none did. Undefined for other errors. */
export async function doctorFailureJson(error: unknown): Promise<DoctorReport | undefined> {
  const {DoctorFailed} = await import('../core/doctor/failure.js')
  return error instanceof DoctorFailed ? error.report : undefined
}
