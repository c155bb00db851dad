// Issue 17: the key pair `vm run` logs in with is read and checked before anything is sent, since its public half
// goes into the nodes' ssh-keys metadata: a directory, garbage, or a public key that is not one line of the private
// key's public half is a usage error naming the file, never a crash.
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {SshKeyFiles} from '../../src/adapters/ssh-keys.js'
import {UsageError} from '../../src/core/errors.js'
import {tempDir} from '../helpers/temp.js'

function keyPair(dir: string, name: string, passphrase = ''): string {
  const path = join(dir, name)
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'me', '-f', path])
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`)
  return path
}

describe('SshKeyFiles.read', () => {
  it('reads a pair made by ssh-keygen, and nothing when there is no key', async () => {
    const dir = tempDir('xpk-keys-')
    const path = keyPair(dir, 'k')
    expect(await new SshKeyFiles(path).read()).toEqual({
      privateKeyPath: path,
      publicKey: readFileSync(`${path}.pub`, 'utf8').trim(),
    })
    expect(await new SshKeyFiles(join(dir, 'none')).read()).toBeUndefined()
  })

  it('derives the public key when only the private key is there', async () => {
    const dir = tempDir('xpk-keys-')
    const path = keyPair(dir, 'k')
    const line = readFileSync(`${path}.pub`, 'utf8').trim()
    spawnSync('rm', [`${path}.pub`])
    // The same type and key as ssh-keygen wrote, without the comment.
    expect((await new SshKeyFiles(path).read())?.publicKey).toBe(line.replace(/ me$/, ''))
  })

  const cases: {case: string; make: (dir: string) => string; message: RegExp}[] = [
    {
      case: 'the key path is a directory',
      make: (dir) => (mkdirSync(join(dir, 'k')), join(dir, 'k')),
      message: /k cannot be used: it is a directory/,
    },
    {
      case: 'the private key is garbage',
      make: (dir) => (
        writeFileSync(join(dir, 'k'), 'not a key\n'),
        writeFileSync(join(dir, 'k.pub'), 'x'),
        join(dir, 'k')
      ),
      message: /k cannot be used: it is not an SSH private key/,
    },
    {
      case: 'the private key is huge',
      make: (dir) => (writeFileSync(join(dir, 'k'), Buffer.alloc(100_000)), join(dir, 'k')),
      message: /too large for an SSH key/,
    },
    {
      case: 'the public key is garbage',
      make: (dir) => {
        const path = keyPair(dir, 'k')
        writeFileSync(`${path}.pub`, 'ssh-ed25519 garbage me\n')
        return path
      },
      message: /k\.pub cannot be used: it is not an SSH public key/,
    },
    {
      case: 'the public key has a second line (it would add a metadata line)',
      make: (dir) => {
        const path = keyPair(dir, 'k')
        writeFileSync(`${path}.pub`, `${readFileSync(`${path}.pub`, 'utf8').trim()}\nroot:ssh-rsa AAAA evil\n`)
        return path
      },
      message: /k\.pub cannot be used: it is not one line/,
    },
    {
      case: 'the public key is another key',
      make: (dir) => {
        const path = keyPair(dir, 'k')
        const other = keyPair(dir, 'other')
        writeFileSync(`${path}.pub`, readFileSync(`${other}.pub`))
        return path
      },
      message: /k\.pub cannot be used: it is not the public half of the private key beside it/,
    },
    {
      case: 'the public key path is a directory',
      make: (dir) => {
        const path = keyPair(dir, 'k')
        spawnSync('rm', [`${path}.pub`])
        mkdirSync(`${path}.pub`)
        return path
      },
      message: /k\.pub cannot be used: it is a directory/,
    },
  ]
  it.each(cases)('refuses a pair when $case', async ({make, message}) => {
    const path = make(tempDir('xpk-keys-'))
    const error = await new SshKeyFiles(path).read().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toMatch(message)
    expect((error as UsageError).exitCode).toBe(2)
  })

  it('says a key with a passphrase needs ssh-agent (an auth error, exit 3), and takes it when an agent is there', async () => {
    const path = keyPair(tempDir('xpk-keys-'), 'k', 'secret')
    await expect(new SshKeyFiles(path, '').read()).rejects.toMatchObject({
      kind: 'auth',
      hints: [expect.stringContaining('ssh-add')],
    })
    expect((await new SshKeyFiles(path, '/tmp/agent.sock').read())?.publicKey).toMatch(/^ssh-ed25519 /)
  })
})
