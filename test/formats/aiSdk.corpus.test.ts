/**
 * ai-sdk: the real recorded logs (copies under test/fixtures/, see their PROVENANCE.md), replayed with format
 * auto and `ai-sdk`, and re-encoded at test time as JSONL, SSE and a one-line array: every encoding gives the
 * same result except `source`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { aiSdkFormat } from '../../src/formats/aiSdk.js'
import { replayFile } from '../../src/node/replay.js'

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
const uiDir = join(fixtures, 'ai-sdk-ui-message-stream')
const providerDir = join(fixtures, 'ai-sdk-provider-chunks')
const uiFiles = readdirSync(uiDir).filter((f) => f.endsWith('.json'))
const providerFiles = readdirSync(providerDir).filter((f) => f.endsWith('.chunks.txt'))

const tmp = mkdtempSync(join(tmpdir(), 'ai-sdk-corpus-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const withoutSource = (r: RunResult): Omit<RunResult, 'source'> => {
  const { source: _source, ...rest } = r
  return rest
}

/** Writes the parts of a fixture array in another encoding; returns its path. */
const reencode = (file: string, encoding: 'jsonl' | 'sse' | 'one-line'): string => {
  const parts = JSON.parse(readFileSync(join(uiDir, file), 'utf8')) as unknown[]
  const text =
    encoding === 'jsonl'
      ? parts.map((p) => JSON.stringify(p)).join('\n') + '\n'
      : encoding === 'sse'
        ? ': ui message stream\n' + parts.map((p) => `event: message\ndata: ${JSON.stringify(p)}\n\n`).join('') + 'data: [DONE]\n\n'
        : JSON.stringify(parts) + '\n'
  const out = join(tmp, `${file}.${encoding}.txt`)
  writeFileSync(out, text)
  return out
}

describe('ai-sdk corpus: UI message streams (JSON arrays)', () => {
  it('holds the three corpus files', () => {
    expect(uiFiles.sort()).toEqual(['langgraph-hitl-request-1.json', 'langgraph-hitl-request-2.json', 'react-agent-tool-calling.json'])
  })

  for (const format of ['auto', 'ai-sdk'] as const) {
    it(`react-agent-tool-calling is answered with the final step's text and 2 tool calls (format ${format})`, async () => {
      const path = join(uiDir, 'react-agent-tool-calling.json')
      const runs = await replayFile(path, { format })
      expect(runs).toHaveLength(1)
      const r = runs[0] as RunResult
      expect(r.format).toBe('ai-sdk')
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.finishReason).toBeNull()
      expect(r.response).toBe(
        'Here’s the latest for Tokyo:\n- Weather: 20°C, clear skies\n- Local time: Wednesday, December 17, 2025 at 04:00:28 AM (Asia/Tokyo)',
      )
      expect(r.toolCalls).toBe(2)
      expect(r.turns).toBe(3)
      expect(r.inferred).toBe(false)
      // the UI stream carries no usage: zero buckets and no priced items
      expect(r.usage).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, byModel: {} })
      // and no cost: unknown, never a complete $0
      expect(r.cost).toEqual({ totalUsd: null, complete: false, missing: 0 })
      expect(r.diagnostics).toEqual([])
      expect(r.source).toEqual({ file: path, firstLine: null, lastLine: null })
    })

    it(`langgraph-hitl-request-1 is suspended on one tool approval (format ${format})`, async () => {
      const runs = await replayFile(join(uiDir, 'langgraph-hitl-request-1.json'), { format })
      expect(runs).toHaveLength(1)
      const r = runs[0] as RunResult
      expect(r.ending).toEqual({
        kind: 'suspended',
        pending: [{ id: 'call_LOd3dMxgYxmNLWZVWXra9xWQ', kind: 'approval', toolName: 'delete_file', arguments: { filename: 'report.pdf' } }],
      })
      expect(r.response).toBeNull()
      expect(r.toolCalls).toBe(1)
      expect(r.inferred).toBe(false)
    })

    it(`langgraph-hitl-request-2 (resumed after approval) is answered (format ${format})`, async () => {
      const runs = await replayFile(join(uiDir, 'langgraph-hitl-request-2.json'), { format })
      expect(runs).toHaveLength(1)
      const r = runs[0] as RunResult
      expect(r.ending).toEqual({ kind: 'answered' })
      expect(r.response).toBe('The file "report.pdf" has been queued for deletion. You’ll receive a confirmation once the action is approved and completed.')
      expect(r.toolCalls).toBe(1)
      expect(r.turns).toBe(2)
    })
  }

  for (const file of uiFiles) {
    it(`${file}: JSONL, SSE and a one-line array give the same result as the JSON array (except source)`, async () => {
      const reference = await replayFile(join(uiDir, file), { format: 'ai-sdk' })
      for (const encoding of ['jsonl', 'sse', 'one-line'] as const) {
        const path = reencode(file, encoding)
        const runs = await replayFile(path, { format: 'ai-sdk' })
        expect(runs.map(withoutSource), encoding).toEqual(reference.map(withoutSource))
        expect(runs[0]?.source?.firstLine, encoding).toBe(encoding === 'sse' ? 3 : 1)
        // JSONL and the one-line array are detected; SSE needs the sniffer to see `data:` payloads (see sniffLines test)
        if (encoding !== 'sse') {
          const auto = await replayFile(path)
          expect(auto.map(withoutSource), `${encoding} auto`).toEqual(reference.map(withoutSource))
        }
      }
    })
  }

  it('sniffLines recognises SSE data lines given as text, and JSONL parts', () => {
    const parts = JSON.parse(readFileSync(join(uiDir, 'langgraph-hitl-request-2.json'), 'utf8')) as unknown[]
    const sse = parts.slice(0, 20).map((p) => `data: ${JSON.stringify(p)}`)
    expect(aiSdkFormat.sniffLines?.(sse)).toBeGreaterThan(0.6)
    expect(aiSdkFormat.sniffLines?.(parts.slice(0, 20))).toBeGreaterThan(0.6)
    expect(aiSdkFormat.sniffDocument?.(parts)).toBeGreaterThan(0.6)
  })
})

