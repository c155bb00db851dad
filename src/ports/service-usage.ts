/**
 * Service Usage (serviceusage.googleapis.com/v1) in xpk's terms: which APIs a project has enabled. Implementations
 * throw ApiError (classified, with hints); no call retries by itself.
 */
export interface ServiceUsageClient {
  /** The names of every enabled service (`container.googleapis.com`, ...), all pages. */
  listEnabledServices(project: string): Promise<readonly string[]>
  /** Whether one service is enabled. */
  isServiceEnabled(project: string, service: string): Promise<boolean>
  close(): Promise<void>
}
