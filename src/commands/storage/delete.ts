import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {deleteStorage, storageDeleteFlags} from '../../cli/storage.js'

export default class StorageDelete extends XpkCommand {
  static override summary = 'Delete a Filestore storage: detach it, then delete its instance and the data on it.'
  static override description =
    'Detaches the storage (claim, PersistentVolume, StorageClass, then its Storage object) and deletes the Filestore instance its volume names, waiting until the Filestore API says it is gone. Refused (exit 6) for a storage of another type (detach those) and while workloads mount it, naming them. Always asks first, since the data goes too (--force skips; with no terminal and no --force, exit 2). --dry-run shows the plan, --json prints it.'
  static override examples = [
    '<%= config.bin %> storage delete old-home --cluster demo --dry-run',
    '<%= config.bin %> storage delete old-home --cluster demo --force --json',
  ]
  static override args = {name: Args.string({description: 'The Filestore storage to delete.'})}
  static override flags = storageDeleteFlags

  async run() {
    return this.runWith(StorageDelete, deleteStorage)
  }
}
