/**
 * The extra VPC networks of GPU clusters whose NICs GPUDirect uses, named and set up as Python xpk makes them: with
 * gcloud for A3 High (`src/xpk/core/network.py`, itself GKE's GPUDirect-TCPX guide), through Cluster Toolkit
 * blueprints for A3 Mega, A3 Ultra and A4 (`src/xpk/core/blueprint/blueprint_generator.py` and the toolkit modules it
 * names: `network/vpc`, `network/multivpc`, `network/gpu-rdma-vpc`, and `scheduler/gke-cluster`'s Network and
 * GKENetworkParamSet objects). GB200 (A4X) gets none: its pools use GKE's accelerator network profile (`auto`), with
 * which GKE makes the networks itself, as Python xpk does.
 *
 * - A3 High: four networks `<cluster>-net-<i>` (MTU 8244), one subnetwork each `<cluster>-<region>-sub-<i>` on
 *   `192.168.<i>.0/24`, one firewall rule each `<cluster>-internal-<i>`; in-cluster names `vpc1`..`vpc4`.
 * - A3 Mega (TCPXO, multivpc): eight networks `<cluster>-gpunet-<i>` (i = 0..7, MTU 8896, multivpc's default), one
 *   subnetwork each `<cluster>-gpunet-<i>-subnet` on `192.169.<i>.0/24` (`192.169.0.0/16` cut into /24s), one rule
 *   each `<cluster>-gpunet-<i>-fw-allow-internal-traffic` from that /24; in-cluster names are the subnetworks'.
 * - A3 Ultra and A4 (RDMA): `<cluster>-net-1` (MTU 8896) with `<cluster>-sub-1` on `192.168.64.0/18` and the rule
 *   `<cluster>-internal-1`, then `<cluster>-rdma-net` (MTU 8896, network profile `<zone>-vpc-roce`, no firewall
 *   rule: RDMA networks take none) with eight subnetworks `<cluster>-rdma-sub-<i>` (i = 0..7), `192.168.128.0/18` cut
 *   into /21s; in-cluster names are the subnetworks', the RDMA ones in RDMA device mode.
 *
 * Two places where Python is inconsistent for A3 High are made consistent here: its GKENetworkParamSets name the
 * subnetwork `<cluster>-sub-<i>`, which it never creates (it creates `<cluster>-<region>-sub-<i>`), and its A3 High
 * node pools get no `--additional-node-network`, without which the nodes have no NIC on those networks.
 */
import type {Accelerator} from '../catalog/types.js'
import type {GkeNetworkObject} from '../incluster/types.js'
import type {
  FirewallAllowed,
  FirewallSpec,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
} from './vpc.js'

/** Compute Engine's longest resource name. */
export const MAX_COMPUTE_NAME = 63

/**
 * One extra NIC of a GPU cluster's nodes: its network, subnetwork, firewall rule and in-cluster name. NICs on one
 * network (the RDMA ones) repeat the same network spec; it is created once.
 */
export interface GpuNetwork {
  readonly network: NetworkSpec
  readonly subnetwork: SubnetworkSpec
  /** The ingress rule on the network, or null where there is none (RDMA networks allow no firewall rules). */
  readonly firewall: FirewallSpec | null
  /** The `Network` / `GKENetworkParamSet` name in the cluster, which pods' annotations name. */
  readonly podNetwork: string
  /** The GKENetworkParamSet's device mode: a plain (gVNIC) NIC, or an RDMA one. */
  readonly deviceMode: 'NetDevice' | 'RDMA'
}

/** Where a cluster is: its networks are named after it and live in its project and region (RDMA: its zone too). */
export interface GpuNetworkTarget {
  readonly project: string
  readonly region: string
  readonly zone: string
  readonly name: string
}

/** tcp and udp on every port, and icmp: what every xpk and Cluster Toolkit GPU network rule allows. */
const ALLOW_ALL: readonly FirewallAllowed[] = [
  {protocol: 'tcp', ports: ['0-65535']},
  {protocol: 'udp', ports: ['0-65535']},
  {protocol: 'icmp', ports: []},
]

