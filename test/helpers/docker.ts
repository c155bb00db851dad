// Whether a Docker engine answers, decided once per test file. Docker tests are skipped only when it does not.
import Docker from 'dockerode'

/** A client for the engine the tests use (DOCKER_HOST or the local socket). */
export const docker = new Docker()

/** True when the engine answered a ping within a few seconds. */
export const dockerAvailable: boolean = await Promise.race([
  docker.ping().then(
    () => true,
    () => false,
  ),
  new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000).unref()),
])

/** Says, once per file, why its Docker tests are skipped. */
export function explainDockerSkip(suite: string): void {
  if (!dockerAvailable) {
    console.warn(
      `Skipping "${suite}": no Docker engine reachable (DOCKER_HOST or /var/run/docker.sock). ` +
        'Run .ci/setup-docker (or start dockerd) to run these tests.',
    )
  }
}

/** A short random suffix for names that must not collide with other runs or other people's images. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
}

/** Removes images by reference, ignoring ones already gone. Only pass images the test created. */
export async function removeImages(references: readonly string[]): Promise<void> {
  for (const reference of references) {
    await docker
      .getImage(reference)
      .remove({force: true})
      .catch((error: {statusCode?: number}) => {
        if (error.statusCode !== 404) throw error
      })
  }
}

/** Runs a command in a throwaway container without network; returns its output. */
export async function runInImage(image: string, cmd: readonly string[]): Promise<string> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: [...cmd],
    Tty: true,
    HostConfig: {NetworkMode: 'none'},
  })
  try {
    await container.start()
    const {StatusCode} = (await container.wait()) as {StatusCode: number}
    const logs = (await container.logs({stdout: true, stderr: true})) as unknown as Buffer
    const output = logs.toString('utf8').replace(/\r\n/g, '\n')
    if (StatusCode !== 0) throw new Error(`${cmd.join(' ')} exited ${StatusCode}: ${output}`)
    return output
  } finally {
    await container.remove({force: true})
  }
}

/** Reads a Docker progress stream to its end and returns its messages (errors inside the stream included). */
export function follow(stream: NodeJS.ReadableStream): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (error: Error | null, output: Array<Record<string, unknown>>) =>
      error ? reject(error) : resolve(output),
    ),
  )
}
