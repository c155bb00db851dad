/**
 * The {@link SshKeyStore} port on the local disk; keys are parsed, and new ones made, with ssh2 (imported lazily).
 * The pair is checked when it is read, before anything is sent: its public key goes into the nodes' metadata.
 */
import {chmod, mkdir, readFile, stat, writeFile} from 'node:fs/promises'
import {dirname} from 'node:path'

import type * as Ssh2 from 'ssh2'

import {UsageError, XpkError} from '../core/errors.js'
import type {SshKeyPair, SshKeyStore} from '../ports/remote-shell.js'

/** A private key file is a few KB; anything much larger is not one, and is not read whole. */
const MAX_KEY_BYTES = 64 * 1024

export class SshKeyFiles implements SshKeyStore {
  constructor(
    readonly privateKeyPath: string,
    /** ssh-agent's socket, for a key with a passphrase (xpk never asks for one). */
    private readonly agentSocket: string | undefined = process.env.SSH_AUTH_SOCK,
  ) {}

  async read(): Promise<SshKeyPair | undefined> {
    const path = this.privateKeyPath
    const privateKey = await readKeyFile(path)
    if (privateKey === undefined) return undefined
    const utils = await sshUtils()
    const parsed = utils.parseKey(privateKey)
    const encrypted = parsed instanceof Error && /encrypted|passphrase/i.test(parsed.message)
    if (parsed instanceof Error && !encrypted) {
      throw unusable(path, `it is not an SSH private key (${parsed.message})`)
    }
    if (encrypted && !this.agentSocket) {
      throw new XpkError('auth', `The SSH private key ${path} has a passphrase, and there is no ssh-agent to use it.`, {
        hints: [`Load it into ssh-agent (\`ssh-add ${path}\`) so SSH_AUTH_SOCK is set, then re-run.`],
      })
    }
    const publicText = await readKeyFile(`${path}.pub`)
    if (publicText === undefined) {
      if (parsed instanceof Error) {
        throw unusable(`${path}.pub`, 'it is missing, and the private key has a passphrase, so it cannot be derived')
      }
      // gcloud writes both; when only the private key is left, its public half is derived rather than a new pair made.
      return {privateKeyPath: path, publicKey: `${parsed.type} ${parsed.getPublicSSH().toString('base64')}`}
    }
    const publicKey = publicText.toString('utf8').trim()
    const problem = publicKeyProblem(publicKey, utils, parsed instanceof Error ? undefined : parsed)
    if (problem) throw unusable(`${path}.pub`, problem)
    return {privateKeyPath: path, publicKey}
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

async function sshUtils(): Promise<typeof Ssh2.utils> {
  const m = await import('ssh2')
  return ((m.default ?? m) as typeof Ssh2).utils
}

type ParsedKey = Ssh2.ParsedKey

/** The file's bytes, or undefined when there is no file; anything else that is not a readable key file is refused. */
async function readKeyFile(path: string): Promise<Buffer | undefined> {
  let info
  try {
    info = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    throw unusable(path, code === 'ENOTDIR' ? 'a part of its path is not a directory' : (error as Error).message)
  }
  if (info.isDirectory()) throw unusable(path, 'it is a directory, not a key file')
  if (!info.isFile()) throw unusable(path, 'it is not a regular file')
  if (info.size > MAX_KEY_BYTES) throw unusable(path, `it is ${info.size} bytes, too large for an SSH key`)
  try {
    return await readFile(path)
  } catch (error) {
    throw unusable(path, `it cannot be read: ${(error as Error).message}`)
  }
}

/**
 * Why the public key line cannot go into the nodes' `ssh-keys` metadata: it must be one line `TYPE BASE64
 * [COMMENT]` that ssh2 parses, with no control characters (a newline would add a metadata line of its own), and,
 * when the private key could be read, its public half.
 */
function publicKeyProblem(
  line: string,
  utils: typeof Ssh2.utils,
  privateKey: ParsedKey | undefined,
): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(line)) return 'it is not one line of text (TYPE BASE64 COMMENT)'
  const parsed = utils.parseKey(line)
  if (parsed instanceof Error) return `it is not an SSH public key (${parsed.message})`
  if (privateKey && !parsed.getPublicSSH().equals(privateKey.getPublicSSH())) {
    return 'it is not the public half of the private key beside it'
  }
  return undefined
}

function unusable(path: string, why: string): UsageError {
  return new UsageError(`The SSH key ${path} cannot be used: ${why}.`, {
    hints: [
      `xpk logs in to the TPU VMs with ${path.replace(/\.pub$/, '')}, as gcloud does. Move the file away to let xpk create a new key, or fix it (\`ssh-keygen -y -f KEY > KEY.pub\` writes the public half).`,
    ],
  })
}
