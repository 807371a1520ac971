/**
 * How `replay --brief` shortens a file label that does not fit (a new user found names cut from the middle of the
 * file name: every rollout showed as `rollout-2025…7c5.jsonl`, alike, beside labels shown whole): whole folders
 * after `…/` while they fit, else the name alone, else the name cut from its start, so the id that ends a
 * rollout's or a transcript's name stays.
 */
import { describe, expect, it } from 'vitest'
import { replayFile } from '../../src/node/replay.js'
import { briefLine } from '../../src/cli/summary.js'
import { textWidth } from '../../src/cli/stats/table.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname

describe('--brief labels at a width', async () => {
  const [run] = await replayFile(fx('claude-code-stream-json/claude.jsonl'))
  if (run === undefined) throw new Error('the fixture holds a run')
  // the label's room at 80 columns: 80 − mark and space − the fixed columns
  const labelAt = (label: string, width: number): string => {
    const line = briefLine(run, label, undefined, width).trimEnd()
    expect(textWidth(line)).toBeLessThanOrEqual(width)
    return line.slice(line.lastIndexOf('  ') + 2)
  }

  it('a label that fits is shown whole', () => {
    expect(labelAt('logs/a.jsonl #1', 80)).toBe('logs/a.jsonl #1')
  })

  it('keeps whole folders after …/ while they fit', () => {
    expect(labelAt('/home/me/x/projects/ab/s.jsonl #2', 80)).toBe('…/projects/ab/s.jsonl #2')
  })

  it('shows the name alone when no folder fits beside it', () => {
    expect(labelAt('/home/me/.claude/projects/-Users-me-work/full-session-two.jsonl #1', 80)).toBe('full-session-two.jsonl #1')
  })

  it("cuts a name too long for the room from its start: two rollouts stay apart by their ids' ends", () => {
    const a = labelAt('/h/.codex/sessions/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl #1', 80)
    const b = labelAt('/h/.codex/sessions/2025/09/24/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-0a1b2c3d4e5f.jsonl #1', 80)
    expect(a).toBe('…da3-8c20-c736db82a7c5 #1')
    expect(b).toBe('…da3-8c20-0a1b2c3d4e5f #1')
  })

  // a new user at 60 columns saw no label at all, and at 66 `…r.jsonl #1` for two different files
  it('under 80 columns the other columns narrow, so the label keeps room', () => {
    const line = briefLine(run, 'examples/claude-code/claude.jsonl #1', undefined, 60).trimEnd()
    expect(line).toBe('✔ answered    75.5k tok  $0.0456  16.8 s  …/claude.jsonl #1')
    expect(briefLine(run, 'x #1', undefined, 80).trimEnd()).toBe('✔ answered         75,517 tok    $0.0456       16.8 s  x #1')
    expect(briefLine({ ...run, durationMs: 375_000 }, 'x #1', undefined, 60).trimEnd()).toBe('✔ answered    75.5k tok  $0.0456  6m 15s  x #1')
    expect(briefLine({ ...run, durationMs: 7_500_000 }, 'x #1', undefined, 60).trimEnd()).toBe('✔ answered    75.5k tok  $0.0456  2h 05m  x #1')
  })

  it('drops the extension before cutting a name: two files stay apart at 60 columns', () => {
    expect(labelAt('examples/claude-code/claude-error.jsonl #1', 60)).toBe('claude-error #1')
    expect(labelAt('examples/codex/codex-error.jsonl #1', 60)).toBe('codex-error #1')
    expect(labelAt('/h/.codex/sessions/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl.gz #3', 60)).toBe('…0-c736db82a7c5 #3')
    for (const width of [40, 50, 60, 66, 76, 79])
      expect(textWidth(briefLine(run, 'examples/claude-code/claude-error.jsonl #1', undefined, width).trimEnd())).toBeLessThanOrEqual(width)
  })
})
