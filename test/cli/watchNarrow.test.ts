/**
 * The watch status line on a narrow terminal (found by the new-user trial: at 80 columns the cost, the elapsed
 * time and the activity were cut off the end). It keeps to the width and keeps the cost and the time visible.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { watchOnTty } from '../support/watchTty.js'
import { textWidth } from '../../src/cli/stats/table.js'

const log = readFileSync(new URL('../fixtures/claude-code-transcript/full-session-two.jsonl', import.meta.url), 'utf8')

const statusLines = async (columns: number): Promise<Array<string>> => {
  // the input pauses on the open run: the status line is drawn
  const { stderr } = await watchOnTty([], `${log.split('\n').slice(0, 12).join('\n')}\n`, columns)
  // each drawing starts with \r and an erase-line; what follows up to the next one is the line shown
  return stderr
    .split('\r\u001b[K')
    .map((s) => s.split('\n')[0] as string)
    .filter((s) => s.includes(' run '))
}

describe('watch status line width', () => {
  it('fits 80 columns and shows the cost and the elapsed time', async () => {
    const lines = await statusLines(80)
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) {
      expect(textWidth(l)).toBeLessThanOrEqual(79)
      expect(l).toMatch(/ · (~?\$\d+\.\d{4}|cost \?) · \d/)
      expect(l).not.toContain('…')
    }
  })
  it('at 40 columns still shows the run, its cost and the time', async () => {
    for (const l of await statusLines(40)) {
      expect(textWidth(l)).toBeLessThanOrEqual(39)
      expect(l).toMatch(/run 1 · (~?\$\d+\.\d{4}|cost \?) · \d/)
    }
  })
  it('a wide terminal keeps the full wording', async () => {
    const lines = await statusLines(300)
    expect(lines.some((l) => /\d+ turns? · \d+ tool calls? · .* out tokens · /.test(l))).toBe(true)
  })
})
