/**
 * The skim reader: one line of JSON bytes → a reduced plain object holding only the fields a translator reads,
 * read without decoding (and, with the native kernel, without parsing) the bulk of the line: tool output, file
 * contents, reasoning, message text the translator never reads.
 *
 * A translator declares what it reads as a {@link SkimSpec} (compiled once with {@link compileSkim}): at each
 * object level, the keys it reads and, for each, either `true` (the whole value, exactly as `JSON.parse` gives
 * it), a nested spec (an object keeps only the nested keys; an array keeps every element, each reduced by the
 * same spec; a string, number, boolean or `null` is kept as it is), or a conditional field `{ when, in, keep }`,
 * kept only when the object's field `when` (kept whole at the same level) is one of the values `in` (e.g. a tool
 * call's `input`, read only for tools that ask the person). Every other value is dropped, never decoded as UTF-8. A translator declares its spec beside its methods ({@link SkimDeclaration}: the spec can depend on
 * its state, e.g. only once the input's shape is known); the line readers made from translators
 * (`formats/fromTranslator.ts`) take the lines as bytes from the line splitter and skim them when the replay asks.
 * The module bundles for the browser (it touches Node's `Buffer` and `process` only when a line is skimmed).
 *
 * **How.** Two ways, with the same answers. Where the native kernel (`native/skim.c`, a Node-API addon built by
 * `npm run build`; see {@link SkimKernel}) is installed, it checks the line's whole JSON grammar in one pass over
 * the bytes and writes only the kept fields, byte for byte, as compact JSON text, which `JSON.parse` reads: the
 * dropped values are neither decoded nor built. Without it, the line's bytes are read as Latin-1 text (one
 * character per byte: a copy at memcpy speed, where the UTF-8 decoder of a line with any non-ASCII byte builds a
 * two-byte string at a fraction of that speed), that text is parsed by `JSON.parse`, and the spec's fields are
 * taken from the result, only their strings read as UTF-8.
 *
 * **Exactness.** {@link skimLine} answers only what `JSON.parse` of the line's UTF-8 text gives for those fields,
 * or {@link DECLINE}, and the caller then parses the line whole. The kernel declines every line `JSON.parse`
 * rejects (it checks the grammar of dropped values too), a key with a backslash where keys are matched (it could
 * spell a spec key), a condition's string value with a backslash, and nesting past 512 levels; a kept value is
 * the line's own bytes between ASCII delimiters, so its UTF-8 reading is the full decode's. For the Latin-1 way:
 * the two texts have the same ASCII characters at
 * the same places, and where the UTF-8 text has a run of non-ASCII characters the Latin-1 text has one too (a
 * byte at or above 0x80 never decodes to ASCII; invalid UTF-8 becomes U+FFFD); JSON's grammar allows non-ASCII
 * characters only inside strings and treats them all alike, so `JSON.parse` rejects one text exactly when it
 * rejects the other, and gives the same objects, keys of ASCII, numbers, literals and ASCII strings, the last of
 * a key written twice. A kept string with a character at or above U+0080 holds that string's raw bytes there, so
 * its UTF-8 reading is the decoder's reading of those characters as bytes — the decoder the line reader uses, with
 * the same result, since the bytes of a string sit between ASCII quotes and an ASCII byte always ends a UTF-8
 * sequence — provided no `\u` escape in the line stands for such a character (then the skim declines). It also
 * declines: a line that is not one object starting at its first byte; a non-ASCII key inside a kept whole value
 * (two could become one); and anything that exhausts the stack.
 *
 * **Where it saves.** With the kernel: every line of {@link KERNEL_SKIM_MIN_BYTES} or more (the parse of the
 * bulk is what it saves: tool output, file contents, reasoning). Without it, only lines with a non-ASCII byte: a
 * line of ASCII bytes only is declined at once (Node's `isAscii`, simdutf), since its UTF-8 decoding already is a
 * copy and its full parse costs what the skim costs; taking the spec's fields costs about a microsecond a record,
 * so lines under {@link SKIM_MIN_BYTES} are parsed whole in mode `true` (measured in `bench/skim.mjs`). A scanner
 * in JavaScript that checks the grammar without building the values (this module's first form) measured no
 * faster than V8's `JSON.parse` on Node 20: as dear per byte of structure, and a string's bytes checked by a
 * regular expression at about `JSON.parse`'s own speed.
 *
 * **Turning it on.** The Node replay (`replayStream` and everything built on it) skims long lines by default
 * where the kernel loads (`src/node/nativeSkim.ts`), and parses every line whole where it does not.
 * `RUN_OUTCOME_SKIM=1` (or the replay option `skim: true`) skims long lines either way, `RUN_OUTCOME_SKIM=all` (or
 * `skim: 'all'`) every line, `RUN_OUTCOME_SKIM=0` (or `skim: false`) none; `RUN_OUTCOME_NATIVE=0` keeps the
 * kernel unloaded. The results are the same in every mode (property tests, `test/formats/skim.prop.test.ts` and
 * `test/io/skim.test.ts`, compare them over the corpus, re-serialised lines and mutations, in JavaScript and with
 * the kernel, in CI).
 *
 * @module
 */

