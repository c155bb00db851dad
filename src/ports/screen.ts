/**
 * A terminal screen a live view redraws in place (`xpk queue`). Only a person at a terminal gets one: without a
 * terminal the view prints once, as text.
 */
export interface Screen {
  /** Rows and columns now (they change when the terminal is resized). */
  size(): {readonly rows: number; readonly columns: number}
  /** Shows exactly these lines (each at most `columns` wide, at most `rows` of them) in place of the last ones. */
  draw(lines: readonly string[]): void
  /** Calls `listener` whenever the terminal is resized, until the function returned is called. */
  onResize(listener: () => void): () => void
  /** Gives the terminal back as it was before the first draw. */
  close(): void
}
