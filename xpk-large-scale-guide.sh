#!/usr/bin/env bash
# shellcheck disable=SC2329  # every step_* function is called indirectly, by name, from main
#
# xpk for large scale (more than 1,000 VMs): a step-by-step guide.
#
# This walks through a GKE cluster of thousands of TPU VMs with xpk: a network sized for it, the cluster flags
# that matter at that size, slices added in waves with quota checks in between, progress checks, a first
# workload, and teardown. Run ONE STEP AT A TIME and check its output (each step ends with a "Before the next
# step" list) before going on:
#
#   ./xpk-large-scale-guide.sh                  # lists the steps
#   ./xpk-large-scale-guide.sh step_1_network   # runs one step (or just its number: ./xpk-large-scale-guide.sh 1)
#
# Every variable below can be set in the environment instead of editing this file, e.g.
#   PROJECT=my-project CLUSTER=big NUM_SLICES=64 ./xpk-large-scale-guide.sh 5
#
# gcloud appears only where xpk does nothing: the VPC network, subnet, firewall, Cloud NAT and quota checks.
# Everything about the cluster itself (create, grow, inspect, delete) is xpk. xpk commands are idempotent:
# re-running one after a failure or an interruption finishes what is missing and changes nothing else.
#
# What is different from Python xpk's guide: xpk talks to the GKE API directly, so there is no
# --custom-cluster-arguments; the network, private-cluster and pod-density settings are first-class flags of
# `xpk cluster create` (its --help lists them).

set -euo pipefail

### VARIABLES ##########################################################################################################
# At least PROJECT, ZONE, CLUSTER and RESERVATION need your values.
PROJECT=${PROJECT:-my-project}
ZONE=${ZONE:-us-central2-b}
REGION=${REGION:-${ZONE%-*}} # the cluster is regional, in the zone's region; its nodes all run in ZONE
CLUSTER=${CLUSTER:-xpk-large}
NETWORK=${NETWORK:-${CLUSTER}-net}
SUBNET=${SUBNET:-${CLUSTER}-subnet}
TPU_TYPE=${TPU_TYPE:-v5litepod-256} # 64 VMs per slice: 64 slices = 4,096 TPU VMs
NUM_SLICES=${NUM_SLICES:-64}        # the final size; waves grow towards it
RESERVATION=${RESERVATION:-my-reservation}
# More flags for every `xpk cluster create`, e.g. "--jobset-manifest F --kueue-manifest F" when the cluster cannot
# reach GitHub, or "--skip-in-cluster" to leave JobSet, Kueue and the queues for later.
CREATE_FLAGS=${CREATE_FLAGS:-}

# Knobs (the defaults suit NUM_SLICES=64 of v5litepod-256).
FIRST_WAVE=${FIRST_WAVE:-4}         # slices created with the cluster; each later wave doubles, up to NUM_SLICES
MAX_PARALLEL=${MAX_PARALLEL:-16}    # node-pool operations xpk keeps in flight at once (GKE serialises some anyway)
# Pin an exact GKE version (step 0 lists them): no surprise auto-upgrade of thousands of nodes in the middle of a
# run. Pinned clusters use the REGULAR channel without auto-upgrade; empty means the RAPID channel's default.
GKE_VERSION=${GKE_VERSION:-}
MAX_PODS_PER_NODE=${MAX_PODS_PER_NODE:-15} # on the TPU pools; decides the pod range size, see step 2
CPU_MACHINE_TYPE=${CPU_MACHINE_TYPE:-n2-standard-32} # the default (CPU) pool runs Kueue, JobSet, DNS, metrics...
CPU_NODES=${CPU_NODES:-8}           # ...whose load grows with the number of nodes and pods
NODE_RANGE=${NODE_RANGE:-10.10.0.0/18}        # the subnet's primary range: one address per node (16,380 nodes)
INTERNAL_RANGES=${INTERNAL_RANGES:-10.0.0.0/8} # node, pod and service ranges all live in here
# Control-plane access. Empty: the control plane gets a private endpoint only, and xpk commands that reach the
# cluster (workload create) must run from a VM inside NETWORK. Or list CIDRs (comma-separated) allowed to reach
# its public endpoint, e.g. your workstation's or your CI's egress address: AUTHORIZED_NETWORKS=203.0.113.7/32.
AUTHORIZED_NETWORKS=${AUTHORIZED_NETWORKS:-}
MTU=${MTU:-8896} # jumbo frames: data-centre network (DCN) traffic between slices moves far more per packet
FIREWALL_RULE=${FIREWALL_RULE:-${NETWORK}-allow-internal}
ROUTER=${ROUTER:-${NETWORK}-router}
NAT=${NAT:-${NETWORK}-nat}
# How to run xpk: the installed `xpk`, or e.g. XPK_BIN="npx xpk" or XPK_BIN="node -- /path/to/xpk/bin/run.js".
XPK_BIN=${XPK_BIN:-xpk}

