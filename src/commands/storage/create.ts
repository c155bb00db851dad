import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {createStorage, storageCreateFlags} from '../../cli/storage.js'

export default class StorageCreate extends XpkCommand {
  static override summary = "Create a Filestore instance on the cluster's network and attach it as a storage."
  static override description =
    "Checks every flag (the capacity against the tier's range), reads the cluster (its network, its Filestore CSI driver) and the instance of the id, then plans: create the instance (BASIC_HDD, BASIC_SSD and ZONAL in the zone, REGIONAL and ENTERPRISE in the region) on the cluster's VPC network, wait until it is READY, then the steps of `storage attach --type gcpfilestore --instance I`. --dry-run shows the plan, --json prints it. An instance of the id that exists as asked is used as it is; one that differs is exit 6 naming the differences. A re-run of a finished create sends nothing."
  static override examples = [
    '<%= config.bin %> storage create home --cluster demo --type gcpfilestore --instance team-fs --size 1T --tier ZONAL --vol home --auto-mount true --mount-point /home/shared --readonly false',
    '<%= config.bin %> storage create scratch --cluster demo --type gcpfilestore --size 2560 --tier BASIC_SSD --auto-mount false --mount-point /scratch --readonly false --dry-run',
  ]
  static override args = {name: Args.string({description: 'Storage name: lowercase letters, digits and hyphens.'})}
  static override flags = storageCreateFlags

  async run() {
    return this.runWith(StorageCreate, createStorage)
  }
}
