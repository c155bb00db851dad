// The messages of an image build (workload create without --docker-image; see ../messages.ts).
import {defineInfo, defineWarning} from '../messages.js'
import {defineDefaultScriptDirNote, defineLargeScriptDirQuestion} from './script-dir.js'

/** The first five, then how many more. */
const someOf = (items: readonly string[]) =>
  items.slice(0, 5).join(', ') + (items.length > 5 ? ` and ${items.length - 5} more` : '')

export const imageOffline = defineInfo(
  'image.offline',
  'Offline: the registry was not asked whether the image exists.',
  (p: {reference: string; baseDigestKnown: boolean}) => ({
    text:
      `Offline: the image would be ${p.reference}; the registry was not asked whether it exists.` +
      (p.baseDigestKnown ? '' : ' The base image digest is unknown offline, so the real tag may differ.'),
    data: {reference: p.reference, baseDigestKnown: p.baseDigestKnown},
  }),
)

export const imageCredentialProblem = defineWarning(
  'image.credential-problem',
  'Registry credentials could not be found or read.',
  (p: {problem: string}) => p.problem,
)

export const imageExists = defineInfo(
  'image.exists',
  'The image is already in the registry: nothing to build or push.',
  (p: {reference: string; dryRun: boolean}) =>
    p.dryRun
      ? `Dry run: ${p.reference} is already in the registry; a real run would skip the build and push.`
      : `${p.reference} is already in the registry (nothing changed): skipped the build and push.`,
)

export const imageWouldBuild = defineInfo(
  'image.would-build',
  'A dry run found the image missing: a real run would build it.',
  (p: {reference: string}) => `Dry run: ${p.reference} is not in the registry yet; a real run would build and push it.`,
)

export const imagePushed = defineInfo(
  'image.pushed',
  'The image was built and pushed.',
  (p: {reference: string; layersPushed: number; layersSkipped: number; seconds: number}) =>
    `Pushed ${p.reference} (${p.layersPushed} new layer(s), ${p.layersSkipped} already in the registry)` +
    ` in ${p.seconds.toFixed(1)} s.`,
)

export const imageUnsupportedFiles = defineWarning(
  'image.unsupported-files',
  'Entries of the script directory that cannot be packed.',
  (p: {files: readonly string[]}) => ({
    text:
      `Left out of the image (neither file, directory nor symlink): ${someOf(p.files)}` +
      '. List them in .dockerignore to silence this.',
    data: {files: p.files},
  }),
)

export const imageVanishedFiles = defineWarning(
  'image.vanished-files',
  'Files that disappeared while the script directory was read.',
  (p: {files: readonly string[]}) => ({
    text:
      `Disappeared while the script directory was being read, so left out of the image: ${someOf(p.files)}` +
      '. If something is still writing into the directory, wait until it is done and run the command again.',
    data: {files: p.files},
  }),
)

export const imageDefaultScriptDir = defineDefaultScriptDirNote(
  'image.default-script-dir',
  'No --script-dir: the current directory is packed.',
)

export const imageConfirmLargeScriptDir = defineLargeScriptDirQuestion(
  'image.confirm-large-script-dir',
  'Asked before packing a script directory that looks too big or holds node_modules/.git.',
)

export const imageBaseLookupFallback = defineWarning(
  'image.base-lookup-fallback',
  'The local engine could not say the base image digest.',
  (p: {cause: string}) => `${p.cause} The dry run asks the registry for the base image instead; the tag may differ.`,
)

export const imageBasePlatformMismatch = defineWarning(
  'image.base-platform-mismatch',
  'The local base image is for another platform.',
  (p: {image: string; localPlatform: string; platform: string}) =>
    `The local copy of ${p.image} is ${p.localPlatform}; using the ${p.platform} one.`,
)