### HELPERS ############################################################################################################
read -r -a XPK_CMD <<<"${XPK_BIN}"

# Each xpk and gcloud command is printed before it runs, so the output shows exactly what was done.
xpk() {
  printf '\n+ xpk%s\n' "$(printf ' %q' "$@")" >&2
  command "${XPK_CMD[@]}" "$@"
}
gcloud() {
  printf '\n+ gcloud%s\n' "$(printf ' %q' "$@")" >&2
  command gcloud "$@"
}

# The one cluster-create command every step uses, so the cluster is always described the same way: xpk compares
# this description with what exists and only changes the difference (here: the number of slices).
# Usage: create_cluster SLICES [more xpk flags, e.g. --dry-run]
create_cluster() {
  local slices=$1
  shift
  local control_plane=(--enable-private-endpoint --enable-master-global-access)
  if [[ -n ${AUTHORIZED_NETWORKS} ]]; then
    control_plane=()
    local cidrs cidr
    IFS=, read -r -a cidrs <<<"${AUTHORIZED_NETWORKS}"
    for cidr in "${cidrs[@]}"; do control_plane+=(--authorized-networks "${cidr}"); done
  fi
  xpk cluster create \
    --project "${PROJECT}" --zone "${ZONE}" --cluster "${CLUSTER}" \
    --tpu-type "${TPU_TYPE}" --num-slices "${slices}" --reservation "${RESERVATION}" \
    ${GKE_VERSION:+--gke-version "${GKE_VERSION}"} \
    --network "${NETWORK}" --subnetwork "${SUBNET}" --private "${control_plane[@]}" \
    --default-pool-cpu-machine-type "${CPU_MACHINE_TYPE}" --default-pool-cpu-num-nodes "${CPU_NODES}" \
    --max-pods-per-node "${MAX_PODS_PER_NODE}" \
    --max-parallel "${MAX_PARALLEL}" \
    ${CREATE_FLAGS} "$@"
}

# The cluster as JSON (xpk cluster describe --json), or nothing when it does not exist yet.
describe_json() {
  xpk cluster describe --project "${PROJECT}" --zone "${ZONE}" --cluster "${CLUSTER}" --json 2>/dev/null || true
}

# How many of this cluster's slices exist (node pools CLUSTER-np-*, whatever their state).
current_slices() {
  describe_json | jq --arg c "${CLUSTER}" '[.nodePools[]? | select(.name | startswith($c + "-np-"))] | length'
}

# Sets VMS_PER_SLICE and CHIPS_PER_SLICE for TPU_TYPE, from xpk's accelerator catalog.
load_accelerator() {
  local json
  json=$(xpk accelerator describe "${TPU_TYPE}" --json)
  VMS_PER_SLICE=$(jq '.vmsPerSlice' <<<"${json}")
  CHIPS_PER_SLICE=$(jq '.vmsPerSlice * .chipsPerVm' <<<"${json}")
}

# The smallest prefix length whose block holds $1 addresses: prefix_for 30 -> 27 (a /27 has 32).
prefix_for() {
  local need=$1 bits=0
  while ((1 << bits < need)); do bits=$((bits + 1)); done
  echo $((32 - bits))
}

### STEPS ##############################################################################################################