/** The NICs a GPU type's node pools need, in NIC order (eth1, ...); empty for types that need none. */
export function gpuNetworksFor(accelerator: Accelerator, cluster: GpuNetworkTarget): GpuNetwork[] {
  if (accelerator.kind !== 'GPU') return []
  const direct = accelerator.gpu?.gpuDirect
  if (direct === 'tcpx') return [1, 2, 3, 4].map((i) => a3HighNetwork(cluster, i))
  if (direct === 'tcpxo') return range8().map((i) => a3MegaNetwork(cluster, i))
  if (direct === 'rdma' && RDMA_BLUEPRINT_TYPES.has(accelerator.canonical)) return ultraOrA4Networks(cluster)
  return []
}

/** Whether `cluster create` makes the type's GPU networks (A3 High, A3 Mega, A3 Ultra, A4; not GB200). */
export function makesGpuNetworks(accelerator: Accelerator): boolean {
  if (accelerator.kind !== 'GPU') return false
  const direct = accelerator.gpu?.gpuDirect
  return (
    direct === 'tcpx' || direct === 'tcpxo' || (direct === 'rdma' && RDMA_BLUEPRINT_TYPES.has(accelerator.canonical))
  )
}

/** The RDMA types whose networks xpk makes (Python's A3 Ultra and A4 blueprints); GB200 relies on GKE's profile. */
const RDMA_BLUEPRINT_TYPES: ReadonlySet<string> = new Set(['h200-141gb-8', 'b200-8'])

const range8 = () => [0, 1, 2, 3, 4, 5, 6, 7]

/** Python xpk's names and settings for A3 High network `i` (1-4). */
function a3HighNetwork(cluster: GpuNetworkTarget, i: number): GpuNetwork {
  const {project, region, name} = cluster
  const network = `${name}-net-${i}`
  return {
    network: {project, name: network, mtu: 8244, networkProfile: null},
    subnetwork: {project, region, name: `${name}-${region}-sub-${i}`, network, ipCidrRange: `192.168.${i}.0/24`},
    firewall: {project, name: `${name}-internal-${i}`, network, sourceRanges: ['192.168.0.0/16'], allowed: ALLOW_ALL},
    podNetwork: `vpc${i}`,
    deviceMode: 'NetDevice',
  }
}

/**
 * A3 Mega network `i` (0-7) as Python's blueprint makes it with Cluster Toolkit's multivpc module
 * (`network_name_prefix: <cluster>-gpunet`, `global_ip_address_range: 192.169.0.0/16`, `subnetwork_cidr_suffix: 24`,
 * `network_count: 8`): each network one /24 subnetwork spanning its range, and the vpc module's internal-traffic rule
 * from that range.
 */
function a3MegaNetwork(cluster: GpuNetworkTarget, i: number): GpuNetwork {
  const {project, region, name} = cluster
  const network = `${name}-gpunet-${i}`
  const range = `192.169.${i}.0/24`
  return {
    network: {project, name: network, mtu: 8896, networkProfile: null},
    subnetwork: {project, region, name: `${network}-subnet`, network, ipCidrRange: range},
    firewall: {
      project,
      name: `${network}-fw-allow-internal-traffic`,
      network,
      sourceRanges: [range],
      allowed: ALLOW_ALL,
    },
    podNetwork: `${network}-subnet`,
    deviceMode: 'NetDevice',
  }
}

/**
 * A3 Ultra's and A4's networks as Python's blueprints make them: the gVNIC network `net-1` (Cluster Toolkit's vpc
 * module) and the RDMA network (its gpu-rdma-vpc module: `subnetworks_template` of 8 in `192.168.128.0/18`, each
 * `cidrsubnet(range, 3, i)`).
 */