import type { Translator } from '../../core/translator.js'

/** What {@link skimLine} returns when it cannot answer with certainty: the caller parses the line whole. @since 0.2.0 */
export const DECLINE: unique symbol = Symbol('skim declined')

/**
 * A field kept only when the object's unconditional field `when` (a key of the same spec level, kept whole) has
 * one of the values `in` (strings, or the literal `true`), as the translator will see it; `keep` says how to
 * keep it. A condition is data, not a function, so the native kernel (`src/node/nativeSkim.ts`) can decide it.
 * @since 0.2.0
 */
export interface SkimWhen {
  readonly when: string
  readonly in: ReadonlyArray<string | true>
  readonly keep: true | SkimSpec
}

/** How one key is kept: the whole value, a nested spec, or a conditional field. @since 0.2.0 */
export type SkimField = true | SkimSpec | SkimWhen

/** The keys a translator reads at one object level (see the module doc). `__proto__` is not allowed. @since 0.2.0 */
export interface SkimSpec {
  readonly [key: string]: SkimField
}

interface Field {
  /** `null`: the whole value. */
  readonly node: Node | null
  readonly when: ((fields: Readonly<Record<string, unknown>>) => boolean) | null
  /** The condition as data (for the native kernel): the deciding key and its values. */
  readonly cond: { readonly key: string; readonly in: ReadonlyArray<string | true> } | null
}

interface Node {
  readonly keys: Map<string, Field>
  /** The keys in the spec's order, the unconditional ones first; `inherited`: a name `Object.prototype` has too. */
  readonly list: ReadonlyArray<{ readonly key: string; readonly field: Field; readonly inherited: boolean }>
}

/** A compiled {@link SkimSpec} (opaque), made once by {@link compileSkim}. @since 0.2.0 */
export interface CompiledSkim {
  readonly root: Node
}

const isWhen = (f: SkimField): f is SkimWhen => typeof f === 'object' && typeof (f as SkimWhen).when === 'string' && Array.isArray((f as SkimWhen).in)

const whenOf =
  (key: string, values: ReadonlyArray<string | true>) =>
  (o: Readonly<Record<string, unknown>>): boolean => {
    const v = o[key]
    return (typeof v === 'string' || v === true) && values.includes(v)
  }

