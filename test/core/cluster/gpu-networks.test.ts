// The GPU networks of each type, held against Python xpk's network.py for A3 High (its gcloud commands and
// CLUSTER_NETWORK_YAML) and against Python's blueprints with Cluster Toolkit's modules for A3 Mega, A3 Ultra and A4;
// what counts as a network "as xpk makes it", and which resources `cluster delete` takes as the cluster's own.
import {describe, expect, it} from 'vitest'

import {
  additionalNodeNetworks,
  gpuNetworkDifferences,
  gpuNetworkObjects,
  gpuNetworksFor,
  firewallsOf,
  ownGpuNetworkResources,
  uniqueNetworks,
  type GpuNetwork,
} from '../../../src/core/cluster/gpu-networks.js'
import {findAccelerator} from '../../../src/core/catalog/lookup.js'
import {defaultGpuNetworks} from '../../../src/core/manifests/jobset.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'

const CLUSTER = {project: 'p1', region: 'us-central1', zone: 'us-central1-c', name: 'c1'}
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
        deviceMode: 'NetDevice',
      })),
    )
    expect(additionalNodeNetworks(a3High())[3]).toEqual({network: 'c1-net-4', subnetwork: 'c1-us-central1-sub-4'})
  })

  const ALLOW_ALL = [
    {protocol: 'tcp', ports: ['0-65535']},
    {protocol: 'udp', ports: ['0-65535']},
    {protocol: 'icmp', ports: []},
  ]

  it("gives A3 Mega the blueprint's multivpc: 8 networks gpunet-0..7, one /24 of 192.169.0.0/16 and one rule each", () => {
    // blueprint_generator.py: multivpc network_name_prefix c1-gpunet, global_ip_address_range 192.169.0.0/16,
    // network_count 8, subnetwork_cidr_suffix 24 (mtu: multivpc's default 8896); the vpc module per network: subnetwork
    // <net>-subnet spanning cidrsubnet(192.169.0.0/16, 8, i), rule <net>-fw-allow-internal-traffic from that range;
    // gke-cluster k8s_network_names gvnic_prefix c1-gpunet-, gvnic_postfix -subnet, gvnic_start_index 0.
    expect(gpuNetworksFor(findAccelerator('h100-mega-80gb-8')!, CLUSTER)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i): GpuNetwork => ({
        network: {project: 'p1', name: `c1-gpunet-${i}`, mtu: 8896, networkProfile: null},
        subnetwork: {
          project: 'p1',
          region: 'us-central1',
          name: `c1-gpunet-${i}-subnet`,
          network: `c1-gpunet-${i}`,
          ipCidrRange: `192.169.${i}.0/24`,
        },
        firewall: {
          project: 'p1',
          name: `c1-gpunet-${i}-fw-allow-internal-traffic`,
          network: `c1-gpunet-${i}`,
          sourceRanges: [`192.169.${i}.0/24`],
          allowed: ALLOW_ALL,
        },
        podNetwork: `c1-gpunet-${i}-subnet`,
        deviceMode: 'NetDevice',
      })),
    )
  })

  it.each(['h200-141gb-8', 'b200-8'])(
    "gives %s the blueprint's net-1 and RDMA network with 8 subnetworks, /21s of 192.168.128.0/18",
    (type) => {
      // blueprint_generator.py: c1-net-1 (vpc module, mtu 8896, subnetwork c1-sub-1 192.168.64.0/18, rule
      // c1-internal-1 from 192.168.0.0/16); c1-rdma-net (gpu-rdma-vpc, mtu 8896, network_profile <zone>-vpc-roce,
      // subnetworks_template c1-rdma-sub x8 in 192.168.128.0/18: cidrsubnet(range, ceil(log2 8) = 3, i); no rules);
      // k8s_network_names gvnic_prefix c1-sub- from 1, rdma_prefix c1-rdma-sub- from 0.
      const networks = gpuNetworksFor(findAccelerator(type)!, CLUSTER)
      expect(networks[0]).toEqual({
        network: {project: 'p1', name: 'c1-net-1', mtu: 8896, networkProfile: null},
        subnetwork: {
          project: 'p1',
          region: 'us-central1',
          name: 'c1-sub-1',
          network: 'c1-net-1',
          ipCidrRange: '192.168.64.0/18',
        },
        firewall: {
          project: 'p1',
          name: 'c1-internal-1',
          network: 'c1-net-1',
          sourceRanges: ['192.168.0.0/16'],
          allowed: ALLOW_ALL,
        },
        podNetwork: 'c1-sub-1',
        deviceMode: 'NetDevice',
      })
      const starts = [128, 136, 144, 152, 160, 168, 176, 184]
      expect(networks.slice(1)).toEqual(
        starts.map((start, i): GpuNetwork => ({
          network: {project: 'p1', name: 'c1-rdma-net', mtu: 8896, networkProfile: 'us-central1-c-vpc-roce'},
          subnetwork: {
            project: 'p1',
            region: 'us-central1',
            name: `c1-rdma-sub-${i}`,
            network: 'c1-rdma-net',
            ipCidrRange: `192.168.${start}.0/21`,
          },
          firewall: null,
          podNetwork: `c1-rdma-sub-${i}`,
          deviceMode: 'RDMA',
        })),
      )
      expect(uniqueNetworks(networks).map((n) => n.name)).toEqual(['c1-net-1', 'c1-rdma-net'])
      expect(firewallsOf(networks).map((f) => f.name)).toEqual(['c1-internal-1'])
    },
  )

  it.each(['gb200-4', 'gb200-4-nolssd', 'a100-40gb-8', 'l4-1', 'v5p-8'])(
    '%s gets none (GB200: GKE makes them through the accelerator network profile; the others need none)',
    (name) => {
      expect(gpuNetworksFor(findAccelerator(name)!, CLUSTER)).toEqual([])
    },
  )

  it('no subnetwork ranges overlap within a type', () => {
    const toRange = (cidr: string) => {
      const [ip, bits] = cidr.split('/')
      const start = ip!.split('.').reduce((a, o) => a * 256 + Number(o), 0)
      return [start, start + 2 ** (32 - Number(bits))] as const
    }
    let pairs = 0
    for (const type of ['h100-80gb-8', 'h100-mega-80gb-8', 'h200-141gb-8', 'b200-8']) {
      const ranges = gpuNetworksFor(findAccelerator(type)!, CLUSTER).map((n) => toRange(n.subnetwork.ipCidrRange))
      for (const [i, a] of ranges.entries()) {
        for (const b of ranges.slice(i + 1)) {
          pairs++
          expect(a[1] <= b[0] || b[1] <= a[0]).toBe(true)
        }
      }
    }
    expect(pairs).toBe(6 + 28 + 36 + 36)
  })
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

