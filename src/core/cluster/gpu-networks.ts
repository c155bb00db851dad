/**
 * The extra VPC networks of GPU clusters whose NICs GPUDirect uses, as Python xpk makes them for A3 High
 * (`src/xpk/core/network.py`, itself GKE's GPUDirect-TCPX guide): four networks `<cluster>-net-<i>` in custom subnet
 * mode with MTU 8244, one subnetwork each `<cluster>-<region>-sub-<i>` on `192.168.<i>.0/24` in the cluster's region,
 * one ingress firewall rule each `<cluster>-internal-<i>` allowing tcp, udp and icmp from `192.168.0.0/16`; the node
 * pools attach them as additional node networks, and the cluster gets a `Network` and a `GKENetworkParamSet`
 * (`vpc1`..`vpc4`, Device mode) per network, which the workloads' `networking.gke.io/interfaces` annotation names.
 *
 * Two places where Python is inconsistent are made consistent here: its GKENetworkParamSets name the subnetwork
 * `<cluster>-sub-<i>`, which it never creates (it creates `<cluster>-<region>-sub-<i>`), and its A3 High node pools
 * get no `--additional-node-network`, without which the nodes have no NIC on those networks (GKE's guide passes them).
 */
import type {Accelerator} from '../catalog/types.js'
import type {GkeNetworkObject} from '../incluster/types.js'
import type {
  FirewallSpec,
  NetworkSpec,
  ObservedFirewall,
  ObservedNetwork,
  ObservedSubnetwork,
  SubnetworkSpec,
} from './vpc.js'

/** Compute Engine's longest resource name. */
export const MAX_COMPUTE_NAME = 63

/** One extra network of a GPU cluster with its subnetwork, firewall rule and in-cluster name. */
export interface GpuNetwork {
  readonly network: NetworkSpec
  readonly subnetwork: SubnetworkSpec
  readonly firewall: FirewallSpec
  /** The `Network` / `GKENetworkParamSet` name in the cluster (`vpc1`, ...), which pods' annotations name. */
  readonly podNetwork: string
}

/** The networks a GPU type's node pools need; empty for types that need none (or are not built yet). */
export function gpuNetworksFor(
  accelerator: Accelerator,
  cluster: {readonly project: string; readonly region: string; readonly name: string},
): GpuNetwork[] {
  if (accelerator.kind !== 'GPU' || accelerator.gpu?.gpuDirect !== 'tcpx') return []
  return [1, 2, 3, 4].map((i) => a3HighNetwork(cluster, i))
}

/** Python xpk's names and settings for A3 High network `i` (1-4). */
function a3HighNetwork(cluster: {project: string; region: string; name: string}, i: number): GpuNetwork {
  const {project, region, name} = cluster
  const network = `${name}-net-${i}`
  return {
    network: {project, name: network, mtu: 8244, networkProfile: null},
    subnetwork: {project, region, name: `${name}-${region}-sub-${i}`, network, ipCidrRange: `192.168.${i}.0/24`},
    firewall: {
      project,
      name: `${name}-internal-${i}`,
      network,
      sourceRanges: ['192.168.0.0/16'],
      allowed: [
        {protocol: 'tcp', ports: ['0-65535']},
        {protocol: 'udp', ports: ['0-65535']},
        {protocol: 'icmp', ports: []},
      ],
    },
    podNetwork: `vpc${i}`,
  }
}

/** The longest Compute name of the networks, when one is longer than Compute allows; undefined when all fit. */
export function tooLongName(networks: readonly GpuNetwork[]): string | undefined {
  return networks
    .flatMap((n) => [n.network.name, n.subnetwork.name, n.firewall.name])
    .find((name) => name.length > MAX_COMPUTE_NAME)
}

/** The node pools' additional node networks: each network with its subnetwork, in NIC order. */
export function additionalNodeNetworks(networks: readonly GpuNetwork[]): {network: string; subnetwork: string}[] {
  return networks.map((n) => ({network: n.network.name, subnetwork: n.subnetwork.name}))
}

/** The `Network` and `GKENetworkParamSet` objects (networking.gke.io/v1) of each network, as Python xpk's YAML. */
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
      spec: {vpc: n.network.name, vpcSubnet: n.subnetwork.name, deviceMode: 'NetDevice'},
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
  for (const {network, subnetwork, firewall} of networks) {
    const net = observed.networks.get(network.name)
    if (net) {
      if (net.autoCreateSubnetworks === true) out.push(`network ${net.name} is in auto subnet mode, not custom`)
      if (net.mtu !== null && net.mtu !== network.mtu)
        out.push(`network ${net.name} has MTU ${net.mtu}, not ${network.mtu}`)
      if ((net.networkProfile ?? null) !== network.networkProfile) {
        out.push(
          `network ${net.name} has network profile ${net.networkProfile ?? 'none'}, not ${network.networkProfile ?? 'none'}`,
        )
      }
    }
    const sub = observed.subnetworks.get(subnetwork.name)
    if (sub) {
      if (sub.network !== subnetwork.network) {
        out.push(`subnetwork ${sub.name} is on network ${sub.network}, not ${subnetwork.network}`)
      }
      if (sub.ipCidrRange !== subnetwork.ipCidrRange) {
        out.push(`subnetwork ${sub.name} has range ${sub.ipCidrRange ?? 'none'}, not ${subnetwork.ipCidrRange}`)
      }
    }
    const fw = observed.firewalls.get(firewall.name)
    if (fw) {
      if (fw.network !== firewall.network) {
        out.push(`firewall rule ${fw.name} is on network ${fw.network}, not ${firewall.network}`)
      }
      const allowed = (rules: FirewallSpec['allowed']) =>
        rules.map((r) => `${r.protocol}${r.ports.length ? `:${r.ports.join(',')}` : ''}`).join(' ')
      if (
        allowed(fw.allowed) !== allowed(firewall.allowed) ||
        fw.sourceRanges.join() !== firewall.sourceRanges.join()
      ) {
        out.push(
          `firewall rule ${fw.name} allows ${allowed(fw.allowed) || 'nothing'} from ${fw.sourceRanges.join(',') || 'nowhere'}, not ${allowed(firewall.allowed)} from ${firewall.sourceRanges.join(',')}`,
        )
      }
    }
  }
  return out
}

/** The networks, subnetworks and firewall rules of a cluster, found by the names xpk gives them, for deletion. */
export function ownGpuNetworkResources(
  cluster: string,
  region: string,
  found: {
    readonly networks: readonly ObservedNetwork[]
    readonly subnetworks: readonly ObservedSubnetwork[]
    readonly firewalls: readonly ObservedFirewall[]
  },
): {networks: string[]; subnetworks: string[]; firewalls: string[]} {
  const numbered = (prefix: string) => (name: string) =>
    name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))
  const byName = (a: string, b: string) => a.localeCompare(b, 'en', {numeric: true})
  return {
    networks: found.networks
      .map((n) => n.name)
      .filter(numbered(`${cluster}-net-`))
      .sort(byName),
    subnetworks: found.subnetworks
      .map((s) => s.name)
      .filter(numbered(`${cluster}-${region}-sub-`))
      .sort(byName),
    firewalls: found.firewalls
      .map((f) => f.name)
      .filter(numbered(`${cluster}-internal-`))
      .sort(byName),
  }
}
