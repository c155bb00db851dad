// The messages every command may print, whatever its topic (see ../messages.ts).
import {defineInfo} from '../messages.js'

export const cliDryRunChangesNothing = defineInfo(
  'cli.dry-run-changes-nothing',
  '--dry-run was given to a command that changes nothing: it runs as usual.',
  (p: {command: string}) => ({
    text: `--dry-run: xpk ${p.command} changes nothing, so it runs as usual.`,
    data: {command: p.command},
  }),
)
