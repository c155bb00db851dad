// A real registry (Debian's docker-registry) on a free loopback port, with bcrypt htpasswd auth.
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** A running registry; stop it when done. */
export interface LocalRegistry {
  /** `127.0.0.1:<port>`, usable as an image name prefix. */
  readonly host: string
  readonly username: string
  readonly password: string
  /** GET (or another method) on the registry with the right credentials. */
  fetch(path: string, init?: RequestInit): Promise<Response>
  stop(): Promise<void>
}

/** Starts `docker-registry serve` on 127.0.0.1 and waits until /v2/ answers 401. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'xpk-registry-'))
  const username = 'xpk'
  const password = `s3cret-${Math.random().toString(36).slice(2, 8)}`
  const htpasswd = spawnSync('htpasswd', ['-nbB', '-C', '5', username, password], {encoding: 'utf8'})
  if (htpasswd.status !== 0) throw new Error(`htpasswd failed: ${htpasswd.stderr || htpasswd.error}`)
  await writeFile(join(dir, 'htpasswd'), htpasswd.stdout)
  const port = await freePort()
  const host = `127.0.0.1:${port}`
  await writeFile(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: {level: error, accesslog: {disabled: true}}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'storage')}}, delete: {enabled: true}}`,
      `http: {addr: "${host}"}`,
      `auth: {htpasswd: {realm: xpk-test, path: ${join(dir, 'htpasswd')}}}`,
      '',
    ].join('\n'),
  )
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`

  const deadline = Date.now() + 10_000
  for (;;) {
    const status = await fetch(`http://${host}/v2/`).then(
      (r) => r.status,
      () => 0,
    )
    if (status === 401) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      await rm(dir, {recursive: true, force: true})
      throw new Error(`docker-registry did not start on ${host} (last status ${status}): ${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }

  return {
    host,
    username,
    password,
    fetch: (path, init = {}) =>
      fetch(`http://${host}${path}`, {...init, headers: {authorization, ...(init.headers as Record<string, string>)}}),
    async stop() {
      const running = () => child.exitCode === null && child.signalCode === null
      if (running() && child.pid !== undefined) {
        process.kill(child.pid, 'SIGTERM')
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
        if (running()) process.kill(child.pid, 'SIGKILL')
      }
      await rm(dir, {recursive: true, force: true})
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}
