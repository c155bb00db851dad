// The GPU networks of A3 High, held against Python xpk's network.py (its gcloud commands and CLUSTER_NETWORK_YAML),
// what counts as a network "as xpk makes it", and which resources `cluster delete` takes as the cluster's own.
import {describe, expect, it} from 'vitest'

import {
  additionalNodeNetworks,
  gpuNetworkDifferences,
  gpuNetworkObjects,
  gpuNetworksFor,
  ownGpuNetworkResources,
  type GpuNetwork,
} from '../../../src/core/cluster/gpu-networks.js'
import {findAccelerator} from '../../../src/core/catalog/lookup.js'

const CLUSTER = {project: 'p1', region: 'us-central1', name: 'c1'}
const a3High = () => gpuNetworksFor(findAccelerator('h100-80gb-8')!, CLUSTER)

describe('gpuNetworksFor', () => {
  it("gives A3 High Python's four networks: gcloud's flags, field for field", () => {
    // gcloud compute networks create c1-net-<i> --subnet-mode=custom --mtu=8244
    // gcloud compute networks subnets create c1-<loc>-sub-<i> --network=c1-net-<i> --region=<region> --range=192.168.<i>.0/24
    // gcloud compute firewall-rules create c1-internal-<i> --network=c1-net-<i> --action=ALLOW
    //   --rules=tcp:0-65535,udp:0-65535,icmp --source-ranges=192.168.0.0/16
    expect(a3High()).toEqual(
      [1, 2, 3, 4].map((i): GpuNetwork => ({
        network: {project: 'p1', name: `c1-net-${i}`, mtu: 8244, networkProfile: null},
        subnetwork: {
          project: 'p1',
          region: 'us-central1',
          name: `c1-us-central1-sub-${i}`,
          network: `c1-net-${i}`,
          ipCidrRange: `192.168.${i}.0/24`,
        },
        firewall: {
          project: 'p1',
          name: `c1-internal-${i}`,
          network: `c1-net-${i}`,
          sourceRanges: ['192.168.0.0/16'],
          allowed: [
            {protocol: 'tcp', ports: ['0-65535']},
            {protocol: 'udp', ports: ['0-65535']},
            {protocol: 'icmp', ports: []},
          ],
        },
        podNetwork: `vpc${i}`,
      })),
    )
    expect(additionalNodeNetworks(a3High())[3]).toEqual({network: 'c1-net-4', subnetwork: 'c1-us-central1-sub-4'})
  })

  it.each(['h100-mega-80gb-8', 'h200-141gb-8', 'b200-8', 'gb200-4', 'a100-40gb-8', 'l4-1', 'v5p-8'])(
    '%s gets none (not built yet, or needs none)',
    (name) => {
      expect(gpuNetworksFor(findAccelerator(name)!, CLUSTER)).toEqual([])
    },
  )
})

describe('gpuNetworkObjects', () => {
  it("are Python's CLUSTER_NETWORK_YAML, but for vpcSubnet: the subnetwork Python actually creates", () => {
    const objects = gpuNetworkObjects(a3High())
    expect(objects.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      ...[1, 2, 3, 4].map((i) => `Network vpc${i}`),
      ...[1, 2, 3, 4].map((i) => `GKENetworkParamSet vpc${i}`),
    ])
    expect(objects[0]).toEqual({
      apiVersion: 'networking.gke.io/v1',
      kind: 'Network',
      metadata: {name: 'vpc1'},
      spec: {parametersRef: {group: 'networking.gke.io', kind: 'GKENetworkParamSet', name: 'vpc1'}, type: 'Device'},
    })
    // Python: vpcSubnet: {cluster_name}-sub-1, a name it never creates (it creates c1-<location>-sub-1).
    expect(objects[4]).toEqual({
      apiVersion: 'networking.gke.io/v1',
      kind: 'GKENetworkParamSet',
      metadata: {name: 'vpc1'},
      spec: {vpc: 'c1-net-1', vpcSubnet: 'c1-us-central1-sub-1', deviceMode: 'NetDevice'},
    })
  })
})

describe('gpuNetworkDifferences', () => {
  const [first] = a3High()
  const observed = (over: {mtu?: number; range?: string; sources?: string[]; auto?: boolean; profile?: string}) => ({
    networks: new Map([
      [
        first!.network.name,
        {
          name: first!.network.name,
          mtu: over.mtu ?? 8244,
          autoCreateSubnetworks: over.auto ?? false,
          networkProfile: over.profile ?? null,
          subnetworks: [],
        },
      ],
    ]),
    subnetworks: new Map([
      [first!.subnetwork.name, {...first!.subnetwork, ipCidrRange: over.range ?? first!.subnetwork.ipCidrRange}],
    ]),
    firewalls: new Map([
      [
        first!.firewall.name,
        {...first!.firewall, direction: 'INGRESS', sourceRanges: over.sources ?? first!.firewall.sourceRanges},
      ],
    ]),
  })

  it.each([
    {case: 'all as xpk makes them', over: {}, want: []},
    {case: 'another MTU', over: {mtu: 1460}, want: ['network c1-net-1 has MTU 1460, not 8244']},
    {case: 'auto subnet mode', over: {auto: true}, want: ['network c1-net-1 is in auto subnet mode, not custom']},
    {
      case: 'a network profile',
      over: {profile: 'us-central1-a-vpc-roce'},
      want: ['network c1-net-1 has network profile us-central1-a-vpc-roce, not none'],
    },
    {
      case: 'another range',
      over: {range: '10.0.0.0/24'},
      want: ['subnetwork c1-us-central1-sub-1 has range 10.0.0.0/24, not 192.168.1.0/24'],
    },
    {
      case: 'other sources',
      over: {sources: ['0.0.0.0/0']},
      want: [
        'firewall rule c1-internal-1 allows tcp:0-65535 udp:0-65535 icmp from 0.0.0.0/0, not tcp:0-65535 udp:0-65535 icmp from 192.168.0.0/16',
      ],
    },
  ])('$case', ({over, want}) => {
    expect(gpuNetworkDifferences(a3High(), observed(over))).toEqual(want)
  })
})

describe('ownGpuNetworkResources', () => {
  it("takes only the names cluster create gives, numbered, in the cluster's region", () => {
    const named = (names: string[]) => names.map((name) => ({name}))
    const found = ownGpuNetworkResources('c1', 'us-central1', {
      networks: named(['c1-net-10', 'c1-net-2', 'c1-net-x', 'c1-net-2-b', 'c10-net-1', 'other-net-1']) as never,
      subnetworks: named(['c1-us-central1-sub-1', 'c1-us-east1-sub-1', 'c1-sub-1']) as never,
      firewalls: named(['c1-internal-1', 'c1-internal', 'default-allow-ssh']) as never,
    })
    expect(found).toEqual({
      networks: ['c1-net-2', 'c1-net-10'],
      subnetworks: ['c1-us-central1-sub-1'],
      firewalls: ['c1-internal-1'],
    })
  })
})
