/**
 * The {@link RemoteShell} port over ssh2 (imported lazily, on first connection). Host keys are checked against
 * xpk's own known-hosts file: learnt on first contact, and a changed key for the same machine is refused.
 */
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {connect as connectTcp, type Socket} from 'node:net'
import {dirname} from 'node:path'

import type * as Ssh2 from 'ssh2'
import type {Client, ClientChannel} from 'ssh2'

import {XpkError} from '../core/errors.js'
import {DEFAULT_TIMING} from '../core/timing.js'
import type {RemoteExit, RemoteSession, RemoteShell, SshTarget} from '../ports/remote-shell.js'

export interface SshClientOptions {
  readonly privateKey: Buffer
  /** xpk's known-hosts file. */
  readonly knownHostsPath: string
  /** How long the SSH handshake (banner, key exchange, authentication) may take. @default DEFAULT_TIMING.ssh.handshakeMs */
  readonly readyTimeoutMs?: number
  /** ssh-agent socket for keys with a passphrase; default SSH_AUTH_SOCK. */
  readonly agentSocket?: string
}

interface KnownHost {
  identity: string
  key: string
}

/** xpk's known-hosts file: `<[host]:port> <identity> <base64 key blob>` per line. */
class KnownHosts {
  private entries: Map<string, KnownHost> | undefined
  private writing: Promise<void> = Promise.resolve()

  constructor(private readonly path: string) {}

  private async load(): Promise<Map<string, KnownHost>> {
    if (this.entries) return this.entries
    const entries = new Map<string, KnownHost>()
    try {
      for (const line of (await readFile(this.path, 'utf8')).split('\n')) {
        const [address, identity, key] = line.trim().split(/\s+/)
        if (address && identity && key) entries.set(address, {identity, key})
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    this.entries ??= entries
    return this.entries
  }

  /** 'known', 'learnt' (an address or identity not seen before) or 'changed'. */
  async check(address: string, identity: string, key: string): Promise<'known' | 'learnt' | 'changed'> {
    const entries = await this.load()
    const known = entries.get(address)
    if (known && known.identity === identity) return known.key === key ? 'known' : 'changed'
    entries.set(address, {identity, key})
    const text = [...entries].map(([a, e]) => `${a} ${e.identity} ${e.key}\n`).join('')
    this.writing = this.writing.then(async () => {
      await mkdir(dirname(this.path), {recursive: true})
      const temp = `${this.path}.${process.pid}.tmp`
      await writeFile(temp, text, {mode: 0o600})
      await rename(temp, this.path)
    })
    await this.writing
    return 'learnt'
  }
}

export function createSshShell(options: SshClientOptions): RemoteShell {
  const knownHosts = new KnownHosts(options.knownHostsPath)
  // The module, and the key parsed once for every connection.
  let loaded: Promise<{SshClient: typeof Client; auth: ReturnType<typeof credentials>}> | undefined
  const load = () =>
    (loaded ??= import('ssh2').then((m) => {
      const ssh2 = (m.default ?? m) as typeof Ssh2
      return {SshClient: ssh2.Client, auth: credentials(options, ssh2.utils)}
    }))
  return {
    async connect(target: SshTarget, signal: AbortSignal): Promise<RemoteSession> {
      const {SshClient, auth} = await load()
      const client = new SshClient()
      // xpk's own socket, so that close() can let the process exit without waiting for the server's side of the
      // goodbye; and without Nagle's delay, since SSH sends small messages that wait for an answer.
      const sock = connectTcp({host: target.host, port: target.port, noDelay: true})
      const address = `[${target.host}]:${target.port}`
      let hostKeyProblem: XpkError | undefined
      // ssh2 may emit 'error' more than once (a handshake that timed out, then the socket closing under it), also
      // after the connection is up: one listener for the client's whole life, as an 'error' with none crashes the
      // process. Only the first one while connecting fails the connection; later ones end it, and its commands
      // then end as a lost connection (their channels close).
      let connecting: ((error: Error & {level?: string}) => void) | undefined
      client.on('error', (error: Error & {level?: string}) => {
        const fail = connecting
        connecting = undefined
        fail?.(error)
      })
      sock.on('error', () => undefined)
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          connecting = undefined
          // Not end(): a socket still connecting would wait for the connection (or its timeout) before closing.
          client.destroy()
          reject(signal.reason)
        }
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, {once: true})
        client.once('ready', () => {
          connecting = undefined
          signal.removeEventListener('abort', onAbort)
          resolve()
        })
        connecting = (error) => {
          signal.removeEventListener('abort', onAbort)
          // Nothing of a failed connection is kept: a server that never finished the handshake is left at once.
          client.destroy()
          sock.destroy()
          reject(hostKeyProblem ?? connectError(error, target))
        }
        client.connect({
          sock,
          host: target.host,
          port: target.port,
          username: target.user,
          ...auth,
          // Straight to the key: ssh2 would first try "none", one more round trip (and server wake-up) per worker.
          authHandler: ['privateKey' in auth ? 'publickey' : 'agent'],
          // Algorithms: ssh2's defaults already come first in the cheap order a TPU VM's sshd offers too
          // (curve25519-sha256, ssh-ed25519, aes128-gcm with AES-NI, else chacha20-poly1305); pinning them gained nothing
          // measurable (bench/vm-run.mjs notes), and would lose servers that lack one.
          // A server that accepts the connection and never speaks SSH (no banner) fails it after this long.
          readyTimeout: options.readyTimeoutMs ?? DEFAULT_TIMING.ssh.handshakeMs,
          keepaliveInterval: 15_000,
          hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
            knownHosts.check(address, target.identity, key.toString('base64')).then(
              (verdict) => {
                if (verdict === 'changed') {
                  hostKeyProblem = new XpkError(
                    'auth',
                    `The SSH host key of ${target.host}:${target.port} (${target.identity}) has changed since xpk last connected.`,
                    {
                      hints: [
                        `If the TPU VM was re-imaged on purpose, remove the line for ${address} from ${options.knownHostsPath}; otherwise someone may be intercepting the connection.`,
                      ],
                    },
                  )
                }
                verify(verdict !== 'changed')
              },
              () => verify(false),
            )
          },
        })
      })
      return new Ssh2Session(client, sock)
    },
  }
}