describe("the workload's assumed network names (--dry-run --offline) are the ones cluster create makes", () => {
  it.each(['h100-mega-80gb-8', 'h200-141gb-8', 'b200-8'])('%s', (type) => {
    const made = gpuNetworksFor(findAccelerator(type)!, CLUSTER).map((n) => n.podNetwork)
    expect(defaultGpuNetworks(aWorkloadSpec({type, cluster: 'c1'}))).toEqual(made)
  })
})

describe('gpuNetworkObjects of the blueprint types', () => {
  it("are Cluster Toolkit's templates: a GKENetworkParamSet per subnetwork, RDMA ones in RDMA device mode", () => {
    const objects = gpuNetworkObjects(gpuNetworksFor(findAccelerator('h200-141gb-8')!, CLUSTER))
    const sets = objects.filter((o) => o.kind === 'GKENetworkParamSet')
    expect(sets.map((o) => [o.metadata.name, o.spec])).toEqual([
      ['c1-sub-1', {vpc: 'c1-net-1', vpcSubnet: 'c1-sub-1', deviceMode: 'NetDevice'}],
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => [
        `c1-rdma-sub-${i}`,
        {vpc: 'c1-rdma-net', vpcSubnet: `c1-rdma-sub-${i}`, deviceMode: 'RDMA'},
      ]),
    ])
    expect(objects.filter((o) => o.kind === 'Network').map((o) => o.metadata.name)).toEqual(
      sets.map((o) => o.metadata.name),
    )
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
        first!.firewall!.name,
        {...first!.firewall!, direction: 'INGRESS', sourceRanges: over.sources ?? first!.firewall!.sourceRanges},
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
  it("takes only the names cluster create gives (every GPU type's), numbered, in the cluster's region", () => {
    const named = (names: string[]) => names.map((name) => ({name}))
    const found = ownGpuNetworkResources('c1', 'us-central1', {
      networks: named([
        'c1-net-10',
        'c1-net-2',
        'c1-net-x',
        'c1-net-2-b',
        'c10-net-1',
        'other-net-1',
        'c1-rdma-net',
        'c1-rdma-net-2',
        'c1-gpunet-7',
        'c1-gpunet-a',
        'c1-x-gpunet-1',
      ]) as never,
      subnetworks: named([
        'c1-us-central1-sub-1',
        'c1-us-east1-sub-1',
        'c1-sub-1',
        'c1-sub-x',
        'c1-rdma-sub-0',
        'c1-rdma-sub-7',
        'c1-rdma-sub',
        'c1-gpunet-3-subnet',
        'c1-gpunet-3-subnet-2',
      ]) as never,
      firewalls: named([
        'c1-internal-1',
        'c1-internal',
        'default-allow-ssh',
        'c1-gpunet-0-fw-allow-internal-traffic',
        'c1-gpunet-0-fw-allow-iap-ingress',
      ]) as never,
    })
    expect(found).toEqual({
      networks: ['c1-gpunet-7', 'c1-net-2', 'c1-net-10', 'c1-rdma-net'],
      subnetworks: ['c1-gpunet-3-subnet', 'c1-rdma-sub-0', 'c1-rdma-sub-7', 'c1-sub-1', 'c1-us-central1-sub-1'],
      firewalls: ['c1-gpunet-0-fw-allow-internal-traffic', 'c1-internal-1'],
    })
  })

  it.each(['h100-80gb-8', 'h100-mega-80gb-8', 'h200-141gb-8', 'b200-8'])(
    'takes every resource cluster create makes for %s',
    (type) => {
      const networks = gpuNetworksFor(findAccelerator(type)!, CLUSTER)
      const found = ownGpuNetworkResources('c1', 'us-central1', {
        networks: uniqueNetworks(networks) as never,
        subnetworks: networks.map((n) => n.subnetwork) as never,
        firewalls: firewallsOf(networks) as never,
      })
      expect(found.networks.length).toBe(uniqueNetworks(networks).length)
      expect(found.subnetworks.length).toBe(networks.length)
      expect(found.firewalls.length).toBe(firewallsOf(networks).length)
    },
  )
})
