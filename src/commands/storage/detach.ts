import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {detachStorage, storageDetachFlags} from '../../cli/storage.js'

export default class StorageDetach extends XpkCommand {
  static override summary = 'Detach a storage: its Kubernetes objects go, its data stays.'
  static override description =
    "Deletes the storage's claim, PersistentVolume, Filestore StorageClass and, last, its Storage object; the bucket or instance and its data are kept. A volume whose reclaim policy is Delete is set to Retain first; a volume or claim another storage names is kept. Workloads still mounting it are named and asked about (--force skips; with no terminal and no --force, exit 2). --dry-run shows the plan, --json prints it."
  static override examples = [
    '<%= config.bin %> storage detach old-data --cluster demo',
    '<%= config.bin %> storage detach old-data --cluster demo --dry-run --json',
  ]
  static override args = {name: Args.string({description: 'The storage to detach.'})}
  static override flags = storageDetachFlags

  async run() {
    return this.runWith(StorageDetach, detachStorage)
  }
}
