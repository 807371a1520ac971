/**
 * Help texts fitted to the terminal: the commands write their help as paragraphs and option entries, and
 * {@link fitHelp} re-wraps them to the width (the terminal's, else `COLUMNS`, else 80 columns), so `--help` is readable in
 * an 80-column terminal and uses a wide one.
 *
 * The text's shape is read from its lines:
 * - an **entry** is an indented line `  --name ARG   description` or `  command   summary` (two or more spaces
 *   before the description); the following lines indented exactly to the description's column continue it, and
 *   wrapped lines go there too;
 * - a **paragraph** is a run of unindented lines; a line ending a sentence (`.` or `:`) ends it, so sentences the
 *   author started on a new line still do;
 * - an indented line under an `Examples:` heading is a shell command, maybe with a `# comment` after it: one too
 *   long loses the comment's alignment, then has the comment put on the line above it, and then wraps with ` \`
 *   continuations indented four further, so it can still be pasted;
 * - an indented line of a JSON sample (its first character `{`, `}`, `[`, `]` or `"`) is kept as written;
 * - any other indented line stands alone, and wraps to its own indentation;
 * - blank lines are kept.
 *
 * A block whose lines all fit is kept exactly as written; only a block with a line over the width is re-filled.
 * No word is changed, dropped or split: a word longer than the room left stands alone on its line.
 * @module
 */
import { type CliIO, outputWidth, type TextSink } from './io.js'

/**
 * The width help is wrapped to: the output's width ({@link outputWidth}: the terminal's, else `COLUMNS`) held
 * within 40 and 100, else 80.
 * @internal
 */
export const helpWidth = (sink: Pick<TextSink, 'isTTY' | 'columns'>, env: CliIO['env'] = {}): number => {
  const w = outputWidth(sink, env)
  return w === undefined ? 80 : Math.min(100, Math.max(40, w))
}

const ENTRY = /^( +)(\S(?:\S| (?! ))*)( {2,})(\S.*)$/

const indentOf = (line: string): number => line.length - line.trimStart().length

/**
 * `words` filled into lines of at most `width` columns: the first after `first`, the rest after `indent` spaces
 * (or after `rest`, when given); each line but the last ends with `end`, counted in the width.
 */
const fill = (first: string, indent: number, words: ReadonlyArray<string>, width: number, rest = ' '.repeat(indent), end = ''): Array<string> => {
  const out: Array<string> = []
  let line = first
  let empty = true
  for (const w of unitsOf(words)) {
    if (!empty && line.length + 1 + w.length + end.length > width) {
      out.push(line + end)
      line = rest
      empty = true
    }
    line += empty ? w : ` ${w}`
    empty = false
  }
  out.push(line)
  return out
}

/**
 * The units a line may break between: its words, but a closing bracket (`}`, `)`) stays with the word before it,
 * and a short quoted phrase (`'tail -F'`) is one unit.
 */
const unitsOf = (words: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  let quote: string | undefined
  for (const w of words) {
    if (w === '') continue
    if (/^[)\]}]+[.,;:]?$/.test(w) && out.length > 0) {
      out[out.length - 1] += ` ${w}`
      continue
    }
    if (quote !== undefined) {
      out[out.length - 1] += ` ${w}`
      const unit = out[out.length - 1] as string
      if (w.replace(/[.,;:)]+$/, '').endsWith(quote) || unit.length > 24) {
        // a phrase too long to keep whole breaks where it would have
        if (unit.length > 24) out.splice(out.length - 1, 1, ...unit.split(' '))
        quote = undefined
      }
      continue
    }
    out.push(w)
    const mark = w[0]
    if (
      (mark === "'" || mark === '"') &&
      !w
        .slice(1)
        .replace(/[.,;:)]+$/, '')
        .endsWith(mark)
    )
      quote = mark
  }
  return out
}

const endsSentence = (line: string): boolean => /[.:]$/.test(line.trimEnd())

/** An example command line fitted to `width` (see the module doc). */
const fitExample = (line: string, width: number): Array<string> => {
  const indent = indentOf(line)
  const pad = ' '.repeat(indent)
  const m = /^(.*?\S)\s+# (.*)$/.exec(line.trim())
  const command = m !== null ? (m[1] as string) : line.trim()
  if (m !== null && indent + command.length + 3 + (m[2] as string).length <= width) return [`${pad}${command} # ${m[2]}`]
  const out = m !== null ? fill(`${pad}# `, indent + 2, (m[2] as string).split(/ +/), width, `${pad}# `) : []
  out.push(...fill(pad, indent + 4, command.split(/ +/), width, ' '.repeat(indent + 4), ' \\'))
  return out
}

/**
 * `text` re-wrapped to `width` columns (see the module doc): the same words in the same order, each line at most
 * `width` columns unless one word is longer. Never throws.
 * @internal
 */
export const fitHelp = (text: string, width: number): string => {
  const lines = text.split('\n')
  const out: Array<string> = []
  let i = 0
  let examples = false
  while (i < lines.length) {
    const line = lines[i] as string
    const indent = indentOf(line)
    if (indent === 0 && line.trim() !== '') examples = /Examples:$/.test(line.trim())
    if (examples && indent > 0) {
      out.push(...(line.length <= width ? [line] : fitExample(line, width)))
      i++
      continue
    }
    if (indent > 0 && /^[{}[\]"]/.test(line.trimStart())) {
      out.push(line)
      i++
      continue
    }
    const entry = indent > 0 ? ENTRY.exec(line) : null
    // the lines of this block: [i, j)
    let j = i + 1
    if (line.trim() === '') {
      // a blank line is its own block
    } else if (entry !== null) {
      const column = line.length - (entry[4] as string).length
      while (j < lines.length && (lines[j] as string).trim() !== '' && indentOf(lines[j] as string) === column && ENTRY.exec(lines[j] as string) === null) j++
    } else if (indent === 0) {
      while (j < lines.length && !endsSentence(lines[j - 1] as string) && (lines[j] as string).trim() !== '' && indentOf(lines[j] as string) === 0) j++
    }
    const block = lines.slice(i, j)
    i = j
    if (block.every((l) => l.length <= width)) {
      out.push(...block)
      continue
    }
    const words = block.flatMap((l, k) => (k === 0 && entry !== null ? (entry[4] as string) : l.trim()).split(/ +/))
    if (entry === null) out.push(...fill(' '.repeat(indent), indent, words, width))
    else {
      const head = `${entry[1]}${entry[2]}${entry[3]}`
      if (head.length <= width - 20) out.push(...fill(head, head.length, words, width))
      else {
        // no room for the description beside a long term: it goes below, four columns further in
        out.push(`${entry[1]}${entry[2]}`)
        out.push(...fill(' '.repeat(indent + 4), indent + 4, words, width))
      }
    }
  }
  return out.join('\n')
}
