/**
 * The ACP translator through the pipeline: every fixture fed as parsed records gives what `replayFile` gives,
 * a checkpoint through JSON at any point resumes to the same results, and live objects (hostile ones included)
 * never make it throw.
 */
import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import { endingKinds } from '../../src/core/RunEnding.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { acpFormat, acpTranslator, type AcpState } from '../../src/formats/acp.js'
import { replayFile } from '../../src/node/replay.js'
import { numRuns } from '../support/arbitraries.js'

const DIR = 'test/fixtures/acp'
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()

/** A log as records: each non-blank line parsed (or kept as text when it is not JSON), with its line number. */
type Rec = { readonly line: number; readonly value: unknown; readonly text?: string; readonly unterminated: boolean }
const recordsOf = (content: string): Array<Rec> => {
  const lines = content.split('\n')
  const last = content.endsWith('\n') ? lines.length - 2 : lines.length - 1
  const out: Array<Rec> = []
  lines.forEach((raw, i) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (text.trim() === '') return
    try {
      out.push({ line: i + 1, value: JSON.parse(text) as unknown, unterminated: i === last })
    } catch {
      out.push({ line: i + 1, value: undefined, text, unterminated: i === last })
    }
  })
  return out
}

const feed = (p: Pipeline<AcpState>, recs: ReadonlyArray<Rec>, out: Array<RunResult>): void => {
  for (const r of recs) {
    const err = r.text !== undefined ? p.textLine(r.text, r.line, r.unterminated) : p.record(r.value, r.line)
    expect(err).toBeUndefined()
    out.push(...p.takeResults())
  }
}

const whole = (recs: ReadonlyArray<Rec>, file: string | null, live = false): Array<RunResult> => {
  const p = new Pipeline(acpTranslator, { file, ...(live ? { live: true } : {}) })
  const out: Array<RunResult> = []
  feed(p, recs, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

/** Folds `recs`, checkpointing through JSON (and decoding) at each split point. */
const resumed = (recs: ReadonlyArray<Rec>, file: string | null, splits: ReadonlyArray<number>, live = false): Array<RunResult> => {
  const options = { file, ...(live ? { live: true } : {}) }
  const codec = pipelineStateCodec(acpTranslator)
  let p = new Pipeline(acpTranslator, options)
  const out: Array<RunResult> = []
  let at = 0
  for (const cut of [...new Set(splits)].sort((a, b) => a - b)) {
    feed(p, recs.slice(at, cut), out)
    at = cut
    const decoded = codec.decode(JSON.parse(JSON.stringify(p.checkpoint())))
    expect(E.isRight(decoded)).toBe(true)
    if (E.isLeft(decoded)) throw new Error('checkpoint did not decode')
    p = new Pipeline(acpTranslator, options, decoded.right as PipelineState<AcpState>)
  }
  feed(p, recs.slice(at), out)
  p.end()
  out.push(...p.takeResults())
  return out
}

// Results are compared as JSON text (what the CLI prints; -0 and 0 are one number there).
const json = (runs: ReadonlyArray<RunResult>): string => JSON.stringify(runs)

describe('acp translator: fixtures as parsed records', () => {
  it.each(fixtures)('%s gives the runs replayFile gives', async (name) => {
    const file = `${DIR}/${name}`
    const recs = recordsOf(readFileSync(file, 'utf8'))
    const want = await replayFile(file, { format: 'acp' })
    expect(json(whole(recs, file))).toBe(json(want))
  })

  it('the format module exposes the translator', () => {
    expect(acpFormat.translator).toBe(acpTranslator)
  })
})

describe('acp translator: checkpoints', () => {
  const all = fixtures.map((name) => ({ file: `${DIR}/${name}`, recs: recordsOf(readFileSync(`${DIR}/${name}`, 'utf8')) }))

  it('any split points of any fixture: checkpoint → JSON → decode → resume gives the same runs', () => {
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.array(fc.nat(), { maxLength: 4 }), fc.boolean(), ({ file, recs }, cuts, live) => {
        const splits = cuts.map((c) => c % (recs.length + 1))
        expect(json(resumed(recs, file, splits, live))).toBe(json(whole(recs, file, live)))
      }),
      { numRuns: numRuns() },
    )
  })

  // generated logs: interleaved sessions, permissions, cancels, costs, hostile ids, noise
  const rpc = (o: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', ...o })
  const sid = fc.constantFrom('s1', 's2', '__proto__')
  const id = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('0', 'constructor'))
  const tool = fc.constantFrom('c1', '__proto__', 'toString')
  const message = fc.oneof(
    fc.tuple(id, sid).map(([i, s]) => rpc({ id: i, method: 'session/prompt', params: { sessionId: s, prompt: [] } })),
    fc.tuple(id).map(([i]) => rpc({ id: i, method: 'session/new', params: {} })),
    fc.tuple(id, sid).map(([i, s]) => rpc({ id: i, result: { sessionId: s, models: { currentModelId: 'm' } } })),
    fc
      .tuple(sid, fc.string({ maxLength: 3 }))
      .map(([s, text]) =>
        rpc({ method: 'session/update', params: { sessionId: s, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } }),
      ),
    fc
      .tuple(sid, tool, fc.constantFrom('pending', 'completed', 'failed'))
      .map(([s, c, status]) =>
        rpc({ method: 'session/update', params: { sessionId: s, update: { sessionUpdate: 'tool_call', toolCallId: c, title: 't', status } } }),
      ),
    fc
      .tuple(sid, fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('USD', 'EUR'))
      .map(([s, amount, currency]) =>
        rpc({ method: 'session/update', params: { sessionId: s, update: { sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount, currency } } } }),
      ),
    fc.tuple(id, sid, tool).map(([i, s, c]) =>
      rpc({
        id: i,
        method: 'session/request_permission',
        params: { sessionId: s, toolCall: { toolCallId: c, rawInput: { __proto__: 1, a: [1e999] } }, options: [{ optionId: 'no', kind: 'reject_once' }] },
      }),
    ),
    fc.tuple(id, fc.constantFrom('no', 'yes')).map(([i, optionId]) => rpc({ id: i, result: { outcome: { outcome: 'selected', optionId } } })),
    fc.tuple(sid).map(([s]) => rpc({ method: 'session/cancel', params: { sessionId: s } })),
    fc
      .tuple(id, fc.constantFrom('end_turn', 'max_tokens', 'refusal', 'cancelled', '__proto__'), fc.nat(100))
      .map(([i, stopReason, n]) => rpc({ id: i, result: { stopReason, usage: { inputTokens: n, outputTokens: n, totalTokens: 2 * n } } })),
    fc.tuple(id, fc.oneof(fc.string(), fc.integer())).map(([i, code]) => rpc({ id: i, error: { code, message: 'x' } })),
    fc.tuple(id, fc.constantFrom('2026-01-01T00:00:00Z', 1767225600000)).map(([i, ts]) => ({ ts, dir: 'in', msg: rpc({ id: i, result: {} }) })),
  )
  const line = fc.oneof(
    { weight: 10, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
    { weight: 1, arbitrary: fc.json() },
  )

  it('generated logs: any split points resume to the same runs, in replay and live', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 3 }), fc.boolean(), (lines, cuts, live) => {
        const recs = recordsOf(lines.join('\n'))
        const splits = cuts.map((c) => c % (recs.length + 1))
        expect(json(resumed(recs, 'g.jsonl', splits, live))).toBe(json(whole(recs, 'g.jsonl', live)))
      }),
      { numRuns: numRuns() },
    )
  })
})