## Check the tools, the login and the variables.
step_0_check() {
  local tool
  for tool in gcloud jq "${XPK_CMD[0]}"; do
    command -v "${tool}" >/dev/null || {
      echo "Missing ${tool}: install it first." >&2
      return 1
    }
  done
  xpk version
  gcloud auth list --filter=status:ACTIVE --format='value(account)'
  xpk accelerator describe "${TPU_TYPE}"
  # The versions GKE offers in REGION on the REGULAR channel (the channel xpk uses for pinned versions).
  gcloud container get-server-config --project="${PROJECT}" --region="${REGION}" \
    --flatten=channels --filter=channels.channel=REGULAR --format='yaml(channels.validVersions)'
  cat <<EOF

PROJECT=${PROJECT} ZONE=${ZONE} REGION=${REGION} CLUSTER=${CLUSTER}
NETWORK=${NETWORK} SUBNET=${SUBNET} NODE_RANGE=${NODE_RANGE} MTU=${MTU}
TPU_TYPE=${TPU_TYPE} NUM_SLICES=${NUM_SLICES} (first wave ${FIRST_WAVE}) RESERVATION=${RESERVATION}
GKE_VERSION=${GKE_VERSION:-"(not pinned)"} MAX_PODS_PER_NODE=${MAX_PODS_PER_NODE} CPU pool ${CPU_NODES}x ${CPU_MACHINE_TYPE}
Control plane: ${AUTHORIZED_NETWORKS:+public endpoint for ${AUTHORIZED_NETWORKS}}${AUTHORIZED_NETWORKS:-private endpoint only}
EOF
  # Optional: save the defaults so interactive xpk commands need fewer flags (this guide passes them anyway):
  #   xpk config set project "${PROJECT}"; xpk config set zone "${ZONE}"; xpk config set cluster "${CLUSTER}"
  #
  # Before the next step:
  # - `gcloud auth list` shows the account you mean; xpk uses Application Default Credentials
  #   (`gcloud auth application-default login` on a workstation).
  # - `xpk accelerator describe` shows the VMs per slice you expect; VMs per slice x NUM_SLICES is the size.
  # - GKE_VERSION is set to a full version from the list above (e.g. 1.34.5-gke.1200000): xpk needs an exact
  #   version that GKE offers in REGION.
  # - Above 5,000 VMs, tell your Google contact the cluster name and project before you scale up: GKE sets up
  #   large clusters for high-throughput scheduling on request.
}

## Create the VPC network, with jumbo frames (MTU 8896).
step_1_network() {
  # A custom-mode network: no automatic subnets, so every range in it is one you chose. Regional routing: the
  # cluster and everything it talks to are in REGION.
  gcloud compute networks create "${NETWORK}" \
    --project="${PROJECT}" --subnet-mode=custom --bgp-routing-mode=regional --mtu="${MTU}"
  # Before the next step:
  # - `gcloud compute networks describe ${NETWORK} --project=${PROJECT}` shows mtu: 8896. The MTU cannot be
  #   changed while VMs use the network: get it right now.
}

