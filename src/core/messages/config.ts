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
