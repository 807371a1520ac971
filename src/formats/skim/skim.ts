/**
 * The skim reader: one line of JSON bytes → a reduced plain object holding only the fields a translator reads,
 * without materialising the bulk (tool output, file contents, thinking, instructions) that decides nothing.
 *
 * A translator declares what it reads as a {@link SkimSpec} (compiled once with {@link compileSkim}): at each
 * object level, the keys it reads and, for each, either `true` (the whole value, exactly as `JSON.parse` gives
 * it), a nested spec (an object keeps only the nested keys; an array keeps every element, each reduced by the
 * same spec; a string, number, boolean or `null` is kept as it is), or a conditional field `{ when, keep }`, kept
 * only when `when` holds for the object's unconditional fields (e.g. a tool call's `input`, read only for tools
 * that ask the person; a condition reads only unconditional fields). Every other value is checked and skipped,
 * never decoded. A translator declares its spec beside its methods ({@link SkimDeclaration}: the spec can depend
 * on its state, e.g. only once the input's shape is known); the line readers made from translators
 * (`formats/fromTranslator.ts`) take the lines as bytes from the line splitter and skim them when the replay asks.
 * The module bundles for the browser (it touches Node's `Buffer` only when a line is skimmed).
 *
 * **Exactness.** {@link skimLine} answers only what `JSON.parse` of the whole line would answer for those fields,
 * or {@link DECLINE}, and the caller then parses the line whole. It checks every byte of the line against the
 * JSON grammar (strings, escapes, control characters, numbers, literals, nesting, nothing after the object), so a
 * line `JSON.parse` rejects is always declined. It declines, rather than being clever, on: a line that is not one
 * object starting at its first byte; a key of the spec written twice in one object (`JSON.parse` keeps the last);
 * and anything that exhausts the stack (deep nesting, a string of millions of escapes). Values it keeps are decoded
 * from their own bytes: strings as UTF-8 by Node's decoder, the one the line reader uses (so invalid UTF-8 becomes
 * U+FFFD as there: a slice always ends at an ASCII byte), or with `JSON.parse` of their slice when they hold an
 * escape (`\"`, `\\`, `\uXXXX`, surrogate pairs: decoded exactly as in the whole line); whole values with
 * `JSON.parse` of their slice; numbers with `Number` (the conversion `JSON.parse` makes). A key with an escape is
 * decoded before it is matched, so `"ty\u0070e"` is the key `type`.
 *
 * **Where the time goes.** The line's bytes are read as Latin-1 text (one character per byte, a copy at memcpy
 * speed), so the structure is walked with `charCodeAt`; a string's first characters are checked one by one and the
 * rest of a longer one is crossed by one sticky regular expression (the JSON string grammar, run by V8's compiled
 * regex engine), never decoded. Keys are compared with the spec's on their characters. Checking costs what it
 * costs: in JavaScript it is about as dear per byte of structure as `JSON.parse`'s own scan, so the skim saves only
 * on lines whose bytes are mostly long strings it skips. Lines under {@link SKIM_MIN_BYTES} are therefore parsed
 * whole in mode `true` (measured in `bench/skim.mjs`).
 *
 * **Turning it on.** The skim is off by default: on Node 20 it has not yet been measured faster end to end (see
 * `bench/skim.mjs`; `JSON.parse` is about as fast per byte as checking the grammar in JavaScript, and the line reader's
 * other work dominates). `RUN_OUTCOME_SKIM=1` in the environment (read by the Node replay, `replayStream`) or the
 * replay option `skim: true` skims lines of {@link SKIM_MIN_BYTES} or more; `RUN_OUTCOME_SKIM=all` or `skim: 'all'`
 * every line; `RUN_OUTCOME_SKIM=0`, unset, or `skim: false` parses every line whole. The results are the same in
 * every mode (a property test, `test/formats/skim.prop.test.ts`, compares them over the corpus, re-serialised lines
 * and mutations, in CI).
 *
 * @module
 */

import type { Translator } from '../../core/translator.js'

/** What {@link skimLine} returns when it cannot answer with certainty: the caller parses the line whole. @since 0.2.0 */
export const DECLINE: unique symbol = Symbol('skim declined')

/**
 * A field kept only when `when` holds for the object's unconditional fields (already reduced, as the translator
 * will see them); `keep` says how to keep it.
 * @since 0.2.0
 */
