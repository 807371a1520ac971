/**
 * Helpers shared by the vocabulary modules: own-property reads that never reach `Object.prototype`, field
 * checks that report a data path, and the boundary that turns a failed check into a `ProtocolError`.
 *
 * Nothing here reads an input value into a message: a check names the path and what was expected there.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { ProtocolError, type ProtocolErrorKind } from '../core/ProtocolError.js'
import type { EndingError, Failed, RunEnding } from '../core/RunEnding.js'
import { isObject } from '../core/values.js'

/**
 * A value whose type is wrong at `path` (thrown by the checks below, caught by {@link decodeWith}).
 * @internal
 */
export class Malformed {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {}
}

/** A plain object (not `null`, not an array): the library's one {@link isObject}. @internal */
export const isRecord: (u: unknown) => u is object = isObject

/** An own property of `o`, or `undefined`: never an inherited one (`__proto__`, `constructor`). @internal */
export const own = (o: object, key: string): unknown => (Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined)

/** The reverse of a one-to-one table of names: each value mapped back to its key. @internal */
export const invert = (table: ReadonlyMap<string, string>): ReadonlyMap<string, string> => new Map<string, string>([...table].map(([k, v]) => [v, k]))

/** Joins a base path and a key: `join('reason', 'kind')` is `reason.kind`. @internal */
export const join = (base: string, key: string | number): string => (base === '' ? String(key) : `${base}.${key}`)

/** A required string field. @internal */
export const reqString = (o: object, key: string, base: string): string => {
  const v = own(o, key)
  if (typeof v !== 'string') throw new Malformed(join(base, key), 'string')
  return v
}

/** An optional string field: absent, `undefined` or `null` give `undefined`; another non-string is malformed. @internal */
export const optString = (o: object, key: string, base: string): string | undefined => {
  const v = own(o, key)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new Malformed(join(base, key), 'string')
  return v
}

/** An optional number field: absent, `undefined` or `null` give `undefined`. @internal */
export const optNumber = (o: object, key: string, base: string): number | undefined => {
  const v = own(o, key)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number') throw new Malformed(join(base, key), 'number')
  return v
}

/** Parses JSON text; text that does not parse is returned as given. Never throws. @internal */
export const parseJsonText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** JSON text of a value, or `undefined` when it has none (a function, a cycle, a `bigint`, a too deep value). @internal */
export const toJsonText = (value: unknown): string | undefined => {
  try {
    const text: unknown = JSON.stringify(value)
    return typeof text === 'string' ? text : undefined
  } catch {
    return undefined
  }
}

/** `failed` `unrecognized` keeping the raw value (omitted when it is `undefined`). @internal */
export const unrecognized = (raw: unknown): Failed =>
  raw === undefined ? { kind: 'failed', reason: 'unrecognized' } : { kind: 'failed', reason: 'unrecognized', raw }

/** A copy of an `EndingError` with only the fields that are set. @internal */
export const copyError = (e: EndingError): EndingError => ({
  message: e.message,
  ...(e.code !== undefined ? { code: e.code } : {}),
  ...(e.name !== undefined ? { name: e.name } : {}),
})

/** How a vocabulary reports its malformed values. @internal */
export interface ErrorStyle {
  readonly kind: ProtocolErrorKind
  /** The path reported when reading the value failed for another reason (a getter that throws). */
  readonly root: string
  readonly eventType?: string
}

/**
 * Runs a reader that throws {@link Malformed} on a wrong type, and returns its ending or a `ProtocolError`
 * (index 0, the reader's path, no input values). Any other exception (a throwing getter, a proxy) becomes a
 * `ProtocolError` at the root path: this function never throws.
 * @internal
 */
export const decodeWith =
  (style: ErrorStyle, read: (value: unknown) => RunEnding) =>
  (value: unknown): E.Either<ProtocolError, RunEnding> => {
    let path = style.root
    let expected = 'a readable value'
    try {
      return E.right(read(value))
    } catch (err) {
      if (err instanceof Malformed) {
        path = err.path
        expected = err.expected
      }
    }
    return E.left(
      new ProtocolError({
        kind: style.kind,
        index: 0,
        path,
        expected,
        ...(style.eventType !== undefined ? { eventType: style.eventType } : {}),
      }),
    )
  }
