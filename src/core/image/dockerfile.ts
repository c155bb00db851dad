/** The Dockerfile that layers a script directory onto a base image. */

/**
 * The folder of the build context that holds the script files. The generated Dockerfile sits next to it at the
 * context root, so it never lands in the image and never clashes with a user's own `Dockerfile`.
 */
export const CONTEXT_FILES_DIR = 'app'

/** The working directory of the image, where the script files are copied. */
export const IMAGE_WORKDIR = '/app'

/** The Dockerfile text for a base image reference: the script files end up in {@link IMAGE_WORKDIR}. */
export function layerDockerfile(baseImage: string): string {
  return `FROM ${baseImage}\nWORKDIR ${IMAGE_WORKDIR}\nCOPY ${CONTEXT_FILES_DIR}/ ${IMAGE_WORKDIR}/\n`
}
