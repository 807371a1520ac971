/**
 * The first reason a value fails an io-ts codec, found by walking the codec and the value together and
 * stopping at the first mismatch — never by `codec.decode`, which builds one error (with its context array) per
 * failing element: a line holding a 25-million-element array of bad items made that 4.7 GB. The walk allocates
 * only the context of the one path it reports, and reads each field once.
 *
 * The error it returns is an ordinary io-ts `ValidationError` (`{ value, context }`), so `ioTsPath` and
 * `ioTsExpected` read it as before: the data path (`reason.kind`, `inserted.3.id`) and the codec expected there.
 *
 * @module
 */
import type * as t from 'io-ts'
import { isObject } from './values.js'

interface Walked {
  readonly _tag?: string
  readonly props?: t.Props
  readonly types?: ReadonlyArray<t.Mixed>
  readonly type?: t.Mixed
  readonly domain?: t.Mixed
  readonly codomain?: t.Mixed
  /** our fast codecs (`struct`, `arrayOf` in events.ts) keep the io-ts codec that describes them here */
  readonly explain?: t.Mixed
}

/** Reads a field, treating a getter that throws as a missing value (a value that then fails its codec). */
const field = (o: Record<string, unknown>, k: string): unknown => {
  try {
    return o[k]
  } catch {
    return undefined
  }
}

const walk = (codec: t.Mixed, value: unknown, context: Array<t.ContextEntry>, depth: number): t.ValidationError => {
  const here = (): t.ValidationError => ({ value, context: context.slice() })
  if (depth > 64) return here()
  const c = ((codec as unknown as Walked).explain ?? codec) as t.Mixed & Walked
  const down = (key: string, type: t.Mixed, actual: unknown): t.ValidationError => {
    context.push({ key, type, actual })
    return walk(type, actual, context, depth + 1)
  }
  switch (c._tag) {
    case 'InterfaceType':
    case 'StrictType':
    case 'PartialType': {
      if (!isObject(value)) return here()
      const partial = c._tag === 'PartialType'
      const props = c.props ?? {}
      for (const k of Object.keys(props)) {
        const p = props[k] as t.Mixed
        const v = field(value, k)
        if (partial && v === undefined) continue
        if (!p.is(v)) return down(k, p, v)
      }
      return here()
    }
    case 'IntersectionType': {
      const types = c.types ?? []
      for (let i = 0; i < types.length; i++) {
        const m = types[i] as t.Mixed
        if (!m.is(value)) return down(String(i), m, value)
      }
      return here()
    }
    case 'ArrayType':
    case 'ReadonlyArrayType': {
      if (!Array.isArray(value) || c.type === undefined) return here()
      const item = c.type
      for (let i = 0; i < value.length; i++) {
        const v = value[i] as unknown
        if (!item.is(v)) return down(String(i), item, v)
      }
      return here()
    }
    case 'DictionaryType': {
      if (!isObject(value) || c.codomain === undefined) return here()
      const item = c.codomain
      for (const k of Object.keys(value)) {
        const v = field(value, k)
        if (!item.is(v)) return down(k, item, v)
      }
      return here()
    }
    case 'UnionType': {
      // io-ts reports every member's errors, the first member's first: so does this walk (ioTsPath drops the index)
      const first = c.types?.[0]
      return first === undefined ? here() : down('0', first, value)
    }
    case 'ExactType':
    case 'ReadonlyType':
      return c.type === undefined ? here() : walk(c.type, value, context, depth + 1)
    default:
      return here()
  }
}

/**
 * The first error of `value` against `codec`, or `undefined` when it is valid. The context starts with the
 * codec itself under key `''`, as io-ts's own does.
 * @internal
 */
export const firstError = (codec: t.Mixed, value: unknown): t.ValidationError | undefined => {
  if (codec.is(value)) return undefined
  return walk(codec, value, [{ key: '', type: codec, actual: value }], 0)
}