/**
 * The key to log in with: the private key file, or ssh-agent (SSH_AUTH_SOCK) when the file has a passphrase (xpk
 * never asks for passphrases).
 */
function credentials(options: SshClientOptions, utils: typeof Ssh2.utils): {privateKey: Buffer} | {agent: string} {
  const parsed = utils.parseKey(options.privateKey)
  if (!(parsed instanceof Error)) return {privateKey: options.privateKey}
  const agent = options.agentSocket ?? process.env.SSH_AUTH_SOCK
  if (/encrypted|passphrase/i.test(parsed.message) && agent) return {agent}
  throw new XpkError('auth', `The SSH private key cannot be used: ${parsed.message}.`, {
    hints: /encrypted|passphrase/i.test(parsed.message)
      ? [
          'It has a passphrase: load it into ssh-agent (`ssh-add ~/.ssh/google_compute_engine`) so SSH_AUTH_SOCK is set.',
        ]
      : ['Create a new key with `ssh-keygen -f ~/.ssh/google_compute_engine` (move the old one away first).'],
  })
}

function connectError(error: Error & {level?: string; code?: string}, target: SshTarget): XpkError {
  const where = `${target.user}@${target.host}:${target.port}`
  if (error.level === 'client-authentication') {
    return new XpkError('auth', `SSH to ${where} refused the key (${error.message}).`, {
      hints: ["The node's ssh-keys metadata may not have reached the VM yet; re-run in a minute."],
      cause: error,
    })
  }
  return new XpkError('unavailable', `Could not connect to ${where}: ${error.message}.`, {
    hints: [
      'From inside Google Cloud (another VM in the project), pass --internal-ip; from outside, the TPU VMs need external IPs and a firewall rule allowing SSH.',
    ],
    cause: error,
  })
}

class Ssh2Session implements RemoteSession {
  constructor(
    private readonly client: Client,
    private readonly sock: Socket,
  ) {}

  exec(
    command: string,
    options: {
      stdin?: Buffer
      gate?: Promise<string>
      onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void
    } = {},
  ): Promise<RemoteExit> {
    return new Promise((resolve, reject) => {
      const failed = (error: Error) =>
        reject(new XpkError('unavailable', `SSH exec failed: ${error.message}`, {cause: error}))
      const open = (error: Error | undefined, channel: ClientChannel) => {
        if (error) return failed(error)
        let exit: RemoteExit = {code: null, signal: 'connection lost'}
        channel.on('exit', (code: number | null, signal?: string) => {
          exit = code === null || code === undefined ? {code: null, signal: signal ?? 'unknown'} : {code}
        })
        channel.on('data', (chunk: Buffer) => options.onOutput?.(chunk, 'stdout'))
        channel.stderr.on('data', (chunk: Buffer) => options.onOutput?.(chunk, 'stderr'))
        channel.on('close', () => resolve(exit))
        if (options.gate) {
          options.gate.then(
            (answer) => channel.end(`${answer}\n`),
            () => channel.end(),
          )
        } else if (options.stdin) channel.end(options.stdin)
        else channel.end()
      }
      try {
        this.client.exec(command, open)
      } catch (error) {
        // The connection is gone already ("Not connected").
        failed(error as Error)
      }
    })
  }

  interactive(io: Parameters<RemoteSession['interactive']>[0]): Promise<RemoteExit> {
    return new Promise((resolve, reject) => {
      const input = io.input as NodeJS.ReadStream
      const raw = io.terminal !== undefined && input.isTTY === true
      const open = (error: Error | undefined, channel: ClientChannel) => {
        if (error) return reject(new XpkError('unavailable', `SSH shell failed: ${error.message}`, {cause: error}))
        let exit: RemoteExit = {code: null, signal: 'connection lost'}
        if (raw) input.setRawMode(true)
        const resize = () => {
          const out = io.output as NodeJS.WriteStream
          if (out.rows && out.columns) channel.setWindow(out.rows, out.columns, 0, 0)
        }
        io.output.on('resize', resize)
        channel.on('exit', (code: number | null, signal?: string) => {
          exit = code === null || code === undefined ? {code: null, signal: signal ?? 'unknown'} : {code}
        })
        channel.pipe(io.output, {end: false})
        channel.stderr.pipe(io.errors, {end: false})
        input.pipe(channel)
        channel.on('close', () => {
          input.unpipe(channel)
          if (raw) input.setRawMode(false)
          input.pause()
          io.output.off('resize', resize)
          resolve(exit)
        })
      }
      try {
        if (io.terminal)
          this.client.shell({term: io.terminal.term, rows: io.terminal.rows, cols: io.terminal.cols}, open)
        else this.client.shell(false, open)
      } catch (error) {
        reject(new XpkError('unavailable', `SSH shell failed: ${(error as Error).message}`, {cause: error}))
      }
    })
  }

  close(): void {
    // Says goodbye, then lets the process exit without waiting for the server to close its side (a round trip, and
    // on a busy worker a while): every command's status has arrived by then.
    this.client.end()
    this.sock.unref()
  }
}