const compileNode = (spec: SkimSpec): Node => {
  const keys = new Map<string, Field>()
  for (const k of Object.keys(spec)) {
    if (k === '__proto__') throw new TypeError('a skim spec cannot name __proto__')
    // a spec key is ASCII: a key of the line that is not can never be one of them (see `utf8Of`)
    if (!/^[\x20-\x7e]*$/.test(k)) throw new TypeError('a skim spec key must be printable ASCII')
    const f = spec[k] as SkimField
    if (f === true) keys.set(k, { node: null, when: null, cond: null })
    else if (isWhen(f)) {
      if (spec[f.when] !== true) throw new TypeError(`a skim condition must name a key of its level kept whole (${k}: ${f.when})`)
      keys.set(k, { node: f.keep === true ? null : compileNode(f.keep), when: whenOf(f.when, f.in), cond: { key: f.when, in: f.in } })
    } else keys.set(k, { node: compileNode(f), when: null, cond: null })
  }
  const list = [...keys].map(([key, field]) => ({ key, field, inherited: key in Object.prototype }))
  return { keys, list: [...list.filter((x) => x.field.when === null), ...list.filter((x) => x.field.when !== null)] }
}

/**
 * A compiled spec as plain arrays, for the native kernel (`src/node/nativeSkim.ts`): one entry per key,
 * `[key, nested plan or null (the whole value), index of the deciding key or -1, the deciding values]`.
 * @internal
 */
export type SkimPlan = ReadonlyArray<readonly [string, SkimPlan | null, number, ReadonlyArray<string | true>]>

const planOf = (node: Node): SkimPlan => {
  const keys = node.list.map((x) => x.key)
  return node.list.map(
    ({ key, field }) =>
      [key, field.node === null ? null : planOf(field.node), field.cond === null ? -1 : keys.indexOf(field.cond.key), field.cond?.in ?? []] as const,
  )
}

/** The plan of `skim` (see {@link SkimPlan}). @internal */
export const skimPlan = (skim: CompiledSkim): SkimPlan => planOf(skim.root)

/**
 * Compiles a spec (the keys read at the top level of a record, nested as the record nests). Throws `TypeError`
 * for a spec naming `__proto__` (a translator bug, never input).
 * @since 0.2.0
 */
export const compileSkim = (spec: SkimSpec): CompiledSkim => ({ root: compileNode(spec) })

/**
 * Lines shorter than this (bytes) are parsed whole in mode `true`: taking a record's fields costs about a
 * microsecond, what the UTF-8 decoding it saves costs on a line of a few kilobytes (measured in `bench/skim.mjs`).
 * @since 0.2.0
 */
export const SKIM_MIN_BYTES = 4096

/**
 * Which lines a reader skims: `true` those of at least {@link SKIM_MIN_BYTES} bytes, `'all'` every line (tests),
 * `false` none.
 * @since 0.2.0
 */
export type SkimMode = boolean | 'all'

/** Lines answered and declined since the process started (work counts for tests and benches, not timings). @since 0.2.0 */
export const skimCounts = { answered: 0, declined: 0 }

/**
 * Process-wide settings of {@link skimLine}: `asciiLines` skims lines of ASCII bytes only too (tests, so that the
 * reduction is compared with the full parse on every line; the readers decline those lines by default).
 * @since 0.2.0
 */
export const skimSettings = { asciiLines: false }

/** Node's unchecked slice decoder (what `Buffer#toString('latin1')` calls after checking its arguments). */
interface RawSlices {
  latin1Slice(start: number, end: number): string
}

/** The line being skimmed, as Latin-1 text (one character per byte), one line at a time, synchronously. */
let S = ''
/**
 * Whether the line may hold a `\u` escape of a character at or above U+0080 (`-1`: not looked for yet). Only such
 * an escape makes a kept string's characters ambiguous (see {@link utf8Of}).
 */
let highEscape = -1

/** Thrown (one shared object) when the skim cannot answer; caught by {@link skimLine}. */
const FAIL = { fail: true }

/** A character at or above U+0080. */
const HIGH = /[\u0080-\uffff]/
/** A `\u` escape that may stand for a character at or above U+0080 (over-approximated: `\\u` matches too). */
const HIGH_ESCAPE = /\\u(?!00[0-7])/

/** `true` when `s` holds a character at or above U+0080. */
const isHigh = (s: string): boolean => {
  if (s.length > 64) return HIGH.test(s)
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return true
  return false
}

