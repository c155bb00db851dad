// `cluster create --enable-autoprovisioning`, `--custom-cluster-arguments` and `--host-maintenance-interval`: the
// input rules (as Python xpk's), and the API requests they make (goldens of the messages sent).
import {describe, expect, it} from 'vitest'

import {toApiCluster, toApiClusterUpdate} from '../../../src/adapters/gke-container-api.js'
import {CUSTOM_CLUSTER_FLAGS, parseCustomClusterArguments} from '../../../src/core/cluster/custom-args.js'
import {desiredClusterFromFlags, type ClusterCreateFlags} from '../../../src/core/cluster/desired.js'
import {planCluster} from '../../../src/core/cluster/plan.js'
import {exitCodeFor, UsageError, UsageErrors} from '../../../src/core/errors.js'
import {clusterConfigMaps} from '../../../src/core/incluster/configmaps.js'
import {kueueConfiguration} from '../../../src/core/incluster/kueue.js'
import {anObservedCluster} from '../../builders/observed.js'
import {expectGolden} from '../../helpers/golden.js'
import {thrown} from '../../helpers/thrown.js'

const BASE: ClusterCreateFlags = {project: 'test-project', zone: 'us-central2-b', cluster: 'demo', onDemand: true}
const nap = (flags: ClusterCreateFlags) =>
  desiredClusterFromFlags({...BASE, tpuType: 'tpu7x-8', enableAutoprovisioning: true, ...flags})

const problemsOf = (error: unknown): UsageError[] =>
  error instanceof UsageErrors ? [...error.problems] : error instanceof UsageError ? [error] : []

/** The flags of the usage problems `flags` give (none: accepted). */
function refusedFlags(flags: ClusterCreateFlags): string[] {
  try {
    desiredClusterFromFlags({...BASE, ...flags})
    return []
  } catch (error) {
    return problemsOf(error).map((p) => p.flag ?? '')
  }
}