describe('ai-sdk corpus: raw provider chunks (optional in EXPECTED.md)', () => {
  const expected: Record<string, { ending: unknown; finishReason: string; response?: string | null; usage?: Record<string, number> }> = {
    'anthropic-text.chunks.txt': {
      ending: { kind: 'answered' },
      finishReason: 'end_turn',
      response: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      usage: { inputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 30 },
    },
    'anthropic-refusal.chunks.txt': {
      ending: { kind: 'cut_off', finishReason: 'refusal' },
      finishReason: 'refusal',
      response: null,
      usage: { inputTokens: 18, outputTokens: 5 },
    },
    // the nested advisor result says max_tokens; the message itself ends end_turn
    'anthropic-advisor-stop-reasons.chunks.txt': { ending: { kind: 'answered' }, finishReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 20 } },
    'openai-error.1.chunks.txt': {
      ending: {
        kind: 'failed',
        reason: 'provider_error',
        error: {
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
          code: 'insufficient_quota',
        },
      },
      finishReason: 'failed',
    },
    'openai-completion-text.chunks.txt': {
      ending: { kind: 'cut_off', finishReason: 'max_tokens' },
      finishReason: 'length',
      response: 'The holiday is called "Gratitude Day" and it is a day dedicated to',
      usage: { inputTokens: 14, outputTokens: 16 },
    },
  }

  it('holds the five corpus files', () => {
    expect(providerFiles.sort()).toEqual(Object.keys(expected).sort())
  })

  for (const file of providerFiles) {
    for (const format of ['auto', 'ai-sdk'] as const) {
      it(`${file} (format ${format})`, async () => {
        const runs = await replayFile(join(providerDir, file), { format })
        expect(runs).toHaveLength(1)
        const r = runs[0] as RunResult
        const e = expected[file]
        expect(r.format).toBe('ai-sdk')
        expect(r.ending).toEqual(e?.ending)
        expect(r.finishReason).toBe(e?.finishReason)
        if (e?.response !== undefined) expect(r.response).toBe(e.response)
        if (e?.usage !== undefined) expect(r.usage).toMatchObject(e.usage)
        // no cost in provider streams: unknown, never $0
        expect(r.cost.totalUsd).toBeNull()
        expect(r.cost.complete).toBe(false)
        expect(r.diagnostics).toEqual([])
      })
    }
  }
})
