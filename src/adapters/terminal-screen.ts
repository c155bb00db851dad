import type {WriteStream} from 'node:tty'

import type {Screen} from '../ports/screen.js'

// The terminal's alternate screen (as top and less use): the view does not scroll the user's shell away, and
// leaving it restores what was there. The cursor is hidden while the view is on.
const ENTER = '\u001b[?1049h\u001b[?25l'
const LEAVE = '\u001b[?25h\u001b[?1049l'
const HOME = '\u001b[H'
const CLEAR_LINE_END = '\u001b[K'
const CLEAR_BELOW = '\u001b[J'

/** The screen of a terminal on `out` (stdout), or null when `out` is not a terminal. */
export function terminalScreen(out: WriteStream = process.stdout as WriteStream): Screen | null {
  if (!out.isTTY) return null
  let entered = false
  let closed = false
  let last = ''
  return {
    size: () => ({rows: out.rows || 24, columns: out.columns || 80}),
    draw(lines) {
      // A frame that comes after close (a refresh already under way when Ctrl-C came) must not take the screen again.
      if (closed) return
      // One write per frame, each line cleared to its end: no flicker, and nothing of a longer previous line stays.
      const frame = `${HOME}${lines.map((line) => `${line}${CLEAR_LINE_END}`).join('\r\n')}${CLEAR_BELOW}`
      if (frame === last) return
      last = frame
      out.write(entered ? frame : `${ENTER}${frame}`)
      entered = true
    },
    onResize(listener) {
      out.on('resize', listener)
      return () => out.off('resize', listener)
    },
    close() {
      if (entered) out.write(LEAVE)
      entered = false
      closed = true
    },
  }
}