function ultraOrA4Networks(cluster: GpuNetworkTarget): GpuNetwork[] {
  const {project, region, zone, name} = cluster
  const plain = `${name}-net-1`
  const rdma = `${name}-rdma-net`
  const rdmaSpec: NetworkSpec = {project, name: rdma, mtu: 8896, networkProfile: `${zone}-vpc-roce`}
  return [
    {
      network: {project, name: plain, mtu: 8896, networkProfile: null},
      subnetwork: {project, region, name: `${name}-sub-1`, network: plain, ipCidrRange: '192.168.64.0/18'},
      firewall: {
        project,
        name: `${name}-internal-1`,
        network: plain,
        sourceRanges: ['192.168.0.0/16'],
        allowed: ALLOW_ALL,
      },
      podNetwork: `${name}-sub-1`,
      deviceMode: 'NetDevice',
    },
    ...range8().map((i): GpuNetwork => ({
      network: rdmaSpec,
      subnetwork: {
        project,
        region,
        name: `${name}-rdma-sub-${i}`,
        network: rdma,
        ipCidrRange: `192.168.${128 + 8 * i}.0/21`,
      },
      firewall: null,
      podNetwork: `${name}-rdma-sub-${i}`,
      deviceMode: 'RDMA',
    })),
  ]
}

/** The networks of a pool's NICs, each once, with its NIC count where several share it: `x-net-1, x-rdma-net (8 NICs)`. */
export function nicNetworksText(networks: readonly string[], separator = ', '): string {
  const counts = new Map<string, number>()
  for (const network of networks) counts.set(network, (counts.get(network) ?? 0) + 1)
  return [...counts].map(([network, count]) => (count > 1 ? `${network} (${count} NICs)` : network)).join(separator)
}

/** The distinct networks of the NICs, in order (RDMA NICs share one). */
export function uniqueNetworks(networks: readonly GpuNetwork[]): NetworkSpec[] {
  const seen = new Map<string, NetworkSpec>()
  for (const n of networks) if (!seen.has(n.network.name)) seen.set(n.network.name, n.network)
  return [...seen.values()]
}

/** The firewall rules of the NICs, in order. */
export function firewallsOf(networks: readonly GpuNetwork[]): FirewallSpec[] {
  return networks.flatMap((n) => (n.firewall ? [n.firewall] : []))
}

/** The longest Compute name of the networks, when one is longer than Compute allows; undefined when all fit. */
export function tooLongName(networks: readonly GpuNetwork[]): string | undefined {
  return networks
    .flatMap((n) => [n.network.name, n.subnetwork.name, ...(n.firewall ? [n.firewall.name] : [])])
    .find((name) => name.length > MAX_COMPUTE_NAME)
}

/** The node pools' additional node networks: each network with its subnetwork, in NIC order. */
export function additionalNodeNetworks(networks: readonly GpuNetwork[]): {network: string; subnetwork: string}[] {
  return networks.map((n) => ({network: n.network.name, subnetwork: n.subnetwork.name}))
}

/**
 * The `Network` and `GKENetworkParamSet` objects (networking.gke.io/v1) of each NIC, as Python xpk's YAML (A3 High)
 * and Cluster Toolkit's gke-cluster templates (the others) write them.
 */
export function gpuNetworkObjects(networks: readonly GpuNetwork[]): GkeNetworkObject[] {
  const group = 'networking.gke.io'
  return [
    ...networks.map((n) => ({
      apiVersion: `${group}/v1` as const,
      kind: 'Network' as const,
      metadata: {name: n.podNetwork},
      spec: {parametersRef: {group, kind: 'GKENetworkParamSet', name: n.podNetwork}, type: 'Device'},
    })),
    ...networks.map((n) => ({
      apiVersion: `${group}/v1` as const,
      kind: 'GKENetworkParamSet' as const,
      metadata: {name: n.podNetwork},
      spec: {vpc: n.network.name, vpcSubnet: n.subnetwork.name, deviceMode: n.deviceMode},
    })),
  ]
}

/** What exists of the networks, read before planning. */
export interface ObservedGpuNetworks {
  readonly networks: ReadonlyMap<string, ObservedNetwork>
  readonly subnetworks: ReadonlyMap<string, ObservedSubnetwork>
  readonly firewalls: ReadonlyMap<string, ObservedFirewall>
}