export interface SkimWhen {
  readonly when: (fields: Readonly<Record<string, unknown>>) => boolean
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
}

interface Key {
  readonly key: string
  readonly bytes: Uint8Array
  readonly field: Field
}

interface Node {
  readonly keys: Map<string, Field>
  /** The keys by their length (all printable ASCII): a key is matched on its characters, never decoded. */
  readonly byLength: Array<Array<Key> | undefined>
}

/** A compiled {@link SkimSpec} (opaque), made once by {@link compileSkim}. @since 0.2.0 */
export interface CompiledSkim {
  readonly root: Node
}

const isWhen = (f: SkimField): f is SkimWhen => typeof f === 'object' && typeof (f as SkimWhen).when === 'function'

const compileNode = (spec: SkimSpec): Node => {
  const keys = new Map<string, Field>()
  const byLength: Array<Array<Key> | undefined> = []
  for (const k of Object.keys(spec)) {
    if (k === '__proto__') throw new TypeError('a skim spec cannot name __proto__')
    // a spec key must be printable ASCII to be matched on its bytes
    if (!/^[\x20-\x7e]*$/.test(k) || k.includes('"') || k.includes('\\'))
      throw new TypeError('a skim spec key must be printable ASCII without quotes or backslashes')
    const f = spec[k] as SkimField
    if (f === true) keys.set(k, { node: null, when: null })
    else if (isWhen(f)) keys.set(k, { node: f.keep === true ? null : compileNode(f.keep), when: f.when })
    else keys.set(k, { node: compileNode(f), when: null })
    const bytes = Uint8Array.from(k, (ch) => ch.charCodeAt(0))
    const same = byLength[k.length] ?? []
    same.push({ key: k, bytes, field: keys.get(k) as Field })
    byLength[k.length] = same
  }
  return { keys, byLength }
}

/**
 * Compiles a spec (the keys read at the top level of a record, nested as the record nests). Throws `TypeError`
 * for a spec naming `__proto__` (a translator bug, never input).
 * @since 0.2.0
 */
export const compileSkim = (spec: SkimSpec): CompiledSkim => ({ root: compileNode(spec) })

/**
 * Lines shorter than this (bytes) are parsed whole in mode `true`: on a short record the fields kept cost about what
 * `JSON.parse` costs, and the skim wins only where the bulk is (measured in `bench/skim.mjs`).
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
 * The rest of a JSON string after its first characters: unescaped runs and valid escapes, no control character,
 * up to and with the closing quote. Sticky, and unambiguous (each run is followed by a backslash or the quote), so
 * a string that does not end fails in linear time. Run over the line's bytes as Latin-1 text (one character per
 * byte).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a JSON string cannot hold
const STRING_REST = /[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"/y

/**
 * Plain kept strings shorter than this are sliced from the line's Latin-1 text instead of decoded: V8 copies a
 * slice under 13 characters (a longer one would point into the line's text and keep all of it alive).
 */
const PLAIN_SLICE_MAX = 13

/** Characters of a string checked one by one before {@link STRING_REST} takes over (a regex call costs more than a short key). */
const SHORT = 40

// The line being skimmed: its bytes, the same bytes as Latin-1 text (one character per byte), one line at a
// time, synchronously.
let B: Buffer = null as unknown as Buffer
let S = ''
/** The cached position of the next backslash at or after the last search (`S.length` when there is none). */
let nextBs = -1
/** Where the search that found {@link nextBs} began. */
let bsFrom = 0
/** Where the value just reduced ended. */
let pos = 0
/**
 * The start of the last string {@link scanString} found plain (short, ASCII, no escape): its Latin-1 text is
 * its value.
 */
let plainAt = -1

/** Node's unchecked slice decoders (what `Buffer#toString` calls after checking its arguments). */
interface RawSlices {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
}
const utf8 = (start: number, end: number): string => (B as unknown as RawSlices).utf8Slice(start, end)

/** Thrown (one shared object) when the line is not what the skim can answer; caught by {@link skimLine}. */
const FAIL = { fail: true }

const ws = (i: number): number => {
  const s = S
  let j = i
  for (;;) {
    const c = s.charCodeAt(j)
    if (c === 32 || c === 9 || c === 13 || c === 10) j++
    else return j
  }
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)

