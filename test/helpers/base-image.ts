// Base images made locally from busybox-static, so no test ever pulls from the internet.
import {readFile} from 'node:fs/promises'

import tar from 'tar-stream'

import {docker, follow, uniqueSuffix} from './docker.js'

/** What goes into a base image besides /bin/busybox and /bin/sh. */
export interface BaseImageOptions {
  /** Extra regular files, path (no leading slash) to content. */
  readonly files?: Readonly<Record<string, string>>
  /** Extra executable files (mode 755), path (no leading slash) to content. */
  readonly executables?: Readonly<Record<string, string>>
}

/** Imports a tiny busybox image under a unique name and returns its reference (`xpktest/base-<suffix>:1`). */
export async function makeBaseImage(options: BaseImageOptions = {}): Promise<string> {
  const busybox = await readFile('/bin/busybox')
  const pack = tar.pack()
  const mtime = new Date('2020-01-01T00:00:00Z')
  pack.entry({name: 'bin/', type: 'directory', mode: 0o755, mtime})
  pack.entry({name: 'bin/busybox', mode: 0o755, mtime}, busybox)
  pack.entry({name: 'bin/sh', type: 'symlink', linkname: 'busybox', mode: 0o777, mtime})
  for (const tool of ['cat', 'ls', 'sha256sum']) {
    pack.entry({name: `bin/${tool}`, type: 'symlink', linkname: 'busybox', mode: 0o777, mtime})
  }
  for (const [path, content] of Object.entries(options.files ?? {}))
    pack.entry({name: path, mode: 0o644, mtime}, content)
  for (const [path, content] of Object.entries(options.executables ?? {}))
    pack.entry({name: path, mode: 0o755, mtime}, content)
  pack.finalize()
  const reference = `xpktest/base-${uniqueSuffix()}:1`
  const [repo, tag] = reference.split(':') as [string, string]
  await follow(await docker.importImage(pack as unknown as NodeJS.ReadableStream, {repo, tag}))
  return reference
}