/**
 * The string the full parse gives for the string `s` that `JSON.parse` read from the line's Latin-1 text. An
 * ASCII string is the same. Otherwise its characters at or above U+0080 are its raw bytes (no escape in the line
 * stands for one), so the string's UTF-8 reading is the decoder's reading of those characters as bytes: the
 * decoder the line reader uses, and the same result, since an ASCII byte always ends a UTF-8 sequence (escapes
 * decode to ASCII here) and the bytes of a string sit between ASCII quotes. Throws {@link FAIL} when the line may
 * hold an escape of a character at or above U+0080 (the full parse answers).
 */
const utf8Of = (s: string): string => {
  if (!isHigh(s)) return s
  if (highEscape === -1) highEscape = HIGH_ESCAPE.test(S) ? 1 : 0
  if (highEscape === 1) throw FAIL
  return Buffer.from(s, 'latin1').toString('utf8')
}

/** `v` (from `JSON.parse` of the Latin-1 text, owned here) with every string read as UTF-8, in place. */
const utf8Value = (v: unknown): unknown => {
  if (typeof v === 'string') return utf8Of(v)
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i]
      if (typeof x === 'string' || (typeof x === 'object' && x !== null)) v[i] = utf8Value(x)
    }
    return v
  }
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) {
    // a key that is not ASCII would be renamed (and two could become one): the full parse answers
    if (isHigh(k)) throw FAIL
    const x = o[k]
    if (typeof x === 'string' || (typeof x === 'object' && x !== null)) o[k] = utf8Value(x)
  }
  return o
}

const keep = (v: unknown, f: Field): unknown => (f.node === null ? utf8Value(v) : reducedValue(v, f.node))

/** `v` reduced by `node`: an object keeps the keys of `node`, an array each element reduced, anything else itself. */
const reducedValue = (v: unknown, node: Node): unknown => {
  if (typeof v !== 'object' || v === null) return typeof v === 'string' ? utf8Of(v) : v
  if (Array.isArray(v)) {
    const out: Array<unknown> = []
    for (let i = 0; i < v.length; i++) out.push(reducedValue(v[i], node))
    return out
  }
  return reducedObject(v as Record<string, unknown>, node)
}

/** The object `src` with only the keys of `node` (in the spec's order, conditional ones last), each kept as it says. */
const reducedObject = (src: Record<string, unknown>, node: Node): Record<string, unknown> => {
  const o: Record<string, unknown> = {}
  const list = node.list
  for (let i = 0; i < list.length; i++) {
    const { key, field, inherited } = list[i] as Node['list'][number]
    const v = src[key]
    // JSON gives no `undefined`: an absent key (or one only Object.prototype has)
    if (v === undefined || (inherited && !Object.hasOwn(src, key))) continue
    if (field.when === null || field.when(o)) o[key] = keep(v, field)
  }
  return o
}

/**
 * Node's `isAscii` (`node:buffer`, simdutf; taken from `process.getBuiltinModule` on first use so the module keeps
 * no static Node import), or `null` where there is none (the line's Latin-1 text is searched instead).
 */
let isAsciiBytes: ((bytes: Uint8Array) => boolean) | null | undefined

const asciiTest = (): ((bytes: Uint8Array) => boolean) | null => {
  if (isAsciiBytes === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    const mod = typeof proc?.getBuiltinModule === 'function' ? (proc.getBuiltinModule('node:buffer') as { isAscii?: unknown } | undefined) : undefined
    isAsciiBytes = typeof mod?.isAscii === 'function' ? (mod.isAscii as (bytes: Uint8Array) => boolean) : null
  }
  return isAsciiBytes
}

/**
 * A native skim kernel (`native/skim.c`, loaded by `src/node/nativeSkim.ts`): `compile` takes a {@link SkimPlan}
 * and returns an opaque handle; `skim(line, out, handle)` writes the line's reduced record into `out` as compact
 * JSON text of ASCII characters — the kept fields' bytes as the line holds them, but every character at or above
 * U+0080 as its `\u` escape (what the UTF-8 decoder reads there), the conditional fields after the others — and
 * returns its length in bytes, or -1 when it declines (any line `JSON.parse` would reject, a reduction that does
 * not fit in `out`, and the cases its header names). It checks the whole line's grammar, dropped values included,
 * in one pass over the bytes.
 * @since 0.2.0
 */