describe('--enable-autoprovisioning: chips as Python xpk decides them', () => {
  it.each<{case: string; flags: ClusterCreateFlags; chips: [number, number]}>([
    {case: 'defaults: 0 to the chips of one slice', flags: {}, chips: [0, 4]},
    {case: 'defaults with 3 slices', flags: {numSlices: '3'}, chips: [0, 12]},
    {case: 'a maximum given', flags: {autoprovisioningMaxChips: '64'}, chips: [0, 64]},
    {case: 'both given', flags: {autoprovisioningMinChips: '8', autoprovisioningMaxChips: '64'}, chips: [8, 64]},
    {
      case: '--num-slices 0 with a maximum (no fixed pool)',
      flags: {numSlices: '0', autoprovisioningMaxChips: '16'},
      chips: [0, 16],
    },
  ])('$case', ({flags, chips}) => {
    const desired = nap(flags)
    expect(desired.autoprovisioning).toEqual({minimumChips: chips[0], maximumChips: chips[1]})
    expect(desired.spec.autoprovisioning?.resourceLimits).toEqual([
      {resourceType: 'cpu', minimum: 1, maximum: 1_000_000},
      {resourceType: 'memory', minimum: 1, maximum: 10_000_000},
      {resourceType: 'tpu7x', minimum: chips[0], maximum: chips[1]},
    ])
  })

  it.each<{case: string; flags: ClusterCreateFlags; flag: string}>([
    {
      case: 'a GPU type',
      flags: {deviceType: 'h100-80gb-8', enableAutoprovisioning: true},
      flag: '--enable-autoprovisioning',
    },
    {
      case: 'a CPU type',
      flags: {deviceType: 'n2-standard-32-4', enableAutoprovisioning: true},
      flag: '--enable-autoprovisioning',
    },
    {
      case: 'maximum equal to the minimum',
      flags: {
        tpuType: 'tpu7x-8',
        enableAutoprovisioning: true,
        autoprovisioningMinChips: '8',
        autoprovisioningMaxChips: '8',
      },
      flag: '--autoprovisioning-max-chips',
    },
    {
      case: 'maximum below the minimum',
      flags: {
        tpuType: 'tpu7x-8',
        enableAutoprovisioning: true,
        autoprovisioningMinChips: '8',
        autoprovisioningMaxChips: '4',
      },
      flag: '--autoprovisioning-max-chips',
    },
    {
      case: '--num-slices 0 and no maximum: nothing to provision',
      flags: {tpuType: 'tpu7x-8', enableAutoprovisioning: true, numSlices: '0'},
      flag: '--autoprovisioning-max-chips',
    },
    {
      case: 'a negative minimum',
      flags: {tpuType: 'tpu7x-8', enableAutoprovisioning: true, autoprovisioningMinChips: '-1'},
      flag: '--autoprovisioning-min-chips',
    },
    {
      case: 'min chips without --enable-autoprovisioning',
      flags: {tpuType: 'tpu7x-8', autoprovisioningMinChips: '0'},
      flag: '--autoprovisioning-min-chips',
    },
    {
      case: 'max chips without --enable-autoprovisioning',
      flags: {tpuType: 'tpu7x-8', autoprovisioningMaxChips: '8'},
      flag: '--autoprovisioning-max-chips',
    },
    {
      case: 'an unknown host maintenance interval',
      flags: {tpuType: 'tpu7x-8', hostMaintenanceInterval: 'WEEKLY'},
      flag: '--host-maintenance-interval',
    },
  ])('refused: $case (exit 2, naming $flag)', ({flags, flag}) => {
    expect(refusedFlags(flags)).toEqual([flag])
    expect(exitCodeFor(thrown(() => desiredClusterFromFlags({...BASE, ...flags}), UsageError).kind)).toBe(2)
  })

  it('AS_NEEDED (any case) is accepted and is the default; PERIODIC (any case) is taken to every pool', () => {
    expect(nap({hostMaintenanceInterval: 'as_needed'}).poolTemplate.hostMaintenanceInterval).toBe('AS_NEEDED')
    expect(nap({}).poolTemplate.hostMaintenanceInterval).toBe('AS_NEEDED')
    expect(nap({hostMaintenanceInterval: 'PERIODIC'}).poolTemplate.hostMaintenanceInterval).toBe('PERIODIC')
    expect(nap({hostMaintenanceInterval: 'periodic'}).poolTemplate.hostMaintenanceInterval).toBe('PERIODIC')
  })
})

describe('the requests node auto-provisioning makes (goldens)', () => {
  const desired = nap({autoprovisioningMaxChips: '16'})
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

  it('a new cluster: CreateCluster carries the cluster autoscaling', () => {
    const created = toApiCluster(desired.spec)
    expect(created.autoscaling?.enableNodeAutoprovisioning).toBe(true)
    expectGolden('requests/create-cluster-nap-tpu7x-8.json', json(created))
  })

  it('an existing cluster: one UpdateCluster with desiredClusterAutoscaling, the profile kept', () => {
    const plan = planCluster(desired, anObservedCluster())
    const update = plan.steps.find((s) => s.resource === 'clusterUpdate')
    expect(update?.action).toBe('update')
    if (update?.resource !== 'clusterUpdate') throw new Error('no update')
    const sent = toApiClusterUpdate(update.spec)
    expect(Object.keys(sent)).toEqual(['desiredClusterAutoscaling'])
    expectGolden('requests/update-cluster-nap-tpu7x-8.json', json(sent))
  })

  it('Kueue quota is the maximum chips, the flavor names the accelerator alone; the ConfigMap says AUTOPROVISION', () => {
    const shape = {
      clusterName: 'demo',
      accelerator: desired.accelerator,
      numSlices: 1,
      numNodes: 0,
      capacity: 'on-demand' as const,
      reservation: null,
      autoprovisioning: desired.autoprovisioning,
    }
    const kueue = kueueConfiguration(shape, {topologyAwareScheduling: false})
    expect(kueue.resourceFlavor.spec).toEqual({nodeLabels: {'cloud.google.com/gke-tpu-accelerator': 'tpu7x'}})
    expect(kueue.clusterQueue.spec.resourceGroups[0]!.flavors[0]!.resources).toEqual([
      {name: 'google.com/tpu', nominalQuota: 16},
    ])
    expect(clusterConfigMaps(shape, {xpkVersion: '1.0.0'}).resources.data).toEqual({
      tpu7x: 'AUTOPROVISION',
      minimum_chips: '0',
      maximum_chips: '16',
    })
  })
})

