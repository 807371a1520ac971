/**
 * Conformance: every value of every seed vocabulary (test/fixtures/vocabularies/conformance.json) read with
 * `endingFrom` / `endingFromEither`, and every expected ending written back with `endingTo`, asserted exactly.
 */
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import type { RunEnding } from '../../src/core/RunEnding.js'
import { foldEvents } from '../../src/core/fold.js'
import { isProtocolError } from '../../src/core/ProtocolError.js'
import { endingFrom, endingFromEither, endingTo, structuredOutputFrom, vocabularySystems, type VocabularySystem } from '../../src/vocabularies/index.js'

interface Row {
  readonly covers: ReadonlyArray<string>
  readonly note?: string
  readonly value: unknown
  readonly ending: RunEnding
  readonly written: unknown
  readonly structuredOutput?: unknown
}
interface WriteOnly {
  readonly note?: string
  readonly ending: RunEnding
  readonly written: unknown
}
interface MalformedRow {
  readonly value: unknown
  readonly kind: string
  readonly path: string
  readonly expected: string
}
interface Table {
  readonly vocabularies: Readonly<Record<VocabularySystem, ReadonlyArray<string>>>
  readonly rows: Readonly<Record<VocabularySystem, ReadonlyArray<Row>>>
  readonly writeOnly: Readonly<Record<VocabularySystem, ReadonlyArray<WriteOnly>>>
  readonly malformed: Readonly<Record<VocabularySystem, ReadonlyArray<MalformedRow>>>
}

const table = JSON.parse(readFileSync(new URL('../fixtures/vocabularies/conformance.json', import.meta.url), 'utf8')) as Table

const label = (u: unknown): string => {
  const text = JSON.stringify(u)
  return text.length > 90 ? `${text.slice(0, 87)}...` : text
}

describe('conformance table', () => {
  it('has rows, write-only rows and malformed rows for every system, and nothing else', () => {
    for (const part of [table.vocabularies, table.rows, table.writeOnly, table.malformed]) {
      expect(Object.keys(part).sort()).toStrictEqual([...vocabularySystems].sort())
    }
  })

  for (const system of vocabularySystems) {
    describe(system, () => {
      it('covers every term of the vocabulary with a row', () => {
        const covered = new Set(table.rows[system].flatMap((r) => r.covers))
        const missing = table.vocabularies[system].filter((term) => !covered.has(term))
        expect(missing).toStrictEqual([])
        const unknown = [...covered].filter((term) => !table.vocabularies[system].includes(term))
        expect(unknown).toStrictEqual([])
      })

      describe('reads', () => {
        for (const row of table.rows[system]) {
          it(`${label(row.value)} → ${row.ending.kind}`, () => {
            expect(endingFromEither(system, row.value)).toStrictEqual(E.right(row.ending))
            expect(endingFrom(system, row.value)).toStrictEqual(row.ending)
            if ('structuredOutput' in row) {
              expect(structuredOutputFrom(system, row.value)).toStrictEqual(row.structuredOutput)
            }
          })
        }
      })

      describe('writes back', () => {
        for (const row of [...table.rows[system], ...table.writeOnly[system]]) {
          it(`${label(row.ending)} → ${label(row.written)}`, () => {
            expect(endingTo(system, row.ending)).toStrictEqual(row.written)
          })
        }
      })

      describe('rejects malformed values', () => {
        for (const row of table.malformed[system]) {
          it(`${label(row.value)} at '${row.path}'`, () => {
            const decoded = endingFromEither(system, row.value)
            expect(E.isLeft(decoded)).toBe(true)
            if (E.isRight(decoded)) return
            const error = decoded.left
            expect(isProtocolError(error)).toBe(true)
            expect({ kind: error.kind, index: error.index, path: error.path, expected: error.expected }).toStrictEqual({
              kind: row.kind,
              index: 0,
              path: row.path,
              expected: row.expected,
            })
            expect(endingFrom(system, row.value)).toStrictEqual({ kind: 'failed', reason: 'unrecognized', raw: row.value })
            if (system === 'dsh') {
              // the native protocol rejects the same reason in a turn/end, at the same path
              const folded = foldEvents([{ type: 'turn/end', sessionId: 'root', data: { turn: 1, reason: row.value } }])
              expect(E.isLeft(folded) ? [folded.left.kind, folded.left.path, folded.left.expected] : folded).toStrictEqual([row.kind, row.path, row.expected])
            }
          })
        }
      })
    })
  }

  it('other systems carry no structured output', () => {
    for (const system of vocabularySystems.filter((s) => s !== 'swiftide')) {
      for (const row of table.rows[system]) expect(structuredOutputFrom(system, row.value)).toBeNull()
    }
  })
})