export interface SkimKernel {
  compile(plan: SkimPlan): unknown
  skim(line: Uint8Array, out: Uint8Array, handle: unknown): number
  /**
   * Reduces the whole lines of `chunk` from `from` on, as `skim` reduces one, into `out` (at least `chunk.length -
   * from + 2` bytes) as one JSON array text, and returns how many records it wrote (-1: bad arguments). It stops
   * before the first line it does not answer: one without a newline yet, one not starting with `{`, one of `limit`
   * bytes or more, one it declines or whose reduction no longer fits in `out`; and, to be called again from there,
   * when `meta` is full or the text has reached `textMax` bytes. Empty lines (or a lone `\r`) are taken and counted.
   * `state` gets [the offset after the last newline taken, the lines taken, the text's length in bytes, 1 when it
   * stopped full]; `meta`,
   * for record k, [2k] the index of its line among the lines taken and [2k + 1] the offset after its newline.
   * Absent from kernels built before it (then lines are skimmed one by one).
   */
  skimLines?(chunk: Uint8Array, from: number, out: Uint8Array, handle: unknown, state: Int32Array, meta: Int32Array, limit: number, textMax: number): number
}

let kernel: SkimKernel | null = null
const handles = new WeakMap<CompiledSkim, unknown>()
/** The kernel's output buffer, grown to the longest line skimmed up to {@link KERNEL_KEEP_BYTES}; longer lines get their own. */
let kernelOut: Uint8Array = new Uint8Array(0)
/** Output buffers up to this size (bytes) are kept for the next line: 1 MiB. */
const KERNEL_KEEP_BYTES = 1 << 20

/**
 * Installs (or, with `null`, removes) the native kernel {@link skimLine} uses: with one, every line handed to
 * `skimLine` is reduced by it (ASCII lines too, since it saves the parse of the dropped values, not only their
 * decoding) and only its small result is parsed by `JSON.parse`. Process-wide (each worker thread has its own).
 * @since 0.2.0
 */
export const useSkimKernel = (k: SkimKernel | null): void => {
  kernel = k
}

/** The kernel installed by {@link useSkimKernel}, or `null`. @since 0.2.0 */
export const skimKernel = (): SkimKernel | null => kernel

/**
 * Lines shorter than this (bytes) are parsed whole in mode `true` when the native kernel is installed: below it
 * the kernel's call and the parse of its result cost what the full parse of the line costs (measured in
 * `bench/skim.mjs`).
 * @since 0.2.0
 */
export const KERNEL_SKIM_MIN_BYTES = 512

/** The shortest line mode `true` skims: {@link KERNEL_SKIM_MIN_BYTES} with the native kernel, else {@link SKIM_MIN_BYTES}. @since 0.2.0 */
export const skimMinBytes = (): number => (kernel !== null ? KERNEL_SKIM_MIN_BYTES : SKIM_MIN_BYTES)

/**
 * The text of the kernel's output `buf[0, n)`: ASCII (it writes every character at or above U+0080 as a `\u`
 * escape), so read one byte a character, at the speed of a copy (Node's UTF-8 decoder builds a two-byte string,
 * ten times slower, as soon as one byte is not ASCII).
 */
const asciiText = (buf: Uint8Array, n: number): string => (buf as unknown as RawSlices).latin1Slice(0, n)

/** Room for the kernel's output for `bytes` of input: escapes make non-ASCII text longer (a line that does not fit is declined). */
const outRoom = (bytes: number): number => 3 * bytes + 16

/** The kernel's compiled form of `skim`, made on first use. */
const handleOf = (k: SkimKernel, skim: CompiledSkim): unknown => {
  let h = handles.get(skim)
  if (h === undefined) {
    h = k.compile(skimPlan(skim))
    handles.set(skim, h)
  }
  return h
}

