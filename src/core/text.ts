/**
 * Text from users, files and APIs is echoed in messages; printed raw, an escape sequence in a cluster name or a
 * binary env file could clear the screen, move the cursor or retitle the terminal. Everything xpk prints on stderr
 * goes through {@link escapeControl}.
 */

// C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides that reorder what is shown.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** Replaces terminal control characters with visible escapes (`\x1b`, `\r`, `\u202e`); tabs and newlines stay. */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (c === '\r') return '\\r'
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** Whether a one-line value (a name, a path) contains a character {@link escapeControl} would replace, or a newline. */
export function hasControlCharacters(text: string): boolean {
  return escapeControl(text) !== text || /[\n\t]/.test(text)
}
