/**
 * `keepsResponse`: the one decision of SPEC §3 that a run's final text is its `response` only when the ending is
 * `answered` or `cut_off` (SPEC §2 rule 2; K2, K10, K18: a partial text is never presented as an answer).
 */
import { describe, expect, it } from 'vitest'
import { endingKinds, keepsResponse, type RunEnding } from '../../src/core/RunEnding.js'

/** One ending of each kind, with the fields a real run would carry. */
const ONE_OF_EACH: Readonly<Record<RunEnding['kind'], RunEnding>> = {
  answered: { kind: 'answered' },
  cut_off: { kind: 'cut_off', finishReason: 'max_tokens' },
  limit: { kind: 'limit', reason: 'max_turns', limit: 10 },
  stopped: { kind: 'stopped', by: 'caller' },
  suspended: { kind: 'suspended', pending: [{ id: 'call_1', kind: 'approval', toolName: 'Bash' }] },
  blocked: { kind: 'blocked', guardrail: 'pii' },
  failed: { kind: 'failed', reason: 'error', error: { message: 'boom' } },
  unfinished: { kind: 'unfinished', lastEventType: 'assistant/message' },
}

describe('keepsResponse', () => {
  it('keeps the response of answered and cut_off runs, and of no other kind', () => {
    expect(endingKinds.map((k) => [k, keepsResponse(ONE_OF_EACH[k])])).toStrictEqual([
      ['answered', true],
      ['cut_off', true],
      ['limit', false],
      ['stopped', false],
      ['suspended', false],
      ['blocked', false],
      ['failed', false],
      ['unfinished', false],
    ])
  })

  it('depends on the kind alone: every cut_off reason keeps it, a stop by anyone does not', () => {
    for (const finishReason of ['max_tokens', 'context_window', 'content_filter', 'refusal', 'provider-own']) {
      expect(keepsResponse({ kind: 'cut_off', finishReason })).toBe(true)
    }
    for (const by of ['caller', 'hook', 'permission', 'parent', 'delegation', 'abandoned']) {
      expect(keepsResponse({ kind: 'stopped', by, reason: 'done' })).toBe(false)
    }
    expect(keepsResponse({ kind: 'failed', reason: 'unrecognized', raw: 'end_turn' })).toBe(false)
  })
})
