/**
 * A run whose log reports no usage is shown as such, not as a run that used 0 tokens (a new user read
 * `tokens 0 in · 0 out` on a failed Codex turn, an ACP session and an AI SDK UI stream as "used nothing"). A usage
 * report of 0 tokens still reads 0: every reported usage item has a `byModel` entry.
 */
import { describe, expect, it } from 'vitest'
import { formatRun, tokensText } from '../../src/cli/summary.js'
import { foldRuns } from '../../src/core/fold.js'
import { replayFile } from '../../src/node/replay.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname

describe('usage the log did not report', () => {
  it('a failed codex exec turn with no usage: "none reported" in the block', async () => {
    const [run] = await replayFile(fx('codex-exec-json/codex-error.jsonl'))
    expect(run?.usage.byModel).toStrictEqual({})
    expect(tokensText(run as never)).toBe('none reported')
    expect(formatRun(run as never, 'x #1')).toContain('\n  tokens       none reported\n')
  })

  it('a reported usage of 0 tokens still reads 0 in · 0 out', () => {
    const events = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      {
        type: 'assistant/message',
        sessionId: 's',
        data: { message: { content: [{ type: 'text', text: 'ok' }] }, model: 'm', usage: { inputTokens: 0, outputTokens: 0 } },
      },
      { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } },
    ]
    const runs = foldRuns(events)
    expect(runs._tag).toBe('Right')
    const run = runs._tag === 'Right' ? runs.right[0] : undefined
    expect(run?.ending).toStrictEqual({ kind: 'answered' })
    expect(Object.keys(run?.usage.byModel ?? {})).toStrictEqual(['m'])
    expect(tokensText(run as never)).toBe('0 in · 0 out')
  })
})
