#!/usr/bin/env node
/**
 * Deterministic generator of realistic agent logs for the benchmark (no data files are committed).
 *
 * Native mix (after shared/reference/performance.md §1): ~62 % assistant/chunk text deltas (21 % of them with
 * non-ASCII text), tool calls with JSON arguments and their results, one assistant/message with usage per step,
 * step and turn brackets, a subagent every few turns, a root idle every few turns. Also the same volume as
 * Claude Code stream-json and Codex exec --json.
 *
 * Usage: node bench/generate.mjs FORMAT N OUT   (FORMAT: native | claude-code | codex)
 */
import { createWriteStream } from 'node:fs'

/** mulberry32: a small seeded PRNG, so every run writes the same bytes. */
const rng = (seed) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const WORDS = [
  'the',
  'file',
  'test',
  'build',
  'error',
  'function',
  'returns',
  'value',
  'fixed',
  'check',
  'module',
  'import',
  'ça',
  'über',
  'naïve',
  'データ',
  '日本語',
  'café',
]
const text = (r, n) => {
  let s = ''
  for (let i = 0; i < n; i++) s += `${WORDS[Math.floor(r() * (r() < 0.79 ? 12 : WORDS.length))]} `
  return s
}

export function* native(n, r) {
  let i = 0
  let seq = 0
  let turn = 0
  const root = 'sess-root-0001'
  const t0 = Date.UTC(2026, 10, 30, 9, 0, 0)
  const e = (type, data, sessionId = root) => JSON.stringify({ type, sessionId, seq: seq++, time: t0 + seq * 7, data })
  while (i < n) {
    turn++
    yield e('agent/inbox/spliced', { inserted: [{ id: `msg-${turn}` }] })
    i++
    yield e('turn/start', { turn })
    i++
    const steps = 1 + Math.floor(r() * 3)
    for (let step = 1; step <= steps && i < n; step++) {
      yield e('step/start', { turn, step })
      i++
      const deltas = 6 + Math.floor(r() * 14)
      for (let d = 0; d < deltas; d++) {
        yield e('assistant/chunk', { turn, step, chunk: { type: 'text-delta', text: text(r, 3) } })
        i++
      }
      yield e('assistant/message', {
        turn,
        step,
        message: { content: [{ type: 'text', text: text(r, 12) }] },
        usage: {
          inputTokens: 500 + Math.floor(r() * 3000),
          outputTokens: 20 + Math.floor(r() * 400),
          cacheReadTokens: Math.floor(r() * 9000),
          reasoningTokens: Math.floor(r() * 50),
        },
        model: r() < 0.9 ? 'deepseek-chat' : 'deepseek-reasoner',
        costUsd: Math.round(r() * 1e6) / 1e8,
      })
      i++
      if (step < steps) {
        const callId = `call_${turn}_${step}`
        yield e('tool/call', { turn, step, callId, name: 'Bash', arguments: JSON.stringify({ command: `grep -rn ${text(r, 1).trim()} src/`, timeout: 1200 }) })
        i++
        if (r() < 0.15) {
          const child = `sess-child-${turn}-${step}`
          yield e('subagent/started', { parentSessionId: root, childSessionId: child })
          i++
          yield e(
            'assistant/message',
            {
              turn: 1,
              step: 1,
              message: { content: [{ type: 'text', text: text(r, 8) }] },
              usage: { inputTokens: 300, outputTokens: 40 },
              model: 'deepseek-chat',
              costUsd: 0.0001,
            },
            child,
          )
          i++
          yield e('turn/end', { turn: 1, reason: { kind: 'completed' } }, child)
          i++
          yield e('subagent/finished', { parentSessionId: root, childSessionId: child, stopReason: 'completed' })
          i++
        }
        yield e('tool/result', { turn, step, callId, message: text(r, 10) })
        i++
      }
      yield e('step/end', { turn, step })
      i++
    }
    yield e('turn/end', { turn, reason: r() < 0.95 ? { kind: 'completed' } : { kind: 'max-tokens' } })
    i++
    if (turn % 3 === 0) {
      yield e('session/status', { status: 'idle' })
      i++
    }
  }
}

