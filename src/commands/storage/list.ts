import {XpkCommand} from '../../cli/base-command.js'
import {listStorages, storageListFlags} from '../../cli/storage.js'

export default class StorageList extends XpkCommand {
  static override summary = 'List the storages attached to a cluster: where workloads mount them, and what they hold.'
  static override description =
    'One row per Storage object (the kind Python xpk and xpk share, so storages attached by either are listed): its type, whether every workload mounts it, where, read-only or not, and the bucket or instance its PersistentVolume holds. -o wide adds the PersistentVolume, its claim, the full volume handle and the manifest it was attached from. A cluster that never had a storage attached lists none.'
  static override examples = [
    '<%= config.bin %> storage list --cluster demo',
    '<%= config.bin %> storage list --cluster demo --json',
    '<%= config.bin %> storage list --cluster demo -o wide',
    '<%= config.bin %> storage list --cluster demo -o name',
  ]
  static override flags = storageListFlags

  async run() {
    return this.runWith(StorageList, listStorages)
  }
}
