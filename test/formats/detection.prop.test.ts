/**
 * Format detection stops at the first format that scores 1 (src/formats/index.ts `bestFormat`): exact only while
 * no sniffer scores above 1 and ties go to the earlier format. Held here over the head of every fixture and example
 * log (as `replay` parses it: the first 20 lines that are JSON) and over random heads mixing their lines with
 * arbitrary JSON values: every sniffer's score is in [0, 1], and `detectLines` names the format a full scan of all
 * seven sniffers names.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detectLines, formats } from '../../src/formats/index.js'
import { numRuns } from '../support/arbitraries.js'
import { repoRoot } from '../support/cli.js'

/** The full scan: the highest score above 0, the earlier format on a tie. */
const fullScan = (values: ReadonlyArray<unknown>): string | undefined => {
  let best: string | undefined
  let bestScore = 0
  for (const f of formats) {
    const s = f.sniffLines?.(values) ?? 0
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
})
