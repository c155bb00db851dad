/** The {@link SshKeyStore} port on the local disk; new keys are made with ssh2's generator (imported lazily). */
import {chmod, mkdir, readFile, writeFile} from 'node:fs/promises'
import {dirname} from 'node:path'

import type {SshKeyPair, SshKeyStore} from '../ports/remote-shell.js'

export class SshKeyFiles implements SshKeyStore {
  constructor(private readonly privateKeyPath: string) {}

  async read(): Promise<SshKeyPair | undefined> {
    try {
      await readFile(this.privateKeyPath)
      const publicKey = (await readFile(`${this.privateKeyPath}.pub`, 'utf8')).trim()
      return {privateKeyPath: this.privateKeyPath, publicKey}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async create(comment: string): Promise<SshKeyPair> {
    const ssh2 = (await import('ssh2')).default
    const pair = ssh2.utils.generateKeyPairSync('ed25519', {comment})
    await mkdir(dirname(this.privateKeyPath), {recursive: true, mode: 0o700})
    await writeFile(this.privateKeyPath, pair.private, {mode: 0o600, flag: 'wx'})
    await chmod(this.privateKeyPath, 0o600)
    await writeFile(`${this.privateKeyPath}.pub`, `${pair.public.trim()}\n`, {mode: 0o644})
    return {privateKeyPath: this.privateKeyPath, publicKey: pair.public.trim()}
  }
}
