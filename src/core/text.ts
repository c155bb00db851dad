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

/**
 * A one-line value (a name, a path, a flag's value) as it is quoted in a message: control characters escaped as by
 * {@link escapeControl}, and newlines and tabs too (`\n`, `\t`), so a value can never break a message into lines
 * that look like xpk's own.
 */
export function escapeInline(text: string): string {
  return escapeControl(text).replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'))
}

/**
 * Free text from an API (a status message, a name) on one line of a table or a progress line: line breaks and tabs
 * become one space (none at either end), control characters are escaped as by {@link escapeControl}.
 */
export function oneLine(text: string): string {
  // Most text has neither (one test instead of two replaces, for every cell of a long list).
  if (!NEEDS_CLEANING.test(text)) return text
  return escapeControl(text.replace(/\s*[\r\n\t]+\s*/g, ' ').trim())
}

/** A character `oneLine` changes: line breaks and tabs (C0 controls) and whatever escapeControl replaces. */
// eslint-disable-next-line no-control-regex
const NEEDS_CLEANING = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** Whether a one-line value (a name, a path) contains a character {@link escapeControl} would replace, or a newline. */
export function hasControlCharacters(text: string): boolean {
  return escapeControl(text) !== text || /[\n\t]/.test(text)
}

// `scheme://user:password@`: the user-info part of a URL, up to the host.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi

/**
 * Hides the credentials a URL may carry (`https://admin:secret@10.0.0.1` -> `https://***@10.0.0.1`). A kubeconfig's
 * server URL can hold them, and an error or a description quoting it must not print them; every message xpk prints
 * goes through this (src/cli/base-command.ts formatError, src/core/errors.ts errorToJson, the console).
 */
export function redactCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@')
}
