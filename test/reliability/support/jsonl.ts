/**
 * JSONL documents for the chunking properties: events serialized with LF or CRLF endings, an optional BOM,
 * blank and whitespace lines, an optional unterminated last line and invalid UTF-8; byte cut points that land
 * anywhere, inside multi-byte characters and between `\r` and `\n` included; and an oracle that splits the
 * whole buffer the simple way.
 */
import fc from 'fast-check'

export interface JsonlDoc {
  readonly bytes: Buffer
  /** lines written (before blank-line insertion), for reference */
  readonly lines: number
}

export interface DocOptions {
  /** a last line without a newline */
  readonly unterminated: boolean
  readonly bom: boolean
  /** per line: use CRLF */
  readonly crlf: ReadonlyArray<boolean>
  /** blank or whitespace-only lines inserted before the line at this position */
  readonly blanks: ReadonlyArray<[number, string]>
  /** a line holding invalid UTF-8 inside a JSON string (still a JSON line) */
  readonly badUtf8At: number | undefined
}

export const docOptionsArb: fc.Arbitrary<DocOptions> = fc.record({
  unterminated: fc.boolean(),
  bom: fc.boolean(),
  crlf: fc.array(fc.boolean(), { maxLength: 50 }),
  blanks: fc.array(fc.tuple(fc.nat(60), fc.constantFrom('', ' ', '\t', '\r', '  \t ', '\v\f')), { maxLength: 3 }),
  badUtf8At: fc.option(fc.nat(60), { nil: undefined }),
})

/** Serializes values as JSONL bytes under the options. */
export const toJsonl = (values: ReadonlyArray<unknown>, o: DocOptions): JsonlDoc => {
  const parts: Array<Buffer> = []
  if (o.bom) parts.push(Buffer.from([0xef, 0xbb, 0xbf]))
  const lines: Array<Buffer> = values.map((v, i) => {
    const text = typeof v === 'string' && v.startsWith('RAW:') ? v.slice(4) : JSON.stringify(v)
    if (o.badUtf8At !== undefined && i === o.badUtf8At % Math.max(1, values.length)) {
      // the same event, with a user message holding bytes that are not UTF-8
      return Buffer.concat([
        Buffer.from('{"type":"user/message","sessionId":"R","data":{"message":"'),
        Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]),
        Buffer.from('"}}'),
      ])
    }
    return Buffer.from(text, 'utf8')
  })
  const blanks = [...o.blanks].sort((a, b) => a[0] - b[0])
  lines.forEach((line, i) => {
    for (const [at, ws] of blanks) if (at % (lines.length + 1) === i) parts.push(Buffer.from(`${ws}\n`))
    parts.push(line)
    const last = i === lines.length - 1
    if (!(last && o.unterminated)) parts.push(Buffer.from(o.crlf[i] === true ? '\r\n' : '\n'))
  })
  return { bytes: Buffer.concat(parts), lines: lines.length }
}

export interface Line {
  readonly text: string
  readonly lineNo: number
  readonly unterminated: boolean
}

const BLANK = /^[ \t\r\v\f]*$/

/** The lines of a whole buffer, split the plain way: BOM dropped, LF split, one CR dropped, blank lines skipped. */
export const oracleLines = (bytes: Buffer): Array<Line> => {
  let b = bytes
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3)
  const out: Array<Line> = []
  let start = 0
  let lineNo = 0
  for (;;) {
    const nl = b.indexOf(10, start)
    const last = nl === -1
    const piece = b.subarray(start, last ? b.length : nl)
    if (last && piece.length === 0) break
    lineNo++
    const body = piece.length > 0 && piece[piece.length - 1] === 13 ? piece.subarray(0, piece.length - 1) : piece
    const text = body.toString('utf8')
    if (!BLANK.test(text)) out.push({ text, lineNo, unterminated: last })
    if (last) break
    start = nl + 1
  }
  return out
}

/** Cut points for a buffer: random offsets plus offsets inside multi-byte characters and between CR and LF. */
export const cutsArb = (bytes: Buffer): fc.Arbitrary<Array<number>> => {
  const special: Array<number> = []
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i] as number
    if ((b & 0xc0) === 0x80) special.push(i) // a continuation byte: cutting here splits a character
    if (b === 10 && bytes[i - 1] === 13) special.push(i) // between \r and \n
    if (i <= 3) special.push(i) // inside the BOM
  }
  const n = bytes.length
  return fc.oneof(
    fc.array(fc.nat(Math.max(0, n)), { maxLength: 12 }),
    special.length === 0 ? fc.constant<Array<number>>([]) : fc.subarray(special, { maxLength: Math.min(12, special.length) }),
    fc.constant<Array<number>>(n <= 400 ? Array.from({ length: n }, (_, i) => i) : []), // every byte its own chunk
  )
}

/** The buffer split at the cut points (sorted, deduplicated; empty chunks kept out). */
export const chunksOf = (bytes: Buffer, cuts: ReadonlyArray<number>): Array<Buffer> => {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b)
  const out: Array<Buffer> = []
  let prev = 0
  for (const p of points) {
    out.push(bytes.subarray(prev, p))
    prev = p
  }
  out.push(bytes.subarray(prev))
  return out.filter((c) => c.length > 0)
}

/** An async byte source over the chunks (copies, so nothing can be shared between chunkings). */
export async function* source(chunks: ReadonlyArray<Buffer>): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield new Uint8Array(c)
}

/** A JSONL document arbitrary over values. */
export const jsonlArb = (values: fc.Arbitrary<ReadonlyArray<unknown>>): fc.Arbitrary<JsonlDoc> =>
  fc.tuple(values, docOptionsArb).map(([vs, o]) => toJsonl(vs, o))
