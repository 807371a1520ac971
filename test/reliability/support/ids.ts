/**
 * The hostile-id renaming: every id of a trace (sessions, models, tool calls, inbox message ids) mapped
 * one-to-one onto names that live on `Object.prototype`, and the same map applied to results.
 */
import fc from 'fast-check'
import type { RunResult } from '../../../src/core/RunResult.js'
import { PLAIN_IDS } from './traces.js'

const HOSTILE = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf', 'prototype']

export type Renaming = Readonly<Record<string, string>>

/** A one-to-one map from the plain ids onto hostile names (ids of one namespace never collide). */
export const renamingArb: fc.Arbitrary<Renaming> = fc
  .tuple(
    fc.shuffledSubarray(HOSTILE, { minLength: 3, maxLength: 3 }),
    fc.shuffledSubarray(HOSTILE, { minLength: 2, maxLength: 2 }),
    fc.constantFrom(...HOSTILE),
    fc.constantFrom(...HOSTILE),
  )
  .map(([sessions, models, call, message]) => ({
    [PLAIN_IDS.root]: sessions[0] as string,
    [PLAIN_IDS.kid]: sessions[1] as string,
    [PLAIN_IDS.kid2]: sessions[2] as string,
    [PLAIN_IDS.modelA]: models[0] as string,
    [PLAIN_IDS.modelB]: models[1] as string,
    [PLAIN_IDS.call]: call,
    [PLAIN_IDS.message]: message,
  }))

const isObj = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

const renameId = (r: Renaming, id: unknown): unknown => {
  if (typeof id !== 'string') return id
  if (Object.hasOwn(r, id)) return r[id]
  // tool call ids are `C<n>`
  if (id.startsWith(PLAIN_IDS.call) && /^\d+$/.test(id.slice(PLAIN_IDS.call.length))) return `${r[PLAIN_IDS.call]}${id.slice(PLAIN_IDS.call.length)}`
  return id
}

/** The event with its ids renamed (built through JSON, so every key is an own property). */
export const renameEvent = (r: Renaming, event: unknown): unknown => {
  if (!isObj(event)) return event
  const e = JSON.parse(JSON.stringify(event)) as Record<string, unknown>
  const fix = (o: Record<string, unknown>, keys: ReadonlyArray<string>) => {
    for (const k of keys) if (Object.hasOwn(o, k)) o[k] = renameId(r, o[k])
  }
  fix(e, ['sessionId'])
  const params = e['params']
  if (isObj(params)) {
    fix(params, ['sessionId', 'parentSessionId', 'childSessionId'])
    const inner = params['event']
    if (isObj(inner) && isObj(inner['data'])) fixData(r, inner['data'])
  }
  if (isObj(e['data'])) fixData(r, e['data'])
  return e
}

const fixData = (r: Renaming, d: Record<string, unknown>): void => {
  for (const k of ['parentSessionId', 'childSessionId', 'model', 'callId']) if (Object.hasOwn(d, k)) d[k] = renameId(r, d[k])
  const inserted = d['inserted']
  if (Array.isArray(inserted)) for (const m of inserted) if (isObj(m)) m['id'] = renameId(r, m['id'])
}

/** The result with the same renaming applied to its ids (session, children, `byModel` keys). */
export const renameResult = (r: Renaming, x: RunResult): RunResult => ({
  ...x,
  sessionId: renameId(r, x.sessionId) as string | null,
  children: x.children.map((c) => ({ ...c, sessionId: renameId(r, c.sessionId) as string })),
  usage: { ...x.usage, byModel: Object.fromEntries(Object.entries(x.usage.byModel).map(([k, v]) => [renameId(r, k) as string, v])) },
})

/** JSON text of a value with `__proto__` and `constructor.prototype` keys added to every object. */
export const withPollutingKeys = (value: unknown): string => {
  const ser = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(ser).join(',')}]`
    if (isObj(v)) {
      const body = Object.keys(v).map((k) => `${JSON.stringify(k)}:${ser(v[k])}`)
      return `{"__proto__":{"polluted":"yes","inputTokens":1},"constructor":{"prototype":{"polluted":"yes"}}${body.length > 0 ? ',' : ''}${body.join(',')}}`
    }
    return JSON.stringify(v) ?? 'null'
  }
  return ser(value)
}

const PROTOS = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype]

/** A fingerprint of the built-in prototypes: their own property names. */
export const prototypeFingerprint = (): string => PROTOS.map((p) => Object.getOwnPropertyNames(p).sort().join(',')).join('|')

/** `true` when nothing visible leaked onto plain objects. */
export const prototypesClean = (fingerprint: string): boolean => {
  const probe = {} as Record<string, unknown>
  return (
    prototypeFingerprint() === fingerprint &&
    probe['polluted'] === undefined &&
    probe['inputTokens'] === undefined &&
    ([] as unknown as Record<string, unknown>)['polluted'] === undefined
  )
}
