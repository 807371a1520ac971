/**
 * The tables `stats` prints, drawn to fit a width: columns that may shrink (a path from the middle, a text from
 * the end) give way first; a layout that still does not fit is refused (`undefined`), so the caller can try a more
 * compact one. Widths are terminal columns: ANSI styling counts for nothing, wide characters (CJK, emoji such
 * as ⛔) for two.
 * @module
 */
import type { Style } from '../style.js'

/** A cell: plain text, or text with a styling applied after it is cut to fit. @since 0.2.0 */
export type Cell = string | { readonly text: string; readonly paint: (s: string) => string }

/** A column of a table. @since 0.2.0 */
export interface Column {
  readonly head: string
  readonly align: 'left' | 'right'
  /**
   * How the column's text is cut when the table is too wide (not at all by default): `label`, a run's label
   * (`folder/file.jsonl #2`), drops its file's extension first, then is cut in the middle ({@link cutLabel}).
   */
  readonly shrink?: 'middle' | 'end' | 'label'
  /** The narrowest it may get (default 8). */
  readonly min?: number
  /** How readily it gives way when the table is too wide, relative to the others (default 1). */
  readonly weight?: number
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences are what is stripped
const ANSI = /\u001b\[[0-9;:]*m/g

const wide = (c: number): boolean =>
  (c >= 0x1100 && c <= 0x115f) ||
  (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) ||
  (c >= 0xac00 && c <= 0xd7a3) ||
  (c >= 0xf900 && c <= 0xfaff) ||
  (c >= 0xfe30 && c <= 0xfe4f) ||
  (c >= 0xff00 && c <= 0xff60) ||
  (c >= 0xffe0 && c <= 0xffe6) ||
  (c >= 0x1f300 && c <= 0x1f64f) ||
  (c >= 0x1f900 && c <= 0x1f9ff) ||
  (c >= 0x20000 && c <= 0x3fffd) ||
  [
    0x231a, 0x231b, 0x23e9, 0x23ea, 0x23eb, 0x23ec, 0x23f0, 0x23f3, 0x25fd, 0x25fe, 0x2614, 0x2615, 0x267f, 0x2693, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be,
    0x26c4, 0x26c5, 0x26ce, 0x26d4, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26fa, 0x26fd, 0x2705, 0x270a, 0x270b, 0x2728, 0x274c, 0x274e, 0x2753, 0x2754, 0x2755,
    0x2757, 0x2795, 0x2796, 0x2797, 0x27b0, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b55,
  ].includes(c)

const zero = (c: number): boolean => (c >= 0x300 && c <= 0x36f) || (c >= 0xfe00 && c <= 0xfe0f) || c === 0x200b || c === 0x200d

/**
 * The width of a text in terminal columns (ANSI styling removed; wide characters count 2, combining marks 0).
 * @example textWidth('⛔ blocked') // => 10
 * @since 0.2.0
 */
export const textWidth = (s: string): number => {
  let w = 0
  for (const ch of s.replace(ANSI, '')) {
    const c = ch.codePointAt(0) as number
    w += zero(c) ? 0 : wide(c) ? 2 : 1
  }
  return w
}

/** The longest start of `s` that fits in `width` columns. */
const head = (s: string, width: number): string => {
  let w = 0
  let out = ''
  for (const ch of s) {
    const cw = textWidth(ch)
    if (w + cw > width) break
    out += ch
    w += cw
  }
  return out
}

/** The longest end of `s` that fits in `width` columns. */
const tail = (s: string, width: number): string => {
  const chars = [...s]
  let w = 0
  let out = ''
  for (let i = chars.length - 1; i >= 0; i--) {
    const cw = textWidth(chars[i] as string)
    if (w + cw > width) break
    out = (chars[i] as string) + out
    w += cw
  }
  return out
}

/**
 * `s` cut to `width` columns with `…`: from the end (`end`), from the start (`start`: the end stays, so a path keeps
 * its file name and the folders nearest it) or from the middle (`middle`: the start and the end stay, so a path
 * keeps its root and its file name).
 * @example cut('~/.claude/projects/-Users-me-app/1af7fc5e.jsonl', 30, 'middle') // => '~/.claude/proj…/1af7fc5e.jsonl'
 * @example cut('~/.claude/projects/-Users-me-app/1af7fc5e.jsonl', 30, 'start') // => '…/-Users-me-app/1af7fc5e.jsonl'
 * @since 0.2.0
 */
export const cut = (s: string, width: number, how: 'middle' | 'end' | 'start' = 'end'): string => {
  if (textWidth(s) <= width) return s
  if (width <= 1) return '…'.slice(0, Math.max(0, width))
  if (how === 'end') return `${head(s, width - 1)}…`
  if (how === 'start') return `…${tail(s, width - 1)}`
  const right = Math.ceil((width - 1) / 2)
  return `${head(s, width - 1 - right)}…${tail(s, right)}`
}

/** A log file's extension before a label's run number (`.jsonl #2`, `.json.gz #1`). */
const LOG_EXTENSION = /\.(?:jsonl|ndjson|json|log|txt)(?:\.gz)?(?= #\d+$)/i

/** A run's label (`… #n`) without its file's extension: what a label too long for its room gives up first. @since 0.3.0 */
export const withoutLogExtension = (label: string): string => label.replace(LOG_EXTENSION, '')

/**
 * A run's label cut to `width`: whole when it fits; else without its file's extension (`.jsonl #1` is alike in every
 * label, and cut into it told two files apart by nothing); else that cut in the middle. @since 0.3.0
 */
export const cutLabel = (s: string, width: number): string => {
  if (textWidth(s) <= width) return s
  return cut(withoutLogExtension(s), width, 'middle')
}

const textOf = (c: Cell): string => (typeof c === 'string' ? c : c.text)

const pad = (s: string, width: number, align: 'left' | 'right'): string => {
  const gap = Math.max(0, width - textWidth(s))
  return align === 'left' ? s + ' '.repeat(gap) : ' '.repeat(gap) + s
}

/** Options of {@link renderTable}. @since 0.2.0 */
export interface TableOptions {
  readonly style: Style
  /** The widest the table may be (columns); unlimited when absent. */
  readonly maxWidth?: number
  /** Box borders (default) or none (columns two spaces apart). */
  readonly border?: boolean
}

/**
 * Draws a table (no trailing newline), shrinking the shrinkable columns to fit `maxWidth`; `undefined` when even
 * at their narrowest it is too wide.
 * @since 0.2.0
 */
export const renderTable = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<Cell>>, options: TableOptions): string | undefined => {
  const widths = tableWidths(columns, rows, options)
  return widths === undefined ? undefined : draw(columns, rows, widths, options)
}

/**
 * The column widths {@link renderTable} would draw with (shrinkable columns narrowed to fit `maxWidth`), or
 * `undefined` when the table cannot fit.
 * @since 0.2.0
 */
export const tableWidths = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<Cell>>, options: TableOptions): Array<number> | undefined => {
  const border = options.border !== false
  const n = columns.length
  const widths = columns.map((c, i) => Math.max(textWidth(c.head), ...rows.map((r) => textWidth(textOf(r[i] ?? '')))))
  const overhead = border ? 3 * n + 1 : 2 * (n - 1)
  const max = options.maxWidth ?? Number.POSITIVE_INFINITY
  let excess = widths.reduce((a, b) => a + b, 0) + overhead - max
  while (excess > 0) {
    // narrow the shrinkable column with the most room above its minimum (times its weight)
    let best = -1
    let bestRoom = 0
    for (let i = 0; i < n; i++) {
      const c = columns[i] as Column
      const room = (widths[i] as number) - Math.max(c.min ?? 8, textWidth(c.head))
      if (c.shrink === undefined || room <= 0) continue
      if (best < 0 || room * (c.weight ?? 1) > bestRoom) {
        best = i
        bestRoom = room * (c.weight ?? 1)
      }
    }
    if (best < 0) return undefined
    widths[best] = (widths[best] as number) - 1
    excess--
  }
  return widths
}

const draw = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<Cell>>, widths: ReadonlyArray<number>, options: TableOptions): string => {
  const border = options.border !== false
  const s = options.style
  const line = (cells: ReadonlyArray<string>): string =>
    border ? `${s.paint('gray', '│')} ${cells.join(` ${s.paint('gray', '│')} `)} ${s.paint('gray', '│')}` : cells.join('  ').trimEnd()
  const cell = (c: Cell, i: number): string => {
    const col = columns[i] as Column
    const w = widths[i] as number
    const text = col.shrink === 'label' ? cutLabel(textOf(c), w) : col.shrink !== undefined ? cut(textOf(c), w, col.shrink) : textOf(c)
    const padded = pad(text, w, col.align)
    if (typeof c === 'string') return padded
    // style the text only, not the padding (so a coloured cell is no wider than a plain one)
    return padded.replace(text, c.paint(text))
  }
  const out: Array<string> = []
  if (border) out.push(s.paint('gray', `┌${widths.map((w) => '─'.repeat(w + 2)).join('┬')}┐`))
  out.push(line(columns.map((c, i) => pad(s.bold(c.head), widths[i] as number, c.align))))
  for (const r of rows) out.push(line(columns.map((_, i) => cell(r[i] ?? '', i))))
  if (border) out.push(s.paint('gray', `└${widths.map((w) => '─'.repeat(w + 2)).join('┴')}┘`))
  return out.join('\n')
}