/**
 * How what exists under the networks' names differs from what xpk would create, one line each; empty when everything
 * there matches (what is missing is created, not a difference). xpk never changes or replaces such a resource.
 */
export function gpuNetworkDifferences(networks: readonly GpuNetwork[], observed: ObservedGpuNetworks): string[] {
  const out: string[] = []
  for (const network of uniqueNetworks(networks)) {
    const net = observed.networks.get(network.name)
    if (!net) continue
    if (net.autoCreateSubnetworks === true) out.push(`network ${net.name} is in auto subnet mode, not custom`)
    if (net.mtu !== null && net.mtu !== network.mtu)
      out.push(`network ${net.name} has MTU ${net.mtu}, not ${network.mtu}`)
    if ((net.networkProfile ?? null) !== network.networkProfile) {
      out.push(
        `network ${net.name} has network profile ${net.networkProfile ?? 'none'}, not ${network.networkProfile ?? 'none'}`,
      )
    }
  }
  for (const {subnetwork} of networks) {
    const sub = observed.subnetworks.get(subnetwork.name)
    if (!sub) continue
    if (sub.network !== subnetwork.network) {
      out.push(`subnetwork ${sub.name} is on network ${sub.network}, not ${subnetwork.network}`)
    }
    if (sub.ipCidrRange !== subnetwork.ipCidrRange) {
      out.push(`subnetwork ${sub.name} has range ${sub.ipCidrRange ?? 'none'}, not ${subnetwork.ipCidrRange}`)
    }
  }
  for (const firewall of firewallsOf(networks)) {
    const fw = observed.firewalls.get(firewall.name)
    if (!fw) continue
    if (fw.network !== firewall.network) {
      out.push(`firewall rule ${fw.name} is on network ${fw.network}, not ${firewall.network}`)
    }
    const allowed = (rules: FirewallSpec['allowed']) =>
      rules.map((r) => `${r.protocol}${r.ports.length ? `:${r.ports.join(',')}` : ''}`).join(' ')
    if (allowed(fw.allowed) !== allowed(firewall.allowed) || fw.sourceRanges.join() !== firewall.sourceRanges.join()) {
      out.push(
        `firewall rule ${fw.name} allows ${allowed(fw.allowed) || 'nothing'} from ${fw.sourceRanges.join(',') || 'nowhere'}, not ${allowed(firewall.allowed)} from ${firewall.sourceRanges.join(',')}`,
      )
    }
  }
  return out
}

/**
 * The networks, subnetworks and firewall rules of a cluster, found by the names xpk gives them for any GPU type (see
 * above; `<n>` is a number), for deletion. Nothing else: a name that only starts like them is not taken.
 */
export function ownGpuNetworkResources(
  cluster: string,
  region: string,
  found: {
    readonly networks: readonly ObservedNetwork[]
    readonly subnetworks: readonly ObservedSubnetwork[]
    readonly firewalls: readonly ObservedFirewall[]
  },
): {networks: string[]; subnetworks: string[]; firewalls: string[]} {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const [c, r] = [escape(cluster), escape(region)]
  const ours = (patterns: readonly string[]) => {
    const whole = new RegExp(`^(?:${patterns.join('|')})$`)
    return (name: string) => whole.test(name)
  }
  const byName = (a: string, b: string) => a.localeCompare(b, 'en', {numeric: true})
  const pick = (names: readonly {name: string}[], patterns: readonly string[]) =>
    names
      .map((n) => n.name)
      .filter(ours(patterns))
      .sort(byName)
  return {
    networks: pick(found.networks, [`${c}-net-\\d+`, `${c}-gpunet-\\d+`, `${c}-rdma-net`]),
    subnetworks: pick(found.subnetworks, [
      `${c}-${r}-sub-\\d+`,
      `${c}-sub-\\d+`,
      `${c}-rdma-sub-\\d+`,
      `${c}-gpunet-\\d+-subnet`,
    ]),
    firewalls: pick(found.firewalls, [`${c}-internal-\\d+`, `${c}-gpunet-\\d+-fw-allow-internal-traffic`]),
  }
}