## Create the subnet, sized for the nodes (the arithmetic is printed).
step_2_subnet() {
  local tpu_nodes nodes per_node_prefix pod_prefix node_prefix
  load_accelerator
  tpu_nodes=$((VMS_PER_SLICE * NUM_SLICES))
  nodes=$((tpu_nodes + CPU_NODES))
  # How GKE hands out pod addresses: every node gets its own block of the pod range, with at least twice as
  # many addresses as it may run pods (so a new pod does not reuse a just-freed address), rounded up to a power
  # of two:
  #   max pods per node   8 -> 16 addresses  -> /28 per node
  #                      15 -> 30 -> 32      -> /27 per node (xpk's default on multi-host TPU pools)
  #                      32 -> 64            -> /26 per node
  #                     110 -> 220 -> 256    -> /24 per node (GKE's default, and the CPU pool's)
  # A pod range of /N therefore holds 2^(P-N) nodes when each node takes a /P:
  #   /27 per node: a /16 holds 2^11 = 2,048 nodes, a /14 8,192, a /13 16,384
  #   /24 per node: a /16 holds only 256 nodes, a /14 1,024
  # That is why --max-pods-per-node matters at this size: a TPU VM runs one training pod plus a few system pods.
  #
  # GKE creates the cluster's pod range itself (a /14) and its service range (a /20) as secondary ranges of this
  # subnet, from addresses not used elsewhere in the network (xpk has no flag to choose them). A /14 holds
  # 8,192 nodes at /27 each; the CPU pool's nodes take a /24 each.
  #
  # The subnet's primary range holds the nodes' own addresses: one per node, minus 4 that Google Cloud
  # reserves in every subnet: a /20 holds 4,092 nodes, a /19 8,188, a /18 16,380. Leave room for growth and for
  # surge upgrades (a node pool upgrade briefly adds nodes).
  per_node_prefix=$(prefix_for $((2 * MAX_PODS_PER_NODE)))
  pod_prefix=$(prefix_for $((tpu_nodes * (1 << (32 - per_node_prefix)) + CPU_NODES * 256)))
  node_prefix=$(prefix_for $((nodes + 4)))
  cat <<EOF
Nodes: ${NUM_SLICES} slices x ${VMS_PER_SLICE} VMs = ${tpu_nodes} TPU nodes + ${CPU_NODES} CPU nodes = ${nodes} nodes.
Pods: ${MAX_PODS_PER_NODE} per TPU node -> a /${per_node_prefix} each; all nodes need a pod range of at least /${pod_prefix} (GKE makes a /14).
Node addresses: at least /${node_prefix}; NODE_RANGE is ${NODE_RANGE}.
EOF
  if ((pod_prefix < 14)); then
    echo "The pod range GKE creates (/14) is too small: lower MAX_PODS_PER_NODE or NUM_SLICES." >&2
    return 1
  fi
  if ((${NODE_RANGE#*/} > node_prefix)); then
    echo "NODE_RANGE ${NODE_RANGE} is too small: use a /${node_prefix} or larger." >&2
    return 1
  fi
  gcloud compute networks subnets create "${SUBNET}" \
    --project="${PROJECT}" --network="${NETWORK}" --region="${REGION}" \
    --range="${NODE_RANGE}" --enable-private-ip-google-access
  # Private Google access: nodes without public IPs still reach Google APIs (Artifact Registry, GCS, logging).
  #
  # Before the next step:
  # - `gcloud compute networks subnets describe ${SUBNET} --region=${REGION} --project=${PROJECT}` shows
  #   ipCidrRange ${NODE_RANGE} and privateIpGoogleAccess: true.
  # - Nothing else in the network (or a peered one) uses addresses GKE could pick for the pod range.
}

## Allow traffic inside the network (and SSH through IAP).
step_3_firewall() {
  # Slices talk to each other over the data-centre network (TCP/UDP between every VM of the job), and the
  # cluster's pods talk across nodes. GKE adds its own rules for the control plane and its ranges; this rule
  # covers traffic between any of your internal addresses.
  gcloud compute firewall-rules create "${FIREWALL_RULE}" \
    --project="${PROJECT}" --network="${NETWORK}" --direction=INGRESS \
    --allow=tcp,udp,icmp --source-ranges="${INTERNAL_RANGES}"
  # SSH to nodes through Identity-Aware Proxy only (35.235.240.0/20 is IAP's range): nodes have no public IPs.
  gcloud compute firewall-rules create "${FIREWALL_RULE}-iap-ssh" \
    --project="${PROJECT}" --network="${NETWORK}" --direction=INGRESS \
    --allow=tcp:22 --source-ranges=35.235.240.0/20
  # Before the next step:
  # - `gcloud compute firewall-rules list --filter=network:${NETWORK} --project=${PROJECT}` lists both rules.
}

## Give the private nodes a way out (Cloud Router and Cloud NAT).
step_4_nat() {
  # The cluster is private (`--private`): nodes have no public IPs. Images and packages from outside Google
  # (Docker Hub, PyPI) come through Cloud NAT. Each NAT IP has 64,512 ports; at the default 64 ports per VM one
  # IP serves about 1,000 VMs, so 4,096 VMs need at least 5 IPs. Auto-allocation adds them as needed (within the
  # region's IN_USE_ADDRESSES quota); dynamic port allocation lets busy VMs take more ports.
  gcloud compute routers create "${ROUTER}" \
    --project="${PROJECT}" --network="${NETWORK}" --region="${REGION}"
  gcloud compute routers nats create "${NAT}" \
    --project="${PROJECT}" --router="${ROUTER}" --region="${REGION}" \
    --auto-allocate-nat-external-ips --nat-all-subnet-ip-ranges \
    --enable-dynamic-port-allocation --enable-logging
  # Before the next step:
  # - `gcloud compute routers nats describe ${NAT} --router=${ROUTER} --region=${REGION} --project=${PROJECT}`
  #   shows the NAT. Images in Artifact Registry in REGION do not need it (private Google access).
}

## Check quotas and the reservation before a wave (pass the slice count the wave will reach).
step_5_quota() {
  local slices=${1:-${FIRST_WAVE}}
  load_accelerator
  echo "A cluster of ${slices} slices needs $((slices * CHIPS_PER_SLICE)) TPU chips on $((slices * VMS_PER_SLICE)) VMs in ${ZONE}."
  # TPU chips, CPUs and addresses are regional quotas: print the ones that matter with usage and limit.
  gcloud compute regions describe "${REGION}" --project="${PROJECT}" --format=json |
    jq -r '.quotas[] | select(.metric | test("TPU|^CPUS$|N2_CPUS|IN_USE_ADDRESSES|SSD_TOTAL_GB"))
      | "\(.metric): \(.usage) used of \(.limit)"'
  # Reserved capacity: the reservation must hold every VM of every slice (count) beyond what is in use.
  gcloud compute reservations describe "${RESERVATION}" --project="${PROJECT}" --zone="${ZONE}" --format=json |
    jq -r '"Reservation \(.name): \(.specificReservation.inUseCount // 0) of \(.specificReservation.count) VMs in use, \(.specificReservation.instanceProperties.machineType)"'
  # Before the next step:
  # - The reservation's count minus what is in use covers the VMs of the slices this wave adds, and its
  #   machine type is the one `xpk accelerator describe ${TPU_TYPE}` shows.
  # - The TPU quota for this family (chips, or preemptible chips for --spot) covers ${slices} x ${CHIPS_PER_SLICE} chips;
  #   CPU quota covers the CPU pool (${CPU_NODES}x ${CPU_MACHINE_TYPE}), and addresses cover Cloud NAT.
  # - Too low: request more (console: IAM & Admin > Quotas) before the wave, or the wave ends with exit code 5.
}

## Show the cluster plan without changing anything.
step_6_plan() {
  create_cluster "${FIRST_WAVE}" --dry-run
  # xpk reads what exists and prints what it would do: the cluster, the default CPU pool and one node pool per
  # slice (CLUSTER-np-0 ...), each with its machine type, topology and capacity.
  # Before the next step:
  # - The plan says "private nodes", the CPU pool is ${CPU_NODES}x ${CPU_MACHINE_TYPE}, and every slice uses
  #   reservation ${RESERVATION}.
  # - Run step 5 first if you have not: `./xpk-large-scale-guide.sh step_5_quota ${FIRST_WAVE}`.
}

## Create the cluster with the first wave of slices.
step_7_create() {
  create_cluster "${FIRST_WAVE}"
  # This creates the regional control plane (several minutes), then the first ${FIRST_WAVE} slices in parallel.
  # Live progress shows one line per node pool. Exit codes: 0 done; 5 quota or stockout; 6 a conflicting GKE
  # operation; 130 interrupted. Whatever happened, re-running this step finishes the rest and changes nothing
  # that is already right.
  #
  # Before the next step:
  # - `./xpk-large-scale-guide.sh step_8_progress` shows ${FIRST_WAVE} node pools RUNNING.
  # - Above 1,000 VMs, kube-dns becomes a bottleneck: Python xpk's guide replaces it with CoreDNS (15+ replicas);
  #   Cloud DNS for GKE is the managed alternative. Both are outside xpk: plan it with your GKE contact.
}

## Check progress: node pools by status (safe to run any time, also during a wave).
step_8_progress() {
  local json
  json=$(describe_json)
  if [[ -z ${json} ]]; then
    echo "Cluster ${CLUSTER} does not exist (yet)."
    return 0
  fi
  # Cluster status, then this cluster's slices grouped by status, then anything not RUNNING with its reason.
  jq -r '"Cluster \(.name): \(.status), version \(.version), \(.nodePools | length) node pools"' <<<"${json}"
  jq -r --arg c "${CLUSTER}" '[.nodePools[] | select(.name | startswith($c + "-np-"))]
    | group_by(.status)[] | "  slices \(.[0].status): \(length)"' <<<"${json}"
  jq -r '.nodePools[] | select(.status != "RUNNING") | "  \(.name) \(.status) \(.statusMessage)"' <<<"${json}"
  # The same as a table: xpk cluster describe --project ... --zone ... --cluster ...
  # Before the next step:
  # - All slices RUNNING. PROVISIONING means GKE is still at it; ERROR or RUNNING_WITH_ERROR with a message
  #   (e.g. a stockout) means re-run the last create or wave step: xpk recreates the broken pools only.
}

## Grow towards NUM_SLICES: each run doubles the slices, up to NUM_SLICES (or pass the target).
step_9_wave() {
  local current target
  current=$(current_slices)
  current=${current:-0}
  target=${1:-$((current * 2 > FIRST_WAVE ? current * 2 : FIRST_WAVE))}
  if ((target > NUM_SLICES)); then target=${NUM_SLICES}; fi
  if ((target < current)); then
    echo "The cluster has ${current} slices; this step only grows it (target ${target})." >&2
    return 1
  fi
  echo "Wave: ${current} -> ${target} slices of ${TPU_TYPE}."
  step_5_quota "${target}"
  create_cluster "${target}"
  # Waves (e.g. 4 -> 8 -> 16 -> 32 -> 64) instead of one jump: each wave's quota, reservation and stockout
  # problems show up while they are small and cheap to fix, and the cluster (its control plane, DNS, Kueue)
  # grows in steps it can absorb. --max-parallel ${MAX_PARALLEL} keeps that many node-pool operations in flight;
  # GKE refuses some while others run, and xpk waits those out and retries (for up to 30 minutes).
  #
  # Before the next step:
  # - `./xpk-large-scale-guide.sh step_8_progress` shows every slice RUNNING.
  # - Run this step again until the cluster has ${NUM_SLICES} slices.
}

## Run a first workload across every slice.
step_10_workload() {
  # shellcheck disable=SC2016 # $(hostname) is for the container's shell, not this one
  xpk workload create \
    --project "${PROJECT}" --zone "${ZONE}" --cluster "${CLUSTER}" \
    --workload "${CLUSTER}-hello" --tpu-type "${TPU_TYPE}" --num-slices "${NUM_SLICES}" \
    --docker-image python:3.10 --command 'echo "hello from $(hostname)"'
  # This reaches the cluster's control plane: with a private endpoint only (AUTHORIZED_NETWORKS empty), run it
  # from a VM inside ${NETWORK}.
  # Before the next step:
  # - The workload is admitted by Kueue and every slice's pods finish (kubectl get jobsets, or the GKE console).
}

## Delete the cluster, then the network pieces (asks first; add --force to skip the question).
step_11_teardown() {
  xpk cluster delete --project "${PROJECT}" --zone "${ZONE}" --cluster "${CLUSTER}" "$@"
  # xpk waits until GKE has deleted the cluster: the network cannot go while the cluster's nodes use it.
  gcloud compute routers nats delete "${NAT}" --router="${ROUTER}" --region="${REGION}" --project="${PROJECT}" --quiet
  gcloud compute routers delete "${ROUTER}" --region="${REGION}" --project="${PROJECT}" --quiet
  gcloud compute firewall-rules delete "${FIREWALL_RULE}" "${FIREWALL_RULE}-iap-ssh" --project="${PROJECT}" --quiet
  gcloud compute networks subnets delete "${SUBNET}" --region="${REGION}" --project="${PROJECT}" --quiet
  gcloud compute networks delete "${NETWORK}" --project="${PROJECT}" --quiet
  # Afterwards:
  # - `xpk cluster list --project ${PROJECT}` no longer shows ${CLUSTER}; the reservation is free again.
}

### MAIN ###############################################################################################################
list_steps() {
  echo "Usage: $0 STEP [ARGS]   (STEP is a name below or its number)"
  echo
  awk '/^## /{what = substr($0, 4)} /^step_[0-9]+_[a-z_0-9]*\(\)/{sub(/\(\).*/, ""); printf "  %-20s %s\n", $0, what}' "$0"
}

main() {
  if (($# == 0)); then
    list_steps
    return 0
  fi
  local asked=$1 step=$1
  shift
  if [[ ${step} =~ ^[0-9]+$ ]]; then
    step=$(declare -F | awk -v p="step_${step}_" 'index($3, p) == 1 {print $3}')
  fi
  if [[ ${step} != step_* ]] || ! declare -F "${step}" >/dev/null; then
    echo "Unknown step '${asked}'." >&2
    list_steps >&2
    return 2
  fi
  "${step}" "$@"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
