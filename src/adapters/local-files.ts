import {constants, readFileSync, statSync} from 'node:fs'
import {access, open, rename, rm, stat} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'

import {XpkError} from '../core/errors.js'
import type {LocalFiles, PathInfo, TextFileRead} from '../ports/files.js'

/** {@link LocalFiles} on the real file system. */
export class NodeFiles implements LocalFiles {
  async stat(path: string): Promise<PathInfo | undefined> {
    try {
      const info = await stat(path)
      return {type: info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other', size: info.size}
    } catch (error) {
      if (isAbsent(error)) return undefined
      throw new XpkError('failed', `Cannot inspect ${path}: ${(error as Error).message}`, {cause: error})
    }
  }

  async readText(path: string, options: {readonly maxBytes: number}): Promise<TextFileRead> {
    let handle
    try {
      // Non-blocking, so that opening a named pipe with no writer returns at once instead of hanging.
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    } catch (error) {
      if (isAbsent(error)) return {kind: 'missing'}
      return {kind: 'unreadable', message: (error as Error).message}
    }
    try {
      // The open file is inspected, not the path, so nothing can be swapped in between the check and the read.
      const info = await handle.stat()
      if (info.isDirectory()) return {kind: 'directory'}
      if (!info.isFile()) return {kind: 'not-a-file'}
      if (info.size > options.maxBytes) return {kind: 'too-large', size: info.size}
      // One byte more than allowed tells a file that grew since the check from one that is exactly at the limit.
      const buffer = Buffer.alloc(options.maxBytes + 1)
      let length = 0
      for (;;) {
        const {bytesRead} = await handle.read(buffer, length, buffer.length - length, null)
        if (bytesRead === 0) break
        length += bytesRead
        if (length === buffer.length) return {kind: 'too-large', size: length}
      }
      const bytes = buffer.subarray(0, length)
      if (bytes.includes(0)) return {kind: 'binary', reason: 'NUL bytes'}
      try {
        return {kind: 'text', text: new TextDecoder('utf-8', {fatal: true}).decode(bytes)}
      } catch {
        return {kind: 'binary', reason: 'invalid UTF-8'}
      }
    } catch (error) {
      return {kind: 'unreadable', message: (error as Error).message}
    } finally {
      await handle.close()
    }
  }

  async writeText(path: string, text: string): Promise<void> {
    const target = resolve(path)
    // Beside the target, so the rename stays on one file system and is atomic; hidden, and unique per attempt.
    const temporary = join(
      dirname(target),
      `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`,
    )
    try {
      const handle = await open(temporary, 'wx')
      try {
        await handle.writeFile(text)
        // Flushed before the rename, so a crash cannot leave an empty file under the target's name.
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temporary, target)
    } catch (error) {
      await rm(temporary, {force: true}).catch(() => undefined)
      throw new XpkError('failed', `Cannot write ${path}: ${(error as Error).message}`, {cause: error})
    }
  }

  async canWriteIn(dir: string): Promise<boolean> {
    try {
      await access(dir, constants.W_OK | constants.X_OK)
      return true
    } catch {
      return false
    }
  }
}

function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/**
 * Reads a small regular file whole, synchronously (the jobman config reader resolves the files a config names as it
 * reads it): undefined when it is missing, not a regular file (a directory, a device, a pipe), larger than
 * `maxBytes`, or unreadable. A device is never opened, so /dev/zero cannot hang it.
 */
export function readSmallFileSync(path: string, maxBytes: number): string | undefined {
  try {
    const info = statSync(path)
    if (!info.isFile() || info.size > maxBytes) return undefined
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Whether a path is a directory (following symlinks). */
export function isDirectorySync(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
