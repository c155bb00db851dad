// The messages of the storage commands (see ../messages.ts).
import {defineWarning} from '../messages.js'
import {escapeInline} from '../text.js'

export const storageInvalidFields = defineWarning(
  'storage.invalid-fields',
  'Storage objects lack spec fields, or hold them with another type than the CRD gives: shown with what they have.',
  (p: {storages: {name: string; fields: string[]}[]}) => ({
    text:
      `${p.storages.length === 1 ? 'A Storage object lacks' : 'Storage objects lack'} fields (or hold them with another type), shown as "-": ` +
      `${p.storages.map((s) => `${escapeInline(s.name)} (${s.fields.join(', ')})`).join('; ')}.`,
    data: {...p},
  }),
)