/**
 * Joins parts with `sep`, breaking the line between parts so none is wider than `width` display columns
 * (continuations start with `indent`). A part too wide for a line of its own is broken at its spaces; only a word
 * wider than a line is cut with `…`. A part holding line breaks (wrapped already) keeps its lines, and the next
 * part follows its last line. Without a width, one line.
 * @since 0.3.0
 */
export const wrapParts = (parts: ReadonlyArray<string>, width: number | undefined, indent = '', sep = ' · '): string => {
  if (width === undefined) return parts.join(sep)
  const lines: Array<string> = []
  let cur = ''
  const add = (p: string, glue: string): void => {
    const next = cur === '' ? p : `${cur}${glue}${p}`
    if (cur !== '' && textWidth(next) > width) {
      lines.push(cur)
      cur = `${indent}${p}`
    } else cur = next
  }
  for (const p of parts) {
    // a part wrapped already (its lines fit): its lines kept as they are, the next part after its last
    if (p.includes('\n')) {
      const ls = p.split('\n')
      add(ls[0] as string, sep)
      for (const l of ls.slice(1)) {
        lines.push(cur)
        cur = l
      }
      continue
    }
    // a part no line holds whole: its words, as parts of their own joined by spaces
    if (textWidth(`${indent}${p}`) > width && p.includes(' ')) {
      const words = p.split(' ')
      add(words[0] as string, sep)
      for (const w of words.slice(1)) add(w, ' ')
    } else add(p, sep)
  }
  if (cur !== '') lines.push(cur)
  return lines.map((l) => (textWidth(l) > width ? cut(l, width) : l)).join('\n')
}
