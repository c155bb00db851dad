// The messages of xpk config (see ../messages.ts).
import {defineInfo} from '../messages.js'

export const configSet = defineInfo(
  'config.set',
  'A default was saved.',
  (p: {key: string; value: string; file: string}) => `Set ${p.key} = ${p.value} in ${p.file}.`,
)

export const configUnset = defineInfo(
  'config.unset',
  'A default was removed.',
  (p: {key: string; file: string}) => `Unset ${p.key} in ${p.file}.`,
)

export const configDryRun = defineInfo(
  'config.dry-run',
  'A dry run of config set or unset: what the setting would become; nothing was written.',
  (p: {key: string; now: string | null; then: string | null; file: string}) => ({
    text:
      `Dry run: ${p.then === null ? `${p.key} would be removed from` : `${p.key} = ${p.then} would be saved in`} ${p.file}` +
      ` (now ${p.now === null ? 'not set' : p.now}); nothing was written.`,
    data: {key: p.key, now: p.now, then: p.then},
  }),
)

export const configNotSet = defineInfo(
  'config.not-set',
  'The asked-for default is not saved.',
  (p: {key: string; file: string}) => `${p.key} is not set in ${p.file}.`,
)

export const configFile = defineInfo(
  'config.file',
  'Where the config file lives.',
  (p: {file: string}) => `xpk config file: ${p.file}`,
)
