/**
 * Benchmark guard (CI): the benchmark's generator and replay path work end to end on 1e4 events, and the
 * fold's totals equal an independent count over the generated file. No timing is asserted here; the real
 * figures come from `npm run bench`.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without types
import { generate } from '../../bench/generate.mjs'
import { replayFile } from '../../src/node/replay.js'

describe('benchmark guard (1e4 events)', () => {
  it('replays the generated native log with the same totals as a direct count', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ro-bench-')), 'native.jsonl')
    const lines: number = await generate('native', 10_000, file)
    expect(lines).toBeGreaterThanOrEqual(10_000)
    const events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    let idles = 0
    let input = 0
    let output = 0
    let calls = 0
    for (const e of events) {
      if (e.type === 'session/status' && e.data.status === 'idle') idles++
      if (e.type === 'assistant/message') {
        input += e.data.usage.inputTokens
        output += e.data.usage.outputTokens
      }
      if (e.type === 'tool/call') calls++
    }
    const runs = await replayFile(file)
    const trailing = events.at(-1)?.type === 'session/status' ? 0 : 1
    expect(runs).toHaveLength(idles + trailing)
    expect(runs.reduce((s, r) => s + r.usage.inputTokens, 0)).toBe(input)
    expect(runs.reduce((s, r) => s + r.usage.outputTokens, 0)).toBe(output)
    expect(runs.reduce((s, r) => s + r.toolCalls, 0)).toBe(calls)
    expect(runs.slice(0, -1).every((r) => r.ending.kind === 'answered' || r.ending.kind === 'cut_off')).toBe(true)
  })
})
