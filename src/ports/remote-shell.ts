/** One SSH endpoint: a TPU VM worker. */
export interface SshTarget {
  readonly host: string
  readonly port: number
  readonly user: string
  /**
   * Who the machine is, for host-key checking: the TPU node's unique id and worker index. A known key for the same
   * address but another identity (the node was deleted and created again) is learnt anew; a different key for the
   * same identity is refused.
   */
  readonly identity: string
}

/** The result of a remote command. */
export interface RemoteExit {
  /** Exit status, or null when the process was killed by a signal or the connection dropped. */
  readonly code: number | null
  readonly signal?: string
}

/** An open SSH connection to one worker. */
export interface RemoteSession {
  /**
   * Runs `command` (a shell script for the remote login shell). `stdin` is written and then closed (or `gate`'s
   * answer, once it has one); output is passed on as it arrives.
   */
  exec(
    command: string,
    options?: {
      readonly stdin?: Buffer
      /** Holds stdin open until it settles, then writes its text and a newline and closes stdin. */
      readonly gate?: Promise<string>
      readonly onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void
    },
  ): Promise<RemoteExit>
  /**
   * A login shell on the worker, wired to the given streams until it ends (`xpk vm job ssh`). With `terminal`, a
   * pseudo-terminal of that size (and the local terminal in raw mode); without, the shell reads `input` as a script.
   */
  interactive(io: {
    readonly input: NodeJS.ReadableStream
    readonly output: NodeJS.WritableStream
    readonly errors: NodeJS.WritableStream
    readonly terminal?: {readonly term: string; readonly rows: number; readonly cols: number}
  }): Promise<RemoteExit>
  close(): void
}

/** Opens SSH connections with one private key, checking host keys against xpk's known-hosts file. */
export interface RemoteShell {
  connect(target: SshTarget, signal: AbortSignal): Promise<RemoteSession>
}

/** The user's SSH key pair, gcloud's `~/.ssh/google_compute_engine`. */
export interface SshKeyPair {
  readonly privateKeyPath: string
  /** The public key line: `<type> <base64> <comment>`. */
  readonly publicKey: string
}

/** Finds or creates the key pair. */
export interface SshKeyStore {
  /** Where the private key is, or would be created. */
  readonly privateKeyPath: string
  /** The key pair at the path, or undefined when there is none. */
  read(): Promise<SshKeyPair | undefined>
  /** Creates a new key pair (no passphrase) at the path. */
  create(comment: string): Promise<SshKeyPair>
}

/** Where per-worker logs of a run go. */
export interface RunLogs {
  /** Creates the run directory (and the directories above it) and returns its path. */
  open(dir: string): Promise<string>
  /** Opens one log file, replacing an earlier one of the same run name. */
  writer(path: string): {write(chunk: Buffer): void; close(): Promise<void>}
  /** Writes a whole file (the run summary). */
  writeFile(path: string, text: string): Promise<void>
  /** The last `lines` lines of a log. */
  tail(path: string, lines: number): Promise<string[]>
}

/** One entry of a script directory to send (after its ignore files). */
export interface ScriptDirEntry {
  /** Relative, with `/`. */
  readonly path: string
  readonly type: 'file' | 'directory' | 'symlink'
  readonly mode: number
  readonly size: number
  /** Modification time, for the tar header (the time of packing when unknown). */
  readonly mtimeMs?: number
}

/** A script directory as listed: its entries, read before anything is asked or sent. */
export interface ScriptDirEntries {
  readonly dir: string
  readonly entries: readonly ScriptDirEntry[]
}

/** What listing a script directory found: its entries, or that it is missing or not a directory. */
export type ScriptDirListing = ScriptDirEntries | {readonly dir: string; readonly missing: 'absent' | 'not-a-directory'}