/** The position after the JSON string starting at `i` (a quote). Throws when it is not a valid JSON string. */
const scanString = (i: number): number => {
  const s = S
  let j = i + 1
  const lim = j + SHORT
  let high = 0
  while (j < lim) {
    const c = s.charCodeAt(j)
    if (c === 34) {
      if (high < 128) plainAt = i
      return j + 1
    }
    high |= c
    if (c === 92) {
      high = 128
      const e = s.charCodeAt(j + 1)
      if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) j += 2
      else if (e === 117 && isHex(s.charCodeAt(j + 2)) && isHex(s.charCodeAt(j + 3)) && isHex(s.charCodeAt(j + 4)) && isHex(s.charCodeAt(j + 5))) j += 6
      else throw FAIL
    } else if (c < 32) throw FAIL
    else j++
  }
  // a long string: the rest in one regex run (an escape may straddle `lim`: j is always at a character boundary)
  STRING_REST.lastIndex = j
  if (!STRING_REST.test(s)) throw FAIL
  return STRING_REST.lastIndex
}

/** `true` when the string `[i, end)` holds a backslash (an escape). Linear over a line while positions grow. */
const escaped = (i: number, end: number): boolean => {
  if (i < bsFrom || nextBs < i) {
    bsFrom = i
    nextBs = S.indexOf('\\', i)
    if (nextBs === -1) nextBs = S.length
  }
  return nextBs < end
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/** The position after the number at `i`, or throws when it is not a JSON number. */
const scanNumber = (i: number): number => {
  const s = S
  let j = i
  if (s.charCodeAt(j) === 45) j++
  const c = s.charCodeAt(j)
  if (c === 48) j++
  else if (c >= 49 && c <= 57) {
    j++
    while (isDigit(s.charCodeAt(j))) j++
  } else throw FAIL
  if (s.charCodeAt(j) === 46) {
    j++
    if (!isDigit(s.charCodeAt(j))) throw FAIL
    while (isDigit(s.charCodeAt(j))) j++
  }
  const e = s.charCodeAt(j)
  if (e === 101 || e === 69) {
    j++
    const sign = s.charCodeAt(j)
    if (sign === 43 || sign === 45) j++
    if (!isDigit(s.charCodeAt(j))) throw FAIL
    while (isDigit(s.charCodeAt(j))) j++
  }
  return j
}

const literal = (i: number, word: string): number => {
  if (!S.startsWith(word, i)) throw FAIL
  return i + word.length
}

/** The position after the value at `i`, checked against the JSON grammar and not decoded. Throws when invalid. */
const skipValue = (i: number): number => {
  const s = S
  const c = s.charCodeAt(i)
  if (c === 34) return scanString(i)
  if (c === 123) {
    let j = ws(i + 1)
    if (s.charCodeAt(j) === 125) return j + 1
    for (;;) {
      if (s.charCodeAt(j) !== 34) throw FAIL
      j = ws(scanString(j))
      if (s.charCodeAt(j) !== 58) throw FAIL
      j = ws(skipValue(ws(j + 1)))
      const d = s.charCodeAt(j)
      if (d === 44) j = ws(j + 1)
      else if (d === 125) return j + 1
      else throw FAIL
    }
  }
  if (c === 91) {
    let j = ws(i + 1)
    if (s.charCodeAt(j) === 93) return j + 1
    for (;;) {
      j = ws(skipValue(j))
      const d = s.charCodeAt(j)
      if (d === 44) j = ws(j + 1)
      else if (d === 93) return j + 1
      else throw FAIL
    }
  }
  if (c === 116) return literal(i, 'true')
  if (c === 102) return literal(i, 'false')
  if (c === 110) return literal(i, 'null')
  return scanNumber(i)
}

/** The whole value at `i`, as `JSON.parse` gives it; sets {@link pos}. */
const wholeValue = (i: number): unknown => {
  const c = S.charCodeAt(i)
  const end = skipValue(i)
  pos = end
  if (c === 34) {
    // a short plain string (a type, a flag name) is sliced from the line's text: V8 copies slices this short, so
    // none keeps the line alive
    if (plainAt === i && end - i - 2 < PLAIN_SLICE_MAX) return S.slice(i + 1, end - 1)
    return escaped(i, end) ? JSON.parse(utf8(i, end)) : utf8(i + 1, end - 1)
  }
  if (c === 123 || c === 91) return JSON.parse(utf8(i, end))
  if (c === 116) return true
  if (c === 102) return false
  if (c === 110) return null
  return Number(S.slice(i, end))
}

/** The value at `i` reduced by `node`; sets {@link pos}. */
const reducedValue = (i: number, node: Node): unknown => {
  const c = S.charCodeAt(i)
  if (c === 123) return reducedObject(i, node)
  if (c === 91) {
    const out: Array<unknown> = []
    let j = ws(i + 1)
    if (S.charCodeAt(j) === 93) {
      pos = j + 1
      return out
    }
    for (;;) {
      out.push(reducedValue(j, node))
      j = ws(pos)
      const d = S.charCodeAt(j)
      if (d === 44) j = ws(j + 1)
      else if (d === 93) {
        pos = j + 1
        return out
      } else throw FAIL
    }
  }
  return wholeValue(i)
}

const keep = (i: number, f: Field): unknown => (f.node === null ? wholeValue(i) : reducedValue(i, f.node))

/** The key of `node` whose text is `S[a, z)` (a key without escapes), or `undefined`. Compared, never sliced. */
const match = (node: Node, a: number, z: number): Key | undefined => {
  const cands = node.byLength[z - a]
  if (cands === undefined) return undefined
  const s = S
  const n = z - a
  for (let c = 0; c < cands.length; c++) {
    const k = cands[c] as Key
    const kb = k.bytes
    let i = 0
    while (i < n && s.charCodeAt(a + i) === kb[i]) i++
    if (i === n) return k
  }
  return undefined
}

/** The object at `i` with only the keys of `node`; sets {@link pos}. Throws on a spec key written twice. */
const reducedObject = (i: number, node: Node): Record<string, unknown> => {
  const s = S
  const o: Record<string, unknown> = {}
  // conditional fields: [key, value start, field], decided once the object's other fields are known
  let later: Array<[string, number, Field]> | null = null
  let j = ws(i + 1)
  if (s.charCodeAt(j) === 125) {
    pos = j + 1
    return o
  }
  for (;;) {
    if (s.charCodeAt(j) !== 34) throw FAIL
    const ke = scanString(j)
    let key = ''
    let f: Field | undefined
    if (escaped(j, ke)) {
      key = JSON.parse(utf8(j, ke)) as string
      f = node.keys.get(key)
    } else {
      const m = match(node, j + 1, ke - 1)
      if (m !== undefined) {
        key = m.key
        f = m.field
      }
    }
    j = ws(ke)
    if (s.charCodeAt(j) !== 58) throw FAIL
    j = ws(j + 1)
    if (f === undefined) j = skipValue(j)
    else {
      if (Object.hasOwn(o, key) || later?.some((x) => x[0] === key)) throw FAIL
      if (f.when !== null) {
        if (later === null) later = []
        later.push([key, j, f])
        j = skipValue(j)
      } else {
        o[key] = keep(j, f)
        j = pos
      }
    }
    j = ws(j)
    const d = s.charCodeAt(j)
    if (d === 44) j = ws(j + 1)
    else if (d === 125) break
    else throw FAIL
  }
  const end = j + 1
  if (later !== null) {
    for (const [key, at, f] of later) if ((f.when as (x: Record<string, unknown>) => boolean)(o)) o[key] = keep(at, f)
  }
  pos = end
  return o
}

/**
 * Skims one line: the bytes of one JSON object (no newline), reduced by `skim` — or {@link DECLINE} when the skim
 * cannot answer with certainty (see the module doc), and the caller parses the line whole. Never throws.
 * @since 0.2.0
 */
export const skimLine = (line: Buffer, skim: CompiledSkim): Record<string, unknown> | typeof DECLINE => {
  if (line[0] !== 123) {
    skimCounts.declined++
    return DECLINE
  }
  B = line
  S = (line as unknown as RawSlices).latin1Slice(0, line.length)
  nextBs = -1
  bsFrom = 0
  plainAt = -1
  try {
    const v = reducedObject(0, skim.root)
    if (ws(pos) !== S.length) throw FAIL
    skimCounts.answered++
    return v
  } catch {
    skimCounts.declined++
    return DECLINE
  } finally {
    B = null as unknown as Buffer
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
