/**
 * Format detection stops at the first format that scores 1 (src/formats/index.ts `bestFormat`): exact only while
 * no sniffer scores above 1 and ties go to the earlier format. Held here over the head of every fixture and example
 * log (as `replay` parses it: the first 20 lines that are JSON) and over random heads mixing their lines with
 * arbitrary JSON values, and over every fixture that is one JSON document and random documents: every sniffer's
 * score is in [0, 1], and `detectLines` / `detectDocument` name the format a full scan of all seven names.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detectDocument, detectLines, formats } from '../../src/formats/index.js'
import { numRuns } from '../support/arbitraries.js'
import { repoRoot } from '../support/cli.js'

/** The full scan: the highest score above 0, the earlier format on a tie. */
const fullScan = (values: ReadonlyArray<unknown>): string | undefined => scanAll((f) => f.sniffLines?.(values) ?? 0)

const scanAll = (scoreOf: (f: (typeof formats)[number]) => number): string | undefined => {
  let best: string | undefined
  let bestScore = 0
  for (const f of formats) {
    const s = scoreOf(f)
    if (s > bestScore) {
      best = f.name
      bestScore = s
    }
  }
  return best
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(jsonl|ndjson|json|log|txt)$/.test(n) ? [p] : []
  })

/** The first 20 lines of a file that parse as JSON. */
const headOf = (file: string): Array<unknown> => {
  const out: Array<unknown> = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (out.length === 20) break
    try {
      out.push(JSON.parse(line))
    } catch {
      // not JSON: replay hands it to the reader as text, the sniffers never see it
    }
  }
  return out
}

const heads = [...filesUnder(join(repoRoot, 'test/fixtures')), ...filesUnder(join(repoRoot, 'examples'))]
  .map((f) => ({ f, head: headOf(f) }))
  .filter((h) => h.head.length > 0)
const lines = heads.flatMap((h) => h.head)

const expectExact = (values: ReadonlyArray<unknown>): void => {
  for (const f of formats) {
    const s = f.sniffLines?.(values) ?? 0
    expect(s >= 0 && s <= 1, `${f.name} scored ${s}`).toBe(true)
  }
  expect(detectLines(values)?.name).toBe(fullScan(values))
}

describe('detection that stops at a score of 1', () => {
  it('names what a full scan names, for the head of every fixture and example log', () => {
    expect(heads.length).toBeGreaterThan(90)
    const named = new Set<string>()
    for (const { f, head } of heads) {
      expect(() => expectExact(head), f).not.toThrow()
      const n = detectLines(head)?.name
      if (n !== undefined) named.add(n)
    }
    // every line-based format is among them
    expect([...named].sort()).toStrictEqual(['acp', 'ai-sdk', 'claude-code', 'codex', 'gemini', 'native', 'openai-agents'])
  })

  it('names what a full scan names, for random heads of fixture lines and any JSON values', () => {
    const value = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...lines) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) })
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), (head) => {
        expectExact(head)
      }),
      { numRuns: numRuns() },
    )
  })

  it('documents too: every document sniffer within [0, 1], detectDocument names what a full scan names', () => {
    const docs = [...filesUnder(join(repoRoot, 'test/fixtures')), ...filesUnder(join(repoRoot, 'examples'))].flatMap((f) => {
      try {
        return [JSON.parse(readFileSync(f, 'utf8')) as unknown]
      } catch {
        return []
      }
    })
    expect(docs.length).toBeGreaterThan(10)
    const check = (doc: unknown): void => {
      for (const f of formats) {
        const s = f.sniffDocument?.(doc) ?? 0
        expect(s >= 0 && s <= 1, `${f.name} scored ${s}`).toBe(true)
      }
      expect(detectDocument(doc)?.name).toBe(scanAll((f) => f.sniffDocument?.(doc) ?? 0))
    }
    for (const d of docs) check(d)
    fc.assert(fc.property(fc.oneof(fc.constantFrom(...docs), fc.jsonValue({ maxDepth: 3 }), fc.array(fc.constantFrom(...lines), { maxLength: 6 })), check), {
      numRuns: numRuns(),
    })
  })
})