describe('--custom-cluster-arguments: gcloud cluster flags mapped to the create request', () => {
  const request = (text: string) =>
    toApiCluster(desiredClusterFromFlags({...BASE, tpuType: 'v5p-8', private: true, customClusterArguments: text}).spec)

  it.each<[string, (api: ReturnType<typeof toApiCluster>) => unknown, unknown]>([
    ['--network=mtu9k --subnetwork=mtu9k', (c) => [c.network, c.subnetwork], ['mtu9k', 'mtu9k']],
    ['--cluster-ipv4-cidr=10.224.0.0/12', (c) => c.ipAllocationPolicy?.clusterIpv4CidrBlock, '10.224.0.0/12'],
    ['--services-ipv4-cidr 10.0.0.0/20', (c) => c.ipAllocationPolicy?.servicesIpv4CidrBlock, '10.0.0.0/20'],
    ['--cluster-secondary-range-name=pods', (c) => c.ipAllocationPolicy?.clusterSecondaryRangeName, 'pods'],
    ['--services-secondary-range-name=svc', (c) => c.ipAllocationPolicy?.servicesSecondaryRangeName, 'svc'],
    ['--stack-type=ipv4_ipv6', (c) => c.ipAllocationPolicy?.stackType, 'IPV4_IPV6'],
    ['--master-ipv4-cidr 172.16.0.32/28', (c) => c.privateClusterConfig?.masterIpv4CidrBlock, '172.16.0.32/28'],
    ['--no-enable-master-authorized-networks', (c) => c.masterAuthorizedNetworksConfig, {enabled: false}],
    ['--default-max-pods-per-node=64', (c) => c.defaultMaxPodsConstraint, {maxPodsPerNode: 64}],
    ['--description="big run"', (c) => c.description, 'big run'],
    ['--labels=team=ml,env=dev', (c) => c.resourceLabels, {team: 'ml', env: 'dev', gke_product_type: 'xpk'}],
    ['--labels=gke_product_type=other', (c) => c.resourceLabels, {gke_product_type: 'xpk'}],
    ['--enable-shielded-nodes', (c) => c.shieldedNodes, {enabled: true}],
    ['--no-enable-shielded-nodes', (c) => c.shieldedNodes, {enabled: false}],
    ['--enable-intra-node-visibility', (c) => c.networkConfig?.enableIntraNodeVisibility, true],
    ['--enable-l4-ilb-subsetting', (c) => c.networkConfig?.enableL4ilbSubsetting, true],
    ['--gateway-api=standard', (c) => c.networkConfig?.gatewayApiConfig, {channel: 'CHANNEL_STANDARD'}],
    [
      '--logging=SYSTEM,WORKLOAD',
      (c) => c.loggingConfig,
      {componentConfig: {enableComponents: ['SYSTEM_COMPONENTS', 'WORKLOADS']}},
    ],
    ['--monitoring=SYSTEM', (c) => c.monitoringConfig, {componentConfig: {enableComponents: ['SYSTEM_COMPONENTS']}}],
    ['--enable-managed-prometheus', (c) => c.monitoringConfig, {managedPrometheusConfig: {enabled: true}}],
    [
      '--maintenance-window=03:30',
      (c) => c.maintenancePolicy,
      {window: {dailyMaintenanceWindow: {startTime: '03:30'}}},
    ],
    [
      '--database-encryption-key=projects/p/locations/l/keyRings/r/cryptoKeys/k',
      (c) => c.databaseEncryption,
      {state: 'ENCRYPTED', keyName: 'projects/p/locations/l/keyRings/r/cryptoKeys/k'},
    ],
    ['--image-type=COS_CONTAINERD', (c) => c.nodePools?.[0]?.config?.imageType, 'COS_CONTAINERD'],
    [
      '--disk-type=pd-ssd --disk-size=200GB',
      (c) => [c.nodePools?.[0]?.config?.diskType, c.nodePools?.[0]?.config?.diskSizeGb],
      ['pd-ssd', 200],
    ],
    [
      '--service-account=sa@p.iam.gserviceaccount.com',
      (c) => c.nodePools?.[0]?.config?.serviceAccount,
      'sa@p.iam.gserviceaccount.com',
    ],
    ['--tags=a,b', (c) => c.nodePools?.[0]?.config?.tags, ['a', 'b']],
    ['--enable-image-streaming', (c) => c.nodePools?.[0]?.config?.gcfsConfig, {enabled: true}],
    ['--enable-cost-allocation', (c) => c.costManagementConfig, {enabled: true}],
    [
      '--security-group=gke-security-groups@example.com',
      (c) => c.authenticatorGroupsConfig,
      {enabled: true, securityGroup: 'gke-security-groups@example.com'},
    ],
    // Python xpk's own flags, repeated by its large-scale guide: what xpk sends anyway.
    ['--enable-ip-alias --scopes=storage-full,gke-default', (c) => c.ipAllocationPolicy?.useIpAliases, true],
  ])('%s', (text, read, expected) => {
    expect(read(request(text))).toEqual(expected)
  })

  it.each<[string, string]>([
    ['--enable-private-nodes', 'xpk sets this itself; use --private'],
    ['--cluster-version=1.30', 'xpk sets this itself; use --gke-version'],
    ['--num-nodes=3', 'xpk sets this itself; use --default-pool-cpu-num-nodes'],
    ['--enable-autoprovisioning', 'xpk sets this itself; use --enable-autoprovisioning'],
    ['--addons=GcsFuseCsiDriver', 'xpk sets this itself; use the --enable-*-csi-driver flags'],
    ['--scopes=cloud-platform', 'storage-full,gke-default'],
    ['--cluster-ipv4-cidr=10.0.0.0/33', 'is not an IPv4 CIDR'],
    ['--maintenance-window=25:00', 'is not a start time'],
    ['--enable-shielded-nodes=true', 'takes no value'],
    ['--network', 'needs a value'],
    ['--enable-tpu', 'cannot be mapped to the GKE API by xpk'],
    ['network=x', 'expected --name=value flags'],
    ['--constructor', 'cannot be mapped to the GKE API by xpk'],
  ])('refused: %s', (text, why) => {
    const error = thrown(() => parseCustomClusterArguments(text, '--custom-cluster-arguments'), UsageError)
    expect(error.flag).toBe('--custom-cluster-arguments')
    expect(error.message).toContain('--custom-cluster-arguments')
    expect(error.message).toContain(why)
  })

  it('every mapped flag and every flag xpk owns is tried above or in a rule of the table', () => {
    expect(CUSTOM_CLUSTER_FLAGS.mapped.length).toBeGreaterThan(30)
    expect(CUSTOM_CLUSTER_FLAGS.mapped.filter((f) => CUSTOM_CLUSTER_FLAGS.ownedByXpk.includes(f))).toEqual([])
  })

  it.each<[ClusterCreateFlags, string]>([
    [{network: 'a', customClusterArguments: '--network=b'}, '--custom-cluster-arguments'],
    [
      {
        authorizedNetworks: ['10.0.0.0/8'],
        private: true,
        customClusterArguments: '--no-enable-master-authorized-networks',
      },
      '--custom-cluster-arguments',
    ],
    [{customClusterArguments: '--master-ipv4-cidr=172.16.0.32/28'}, '--custom-cluster-arguments'],
  ])('contradicting the xpk flags is refused: %o', (flags, flag) => {
    expect(refusedFlags({tpuType: 'v5p-8', ...flags})).toEqual([flag])
  })
})