describe('acp translator: live objects', () => {
  const rpc = (o: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', ...o })
  const prompt = rpc({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } })
  const chunk = rpc({
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } },
  })
  const done = rpc({ id: 1, result: { stopReason: 'end_turn' } })

  const objects = (values: ReadonlyArray<unknown>): Array<RunResult> => {
    const p = new Pipeline(acpTranslator, { file: null, live: true })
    for (const v of values) expect(p.record(v)).toBeUndefined()
    p.end()
    return p.takeResults()
  }

  it('objects are read as their JSON text would be', () => {
    const runs = objects([prompt, chunk, done])
    expect(runs.map((r) => [r.ending, r.response, r.source])).toEqual([[{ kind: 'answered' }, 'hi', null]])
  })

  it('getters that throw, cycles, Error objects, BigInt and functions never throw; the run still ends', () => {
    const throwing = { jsonrpc: '2.0', method: 'session/update' }
    Object.defineProperty(throwing, 'params', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    const cyclic: Record<string, unknown> = rpc({ method: 'session/update', params: { sessionId: 's' } })
    ;(cyclic['params'] as Record<string, unknown>)['update'] = cyclic
    const withError = rpc({
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: new Error('x') } } },
    })
    const permission = rpc({
      id: 9,
      method: 'session/request_permission',
      params: { sessionId: 's', toolCall: { toolCallId: 'c', rawInput: { when: new Date(0), err: new Error('no') } } },
    })
    const runs = objects([prompt, throwing, cyclic, withError, { big: 1n }, () => 1, Symbol('s'), undefined, permission, chunk])
    expect(runs).toHaveLength(1)
    const r = runs[0] as RunResult
    expect(r.ending).toEqual({ kind: 'suspended', pending: [{ id: 'c', kind: 'approval', arguments: { when: '1970-01-01T00:00:00.000Z', err: {} } }] })
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'skipped an agent_message_chunk whose text is not a string',
      'skipped a record that has no JSON text',
      'skipped a record that has no JSON text',
      'skipped a record that has no JSON text',
      'skipped a record that has no JSON text',
      'skipped a record that has no JSON text',
      'skipped a record that has no JSON text',
    ])
  })

  it('arbitrary values never throw and every run has a valid ending', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.anything(), fc.constantFrom(prompt, chunk, done)), { maxLength: 20 }), (values) => {
        for (const r of objects(values)) {
          expect(endingKinds).toContain(r.ending.kind)
          expect(r.format).toBe('acp')
        }
      }),
      { numRuns: numRuns() },
    )
  })
})
