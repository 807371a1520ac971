/**
 * Time is linear in input, for every reader at once (issue 14): each line-based corpus log (all seven formats),
 * repeated 4 and 40 times in one input — its runs, ids, tool calls and records over again, so every
 * de-duplication, pairing and lookup a reader keeps meets ten times as many entries — costs at most 12× the work
 * (counted, `support/work.ts`; never a clock). The per-reader inputs built to hit each known hot spot are in
 * `bounds.test.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { replayStream } from '../../src/node/replay.js'
import { figure } from './support/runs.js'
import { growth } from './support/work.js'

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname
const logs = (): Array<string> => {
  const out: Array<string> = []
  for (const d of readdirSync(FIXTURES)) {
    if (d === 'hostile' || d === 'homes' || d === 'vocabularies') continue
    const dir = join(FIXTURES, d)
    if (!statSync(dir).isDirectory()) continue
    for (const f of readdirSync(dir)) if (/\.(jsonl|ndjson|log|txt)$/.test(f) && !f.startsWith('expected')) out.push(join(dir, f))
  }
  return out.sort()
}

describe('every line-based corpus log, repeated', () => {
  it('4 → 40 copies of each in one input: ≤ 12× the work', async () => {
    const ratios: Array<[number, string]> = []
    for (const f of logs()) {
      const text = readFileSync(f, 'utf8').trim()
      const g = await growth(4, async (n) => {
        const big = Buffer.from(`${Array.from({ length: n }, () => text).join('\n')}\n`)
        await replayStream(
          (async function* () {
            yield big
          })(),
          () => {},
          {},
        )
      })
      ratios.push([g.ratio, f.replace(FIXTURES, '')])
    }
    ratios.sort((a, b) => b[0] - a[0])
    figure(
      `linear: ${ratios.length} corpus logs repeated 4 → 40 times: work × ${ratios.at(-1)?.[0].toFixed(2)} to × ${ratios[0]?.[0].toFixed(2)} (highest: ${ratios[0]?.[1]})`,
    )
    expect(ratios.length).toBeGreaterThan(50)
    expect(ratios.filter(([r]) => r > 12)).toStrictEqual([])
  }, 300_000)
})