const kernelSkim = (k: SkimKernel, line: Buffer, skim: CompiledSkim): Record<string, unknown> | typeof DECLINE => {
  const h = handleOf(k, skim)
  let out = kernelOut
  const need = outRoom(line.length)
  if (out.length < need) {
    // past the kept size, room for the line itself: only a line of much non-ASCII kept text is declined
    out = Buffer.allocUnsafeSlow(need <= KERNEL_KEEP_BYTES ? Math.max(need, Math.min(2 * out.length, KERNEL_KEEP_BYTES)) : line.length + 16)
    if (out.length <= KERNEL_KEEP_BYTES) kernelOut = out
  }
  const n = k.skim(line, out, h)
  if (n < 0) {
    skimCounts.declined++
    return DECLINE
  }
  try {
    // the kernel wrote one object, the reduction of a line it checked whole: it parses
    const v = JSON.parse(asciiText(out, n)) as Record<string, unknown>
    skimCounts.answered++
    return v
  } catch {
    skimCounts.declined++
    return DECLINE
  }
}

/**
 * The records of a run of whole lines that {@link skimRecords} reduced at once. `meta` is the skim's own array,
 * valid until its next call.
 * @since 0.2.0
 */
export interface SkimmedLines {
  /** The reduced records, in the lines' order (each what {@link skimLine} gives for its line). */
  readonly records: ReadonlyArray<Record<string, unknown>>
  /** For record k: `meta[2k]`, the index of its line among the lines taken (0-based); `meta[2k + 1]`, the offset after its newline. */
  readonly meta: Int32Array
  /** The offset in the chunk after the last newline taken. */
  readonly next: number
  /** The lines taken, empty ones included. */
  readonly lines: number
  /** It stopped because its text was full, not before a line it leaves: call again from `next`. */
  readonly more: boolean
}

/** Records one call of {@link skimRecords} reduces at most. */
const BATCH_RECORDS = 4096
/**
 * The text one call writes, about (bytes; one record may pass it): a string of that size is made in V8's young
 * generation, where a larger one (a run of a 1 MiB chunk: ~200 KB of Claude Code records) is a large object of its
 * own, faulted in fresh and collected late (measured: 340 ms of 6.1 s over the Claude Code bench tree).
 */
const BATCH_TEXT_BYTES = 48 * 1024
const batchState = new Int32Array(4)
const batchMeta = new Int32Array(2 * BATCH_RECORDS)
/** The batch's output buffer, kept up to {@link BATCH_KEEP_BYTES}; a larger chunk gets one of its own. */
let batchOut: Uint8Array = new Uint8Array(0)
const BATCH_KEEP_BYTES = outRoom(2 << 20)

/**
 * Skims the whole lines of `chunk` from the offset `from` on, at once, with the native kernel (one call and one
 * `JSON.parse` for up to 4,096 records or about 48 KiB of their text, where {@link skimLine} makes one of each per
 * line): the records of the lines it takes, in order, and where it stopped (`more`: call again from there). It stops before the first line it cannot answer (a line without its
 * newline yet, one that does not start with `{`, one of `limit` bytes or more, one the reduction declines), which
 * the caller reads on its own; empty lines are taken and counted. `undefined` without a kernel that reduces lines
 * in runs. Each record equals what {@link skimLine} gives for its line (the same reduction). Never throws.
 * @since 0.2.0
 */
