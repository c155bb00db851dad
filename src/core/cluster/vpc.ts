/** Compute Engine VPC resources as xpk creates and reads them (the Compute port's networks, subnetworks, firewall rules). */

/** A custom-mode VPC network to create. */
export interface NetworkSpec {
  readonly project: string
  readonly name: string
  /** Bytes; 8244 for GPUDirect-TCPX/TCPXO networks, 8896 for RDMA ones. */
  readonly mtu: number
  /** A network profile of the project (`<zone>-vpc-roce` for RDMA networks), or null for a plain VPC. */
  readonly networkProfile: string | null
}

/** A subnetwork to create in a network (named, not a URL) of the same project. */
export interface SubnetworkSpec {
  readonly project: string
  readonly region: string
  readonly name: string
  readonly network: string
  readonly ipCidrRange: string
}

/** One protocol (and its ports, none meaning all) a firewall rule allows. */
export interface FirewallAllowed {
  readonly protocol: string
  readonly ports: readonly string[]
}

/** An ingress firewall rule to create on a network (named, not a URL) of the same project. */
export interface FirewallSpec {
  readonly project: string
  readonly name: string
  readonly network: string
  readonly sourceRanges: readonly string[]
  readonly allowed: readonly FirewallAllowed[]
}

/** A network as Compute Engine reports it; names instead of URLs, `null` for what it left out. */
export interface ObservedNetwork {
  readonly name: string
  readonly mtu: number | null
  readonly autoCreateSubnetworks: boolean | null
  /** The network profile's name (the last part of its URL). */
  readonly networkProfile: string | null
  /** Its subnetworks as `region/name`. */
  readonly subnetworks: readonly string[]
}

export interface ObservedSubnetwork {
  readonly name: string
  readonly region: string
  /** The network's name. */
  readonly network: string
  readonly ipCidrRange: string | null
}

export interface ObservedFirewall {
  readonly name: string
  /** The network's name. */
  readonly network: string
  readonly direction: string | null
  readonly sourceRanges: readonly string[]
  readonly allowed: readonly FirewallAllowed[]
}
