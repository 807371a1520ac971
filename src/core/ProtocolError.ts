/**
 * `ProtocolError`: malformed input that the native protocol's rules reject (SPEC §4).
 *
 * Errors are data first: the class carries the event index, the 1-based line and file when the JSONL
 * layer knows them, the data path (`reason.kind`, built from io-ts contexts without union indices) and the
 * raw io-ts errors. Its message and `toJSON()` never contain input values, so a 100,000-level value can't
 * make formatting throw, and nothing a user logged is echoed back.
 *
 * @module
 */
import type * as t from 'io-ts'

/** Which rule rejected the input. @since 0.1.0 @category Errors */
export type ProtocolErrorKind =
  /** a line that is not JSON (native format) */
  | 'json'
  /** an event that is not an object or has no string `type` */
  | 'event'
  /** a `turn/end` whose `reason` is missing, whose `kind` is not a string, or whose known kind has fields of the wrong type */
  | 'turn-end'
  /** a seed system's ending value of the wrong shape (`endingFromEither`) */
  | 'vocabulary'

const marker = Symbol.for('run-outcome/ProtocolError')

/** Fields of a `ProtocolError`, as given to its constructor. @since 0.1.0 @category Errors */
export interface ProtocolErrorFields {
  readonly kind: ProtocolErrorKind
  /** 0-based position of the offending event in the input (RxJS `index` semantics). */
  readonly index: number
  /** Data path inside the event's `data` (or the envelope field), dot-separated: `reason.kind`. Empty for a JSON error. */
  readonly path: string
  /** What was expected there, in words: `string`, `object`, `JSON`. */
  readonly expected: string
  /** The event's `type` when known. */
  readonly eventType?: string
  /** 1-based line in the log, when read from lines. */
  readonly line?: number
  /** The file the line came from. */
  readonly file?: string
  /** The io-ts errors that explain a decode failure (empty otherwise). They hold input values: never stringify them. */
  readonly errors?: t.Errors
}

/** The JSON shape of a `ProtocolError` (SPEC §1): no input values. @since 0.1.0 @category Errors */
export interface ProtocolErrorJSON {
  readonly name: 'ProtocolError'
  readonly kind: ProtocolErrorKind
  readonly message: string
  readonly file?: string
  readonly line?: number
  readonly index: number
  readonly path: string
  readonly expected: string
  readonly eventType?: string
}

const describe = (f: Omit<ProtocolErrorFields, 'errors'>): string => {
  const where =
    f.file !== undefined && f.line !== undefined
      ? `${f.file}:${f.line}: `
      : f.file !== undefined
        ? `${f.file}: `
        : f.line !== undefined
          ? `line ${f.line}: `
          : ''
  const ev = `event #${f.index}${f.eventType !== undefined ? ` (${f.eventType})` : ''}`
  switch (f.kind) {
    case 'json':
      return `${where}${ev}: not valid JSON; every line of a native log must be one JSON object`
    case 'event':
      return `${where}${ev}${f.path !== '' ? ` at ${f.path}` : ''}: expected ${f.expected}; every event needs a string "type"`
    case 'turn-end':
      return f.path === 'data' || f.path === 'reason' || f.path === 'reason.kind'
        ? `${where}${ev} at ${f.path}: expected ${f.expected}; a turn/end must carry data.reason with a string kind (SPEC §4)`
        : `${where}${ev} at ${f.path}: expected ${f.expected}; a known reason kind's fields must have the types of SPEC §4's table`
    case 'vocabulary':
      return `${where}${f.path !== '' ? `at ${f.path}: ` : ''}expected ${f.expected}`
  }
}

/**
 * Malformed native-protocol input: a `turn/end` without a valid `reason`, a known reason kind with fields of
 * the wrong type, a non-JSON line in `native` format, or an event without a string `type` (SPEC §4).
 *
 * Returned as `Left` by the core, sent as the error notification by the operators, printed by the CLI
 * (exit 3). Use {@link isProtocolError} rather than `instanceof` across package copies.
 * @since 0.1.0
 * @category Errors
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError' as const
  readonly kind: ProtocolErrorKind
  readonly index: number
  readonly path: string
  readonly expected: string
  readonly eventType?: string
  readonly line?: number
  readonly file?: string
  readonly errors: t.Errors
  readonly [marker] = true

  constructor(fields: ProtocolErrorFields) {
    super(describe(fields))
    this.kind = fields.kind
    this.index = fields.index
    this.path = fields.path
    this.expected = fields.expected
    if (fields.eventType !== undefined) this.eventType = fields.eventType
    if (fields.line !== undefined) this.line = fields.line
    if (fields.file !== undefined) this.file = fields.file
    this.errors = fields.errors ?? []
  }

  /** A copy that names the line (and file) where the event was read. */
  at(line: number | undefined, file?: string): ProtocolError {
    return new ProtocolError({
      kind: this.kind,
      index: this.index,
      path: this.path,
      expected: this.expected,
      errors: this.errors,
      ...(this.eventType !== undefined ? { eventType: this.eventType } : {}),
      ...(line !== undefined ? { line } : this.line !== undefined ? { line: this.line } : {}),
      ...(file !== undefined ? { file } : this.file !== undefined ? { file: this.file } : {}),
    })
  }

  /** `{ name, kind, message, file?, line?, index, path, expected, eventType? }`, never the input values. */
  toJSON(): ProtocolErrorJSON {
    return {
      name: 'ProtocolError',
      kind: this.kind,
      message: this.message,
      ...(this.file !== undefined ? { file: this.file } : {}),
      ...(this.line !== undefined ? { line: this.line } : {}),
      index: this.index,
      path: this.path,
      expected: this.expected,
      ...(this.eventType !== undefined ? { eventType: this.eventType } : {}),
    }
  }
}

/** `true` for a `ProtocolError` from any copy of this package. @since 0.1.0 @category Errors */
export const isProtocolError = (u: unknown): u is ProtocolError => typeof u === 'object' && u !== null && (u as Record<symbol, unknown>)[marker] === true

/**
 * The data path of an io-ts error, as SPEC §4 names it (`reason.kind`): union and intersection member
 * indices and the root are dropped; array indices stay as numbers. Never reads the values.
 * @internal
 */
export const ioTsPath = (context: t.Context): string => {
  const parts: Array<string> = []
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1]
    const entry = context[i]
    if (parent === undefined || entry === undefined) continue
    const tag = (parent.type as { _tag?: string })._tag
    if (tag === 'UnionType' || tag === 'IntersectionType') continue
    parts.push(entry.key)
  }
  return parts.join('.')
}

/** What the innermost codec of an io-ts error expected, by name. @internal */
export const ioTsExpected = (context: t.Context): string => {
  const last = context[context.length - 1]
  return last === undefined ? 'a valid value' : last.type.name
}
