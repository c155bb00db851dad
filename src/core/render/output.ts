/**
 * What a list or describe command prints for each `-o` (README, "Output"), in one place: each command declares a
 * view of its result (its table or view, its wide columns, its names, whether it found nothing) and this module
 * turns it into the text of the chosen form. JSON and YAML are not views: they print the command's result itself,
 * as data (src/cli/base-command.ts), so they are exactly what the JSON Schemas hold.
 */
import {oneLine} from '../text.js'
import {isDataFormat, type OutputChoice} from './output-format.js'
import {renderTable} from './table.js'

/** How tables are drawn: with the `-o wide` columns or not, with the header line or not (`--no-headers`). */
export interface TableStyle {
  readonly wide: boolean
  readonly headers: boolean
}

/** The default table: its own columns, with headers. */
export const PLAIN_TABLE: TableStyle = {wide: false, headers: true}

/** A column of a table: its header, its cell for an item, and whether only `-o wide` shows it. */
export interface Column<T> {
  readonly header: string
  readonly cell: (item: T) => string | number | null
  readonly wide?: boolean
}

/** A table of `items`, with the columns the style shows. */
export function renderColumns<T>(columns: readonly Column<T>[], items: readonly T[], style: TableStyle): string {
  const shown = style.wide ? columns : columns.filter((c) => !c.wide)
  return renderTable(
    shown.map((c) => c.header),
    items.map((item) => shown.map((c) => c.cell(item))),
    {headers: style.headers},
  )
}

/** How a command's result is printed in the forms that are not data. */
export interface OutputView<T> {
  /** The table or view: the default, and `-o wide` (more columns), with or without header lines. */
  readonly text: (result: T, style: TableStyle) => string
  /** `-o name`: the names xpk's flags and arguments take, one per line. */
  readonly names: (result: T) => readonly string[]
  /**
   * Lists only: true when nothing was found. Then stdout stays empty (a pipe gets no header line and no sentence to
   * parse) and a note on stderr says what was looked for, as kubectl's "No resources found".
   */
  readonly isEmpty?: (result: T) => boolean
}

/** The view of a list shown as a table: `-o name` prints each item's name; nothing found when it has no item. */
export function listView<T>(
  text: (items: readonly T[], style: TableStyle) => string,
  name: (item: T) => string,
): OutputView<readonly T[]> {
  return {text, names: (items) => items.map(name), isEmpty: (items) => items.length === 0}
}

/** What to print: nothing here (data: the command's result is printed as JSON or YAML), the note, or this text. */
export type Shown =
  {readonly kind: 'data'} | {readonly kind: 'none-found'} | {readonly kind: 'text'; readonly text: string}

/** The text of `result` in the chosen form. */
export function renderOutput<T>(view: OutputView<T>, result: T, choice: OutputChoice): Shown {
  if (isDataFormat(choice.format)) return {kind: 'data'}
  if (view.isEmpty?.(result)) return {kind: 'none-found'}
  if (choice.format === 'name') return {kind: 'text', text: view.names(result).map(oneLine).join('\n')}
  return {kind: 'text', text: view.text(result, {wide: choice.format === 'wide', headers: choice.headers})}
}