export function* claudeCode(n, r) {
  let i = 0
  let run = 0
  let cost = 0
  let turns = 0
  const sid = '2d5c6c2e-0000-4000-8000-000000000001'
  yield JSON.stringify({
    type: 'system',
    subtype: 'init',
    session_id: sid,
    model: 'claude-sonnet-4-5',
    tools: ['Bash', 'Read'],
    cwd: '/work',
    permissionMode: 'default',
    claude_code_version: '2.1.19',
  })
  i++
  const usage = { input_tokens: 4, cache_creation_input_tokens: 1200, cache_read_input_tokens: 15000, output_tokens: 0 }
  const tot = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }
  while (i < n) {
    run++
    yield JSON.stringify({ type: 'user', session_id: sid, parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text: text(r, 10) }] } })
    i++
    const msgs = 2 + Math.floor(r() * 6)
    for (let m = 0; m < msgs && i < n; m++) {
      turns++
      const id = `msg_${run}_${m}`
      const out = 20 + Math.floor(r() * 300)
      tot.inputTokens += 4
      tot.outputTokens += out
      tot.cacheReadInputTokens += 15000
      tot.cacheCreationInputTokens += 1200
      cost += 0.004
      const last = m === msgs - 1
      yield JSON.stringify({
        type: 'assistant',
        session_id: sid,
        parent_tool_use_id: null,
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: text(r, 14) }],
          stop_reason: null,
          usage: { ...usage, output_tokens: out },
        },
      })
      i++
      if (!last) {
        yield JSON.stringify({
          type: 'assistant',
          session_id: sid,
          parent_tool_use_id: null,
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'tool_use', id: `toolu_${run}_${m}`, name: 'Bash', input: { command: 'ls -la', description: text(r, 4) } }],
            stop_reason: null,
            usage: { ...usage, output_tokens: out },
          },
        })
        i++
        yield JSON.stringify({
          type: 'user',
          session_id: sid,
          parent_tool_use_id: null,
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${run}_${m}`, content: text(r, 20), is_error: false }] },
        })
        i++
      }
    }
    yield JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 12000,
      duration_api_ms: 11000,
      num_turns: turns,
      result: text(r, 14),
      session_id: sid,
      total_cost_usd: Math.round(cost * 1e6) / 1e6,
      usage: { ...usage, output_tokens: 100 },
      modelUsage: { 'claude-sonnet-4-5': { ...tot, webSearchRequests: 0, costUSD: Math.round(cost * 1e6) / 1e6, contextWindow: 200000 } },
      permission_denials: [],
    })
    i++
  }
}

export function* codex(n, r) {
  let i = 0
  let item = 0
  yield JSON.stringify({ type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' })
  i++
  while (i < n) {
    yield JSON.stringify({ type: 'turn.started' })
    i++
    const items = 2 + Math.floor(r() * 8)
    for (let k = 0; k < items && i < n; k++) {
      const id = `item_${item++}`
      if (r() < 0.5) {
        yield JSON.stringify({ type: 'item.completed', item: { id, type: 'reasoning', text: text(r, 16) } })
        i++
      } else {
        yield JSON.stringify({
          type: 'item.started',
          item: { id, type: 'command_execution', command: 'bash -lc ls', aggregated_output: '', exit_code: null, status: 'in_progress' },
        })
        i++
        yield JSON.stringify({
          type: 'item.completed',
          item: { id, type: 'command_execution', command: 'bash -lc ls', aggregated_output: text(r, 20), exit_code: 0, status: 'completed' },
        })
        i++
      }
    }
    yield JSON.stringify({ type: 'item.completed', item: { id: `item_${item++}`, type: 'agent_message', text: text(r, 20) } })
    i++
    yield JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 6000 + Math.floor(r() * 2000), cached_input_tokens: 4992, output_tokens: 120 } })
    i++
  }
}

export const generators = { native, 'claude-code': claudeCode, codex }

/** Writes `n` lines of `format` to `out`, deterministically (seed 42). Resolves with the line count. */
export const generate = async (format, n, out) => {
  const gen = generators[format]
  if (!gen) throw new Error('format must be native, claude-code or codex')
  const ws = createWriteStream(out)
  let buf = []
  let written = 0
  for (const line of gen(n, rng(42))) {
    buf.push(line)
    written++
    if (buf.length >= 4096) {
      if (!ws.write(`${buf.join('\n')}\n`)) await new Promise((res) => ws.once('drain', res))
      buf = []
    }
  }
  if (buf.length) ws.write(`${buf.join('\n')}\n`)
  ws.end()
  await new Promise((res) => ws.on('finish', res))
  return written
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [format = 'native', nArg = '100000', out = `bench/data/${format}-${nArg}.jsonl`] = process.argv.slice(2)
  const written = await generate(format, Number(nArg), out)
  console.error(`wrote ${written} ${format} lines to ${out}`)
}
