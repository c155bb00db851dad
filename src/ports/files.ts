/** The local files a command reads or writes on the user's behalf (env files, manifest output). */
export interface LocalFiles {
  /** Reads a UTF-8 file; resolves undefined when it does not exist. */
  readText(path: string): Promise<string | undefined>
  /** Writes a UTF-8 file atomically (temporary file, then rename), creating parent directories. */
  writeText(path: string, text: string): Promise<void>
}