export const skimRecords = (chunk: Buffer, from: number, skim: CompiledSkim, limit: number): SkimmedLines | undefined => {
  const k = kernel
  if (k === null || k.skimLines === undefined) return undefined
  const h = handleOf(k, skim)
  const need = outRoom(chunk.length - from)
  let out = batchOut
  if (out.length < need) {
    out = Buffer.allocUnsafeSlow(Math.max(need, Math.min(2 * out.length, BATCH_KEEP_BYTES)))
    if (out.length <= BATCH_KEEP_BYTES) batchOut = out
  }
  const n = k.skimLines(chunk, from, out, h, batchState, batchMeta, limit, BATCH_TEXT_BYTES)
  if (n < 0) return undefined
  const next = batchState[0] as number
  const lines = batchState[1] as number
  const more = batchState[3] === 1
  if (n === 0) return { records: [], meta: batchMeta, next, lines, more }
  try {
    // the kernel wrote one array of the reductions of lines it checked whole: it parses
    const records = JSON.parse(asciiText(out, batchState[2] as number)) as Array<Record<string, unknown>>
    skimCounts.answered += n
    return { records, meta: batchMeta, next, lines, more }
  } catch {
    return undefined
  }
}

/**
 * Skims one line: the bytes of one JSON object (no newline), reduced by `skim` — or {@link DECLINE} when the skim
 * cannot answer with certainty, or would save nothing (see the module doc), and the caller parses the line whole.
 * A line of ASCII bytes only is declined unless `ascii` is `true` (default {@link skimSettings}`.asciiLines`;
 * tests): its full parse costs what the skim costs. Never throws.
 * @since 0.2.0
 */
export const skimLine = (line: Buffer, skim: CompiledSkim, ascii = skimSettings.asciiLines): Record<string, unknown> | typeof DECLINE => {
  if (line[0] !== 123) {
    skimCounts.declined++
    return DECLINE
  }
  if (kernel !== null) return kernelSkim(kernel, line, skim)
  const test = ascii ? null : asciiTest()
  if (test?.(line)) {
    skimCounts.declined++
    return DECLINE
  }
  highEscape = -1
  try {
    S = (line as unknown as RawSlices).latin1Slice(0, line.length)
    if (!ascii && test === null && !HIGH.test(S)) throw FAIL
    // the line starts with `{`: when it parses, it is an object
    const v = reducedObject(JSON.parse(S) as Record<string, unknown>, skim.root)
    skimCounts.answered++
    return v
  } catch {
    skimCounts.declined++
    return DECLINE
  } finally {
    S = ''
  }
}

/**
 * What a translator that can be skimmed declares beside its `Translator` methods: the fields `record` reads in the
 * current state, or `undefined` when every line must be parsed whole. `record` must behave on the reduced object
 * exactly as on the whole record (the Claude Code transcript and Codex rollout translators declare one).
 * @since 0.2.0
 */
export interface SkimDeclaration<S> {
  skim(state: S): CompiledSkim | undefined
}

/** The skim declaration of `translator`, or `undefined` when it declares none. @since 0.2.0 */
export const skimOf = <S>(translator: Translator<S>): ((state: S) => CompiledSkim | undefined) | undefined => {
  const f = (translator as Translator<S> & Partial<SkimDeclaration<S>>).skim
  return typeof f === 'function' ? f.bind(translator) : undefined
}

/**
 * What `skim` keeps of an already parsed value (the reference the skim is tested against): the same reduction
 * applied to `JSON.parse`'s result. `undefined` for a value that is not an object.
 * @since 0.2.0
 */
export const reduceParsed = (value: unknown, skim: CompiledSkim): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (reduceParsedNode(value, skim.root) as Record<string, unknown>) : undefined

const reduceParsedNode = (v: unknown, node: Node): unknown => {
  if (Array.isArray(v)) return v.map((x) => reduceParsedNode(x, node))
  if (typeof v !== 'object' || v === null) return v
  const src = v as Record<string, unknown>
  const o: Record<string, unknown> = {}
  const later: Array<[string, Field]> = []
  for (const [k, f] of node.keys) {
    if (!Object.hasOwn(src, k)) continue
    if (f.when !== null) later.push([k, f])
    else o[k] = f.node === null ? src[k] : reduceParsedNode(src[k], f.node)
  }
  for (const [k, f] of later) if ((f.when as (x: Record<string, unknown>) => boolean)(o)) o[k] = f.node === null ? src[k] : reduceParsedNode(src[k], f.node)
  return o
}
