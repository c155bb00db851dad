import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {attachStorage, storageAttachFlags} from '../../cli/storage.js'

export default class StorageAttach extends XpkCommand {
  static override summary = 'Attach a bucket, a Filestore instance or a manifest as a storage that workloads mount.'
  static override description =
    "Reads the cluster (its CSI drivers, Workload Identity, node pools), the bucket and its IAM policy or the Filestore instance, and what the cluster holds of the name, then plans: the cluster updates the type needs, the bucket grant to the workloads' service account (GCS FUSE), the Storage CRD when absent, the StorageClass (Filestore), the PersistentVolume, its claim, and the Storage object last. --dry-run shows the plan, --json prints it. GKE recreates the nodes of pools switched to the GKE metadata server: that is asked first (--force skips; with no terminal and no --force, exit 2). A re-run of a finished attach sends nothing."
  static override examples = [
    '<%= config.bin %> storage attach datasets --cluster demo --type gcsfuse --bucket my-datasets --size 64 --project-number 123456789012 --auto-mount true --mount-point /data --readonly true',
    '<%= config.bin %> storage attach home --cluster demo --type gcpfilestore --instance home-fs --vol home --auto-mount true --mount-point /home/shared --readonly false',
    '<%= config.bin %> storage attach scratch --cluster demo --type lustre --manifest lustre.yaml --auto-mount false --mount-point /scratch --readonly false --dry-run',
  ]
  static override args = {name: Args.string({description: 'Storage name: lowercase letters, digits and hyphens.'})}
  static override flags = storageAttachFlags

  async run() {
    return this.runWith(StorageAttach, attachStorage)
  }
}
