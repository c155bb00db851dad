// Stand-ins for Google's GPUDirect manifests (src/core/incluster/gpu-installers.ts), shaped like them: one
// DaemonSet in kube-system, named as Google names it, on the GPU nodes, with a privileged init container and a pause
// container. The real files are on GitHub's master branch and are never copied into the project.
import {UsageError} from '../../src/core/errors.js'
import {GPU_INSTALLERS, type GpuInstaller, type GpuInstallerName} from '../../src/core/incluster/gpu-installers.js'
import type {KubeObject} from '../../src/core/kube/release-manifest.js'
import type {InstallerManifest, InstallerManifestSource} from '../../src/ports/installer-manifests.js'

const DAEMONSET_NAMES: Readonly<Record<GpuInstallerName, string>> = {
  'nccl-tcpx': 'nccl-tcpx-installer',
  'nccl-tcpxo': 'nccl-tcpxo-installer',
  'nccl-rdma': 'nccl-rdma-installer',
  'nri-device-injector': 'device-injector',
}

/** The stand-in manifest's objects of `installer`; `image` tells two versions apart. */
export function installerObjects(installer: GpuInstallerName, image = 'example.com/installer:v1'): KubeObject[] {
  const name = DAEMONSET_NAMES[installer]
  const labels = {'k8s-app': name}
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name, namespace: 'kube-system', labels},
      spec: {
        selector: {matchLabels: labels},
        updateStrategy: {type: 'RollingUpdate'},
        template: {
          metadata: {labels},
          spec: {
            priorityClassName: 'system-node-critical',
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{matchExpressions: [{key: 'cloud.google.com/gke-gpu', operator: 'Exists'}]}],
                },
              },
            },
            tolerations: [{operator: 'Exists'}],
            hostNetwork: true,
            initContainers: [{name, image, securityContext: {privileged: true}}],
            containers: [{name: 'pause', image: 'gcr.io/google-containers/pause:2.0'}],
          },
        },
      },
    },
  ]
}

/** Serves {@link installerObjects}; overrides are given by the test, by the value passed to the flag. */
export class MemoryInstallerManifests implements InstallerManifestSource {
  /** Every load, in order, with the override asked for. */
  readonly loads: {installer: GpuInstallerName; override?: string}[] = []

  constructor(private readonly overrides: Readonly<Record<string, readonly KubeObject[]>> = {}) {}

  async load(installer: GpuInstaller, options: {override?: string} = {}): Promise<InstallerManifest> {
    this.loads.push(
      options.override === undefined
        ? {installer: installer.name}
        : {installer: installer.name, override: options.override},
    )
    if (options.override !== undefined) {
      const objects = this.overrides[options.override]
      const flag = installer.overrideFlag
      if (objects === undefined) throw new UsageError(`${flag}: ${options.override} does not exist.`, {flag})
      return {objects: structuredClone(objects), source: options.override}
    }
    return {objects: installerObjects(installer.name), source: GPU_INSTALLERS[installer.name].url}
  }
}
