// The notes and warnings of `xpk info` and `xpk inspector` (see ../messages.ts).
import {defineInfo, defineWarning} from '../messages.js'

export const infoNoneFound = defineInfo(
  'info.none-found',
  '`info` found no LocalQueue or ClusterQueue (of the kinds asked for).',
  (p: {cluster: string | null; kinds: readonly string[]}) => ({
    text: `No ${p.kinds.join(' or ')} found${p.cluster ? ` in cluster ${p.cluster}` : ''}${
      p.kinds.includes('ClusterQueue') ? ' (`xpk cluster create` or `cluster adapt` configures Kueue)' : ''
    }.`,
    data: {...p},
  }),
)

export const inspectorSectionsUnread = defineWarning(
  'inspector.sections-unread',
  '`inspector` could not read some sections; the file says why for each, and has everything else.',
  (p: {file: string; sections: readonly string[]}) => ({
    text:
      `${p.sections.length} section${p.sections.length === 1 ? '' : 's'} could not be read (${p.sections.join('; ')}); ` +
      `${p.file} says why for each, and has everything else.`,
    data: {...p},
  }),
)

export const inspectorWritten = defineInfo(
  'inspector.written',
  '`inspector` wrote its file (the path is also the result).',
  (p: {file: string; bytes: number}) => ({
    text: `Wrote ${p.file} (${p.bytes} bytes). It holds no Secret and no value of one; read it before sharing it.`,
    data: {...p},
  }),
)
