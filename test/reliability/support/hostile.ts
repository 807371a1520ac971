/**
 * The large hostile inputs, built at test time (never committed): 50 MB single lines and 100,000-level
 * nesting, in the native format and in vendor formats.
 */
export const MB = 1024 * 1024
export const DEPTH = 100_000

const j = (o: unknown): string => JSON.stringify(o)
const ev = (type: string, data: unknown): string => j({ type, sessionId: 's', data })

/** `[[[…]]]` nested `depth` levels, as JSON text. */
export const deepArray = (depth = DEPTH): string => `${'['.repeat(depth)}${']'.repeat(depth)}`
/** `{"a":{"a":…{}}}` nested `depth` levels, as JSON text. */
export const deepObject = (depth = DEPTH): string => `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`

const lines = (...ls: ReadonlyArray<string>): Buffer => Buffer.from(`${ls.join('\n')}\n`)

const turnStart = ev('turn/start', { turn: 1 })
const completed = ev('turn/end', { turn: 1, reason: { kind: 'completed' } })

/** Generated hostile inputs by name. */
export const generated = {
  /** a 100,000-level array as the only line */
  'deep-array-line': () => lines(deepArray()),
  /** a 100,000-level object as the only line */
  'deep-object-line': () => lines(deepObject()),
  /** a suspended turn whose pending tool call has 100,000-level arguments */
  'deep-arguments': () =>
    lines(
      turnStart,
      `{"type":"turn/end","sessionId":"s","data":{"turn":1,"reason":{"kind":"suspended","pending":[{"id":"p1","kind":"approval","toolName":"Bash","arguments":${deepArray()}}]}}}`,
    ),
  /** a turn/end whose reason.kind is a 100,000-level value */
  'deep-kind': () => lines(turnStart, `{"type":"turn/end","sessionId":"s","data":{"turn":1,"reason":{"kind":${deepObject()}}}}`),
  /** a user message whose body is 100,000 levels deep, in an otherwise answered run */
  'deep-message': () =>
    lines(
      turnStart,
      `{"type":"user/message","sessionId":"s","data":{"message":${deepObject()}}}`,
      ev('assistant/message', { message: { content: [{ type: 'text', text: 'ok' }] } }),
      completed,
    ),
  /** Codex exec --json with a 100,000-level value where the answer text belongs */
  'deep-codex': () =>
    lines(
      j({ type: 'thread.started', thread_id: 't' }),
      j({ type: 'turn.started' }),
      `{"type":"item.completed","item":{"id":"i0","type":"agent_message","text":${deepArray()}}}`,
      j({ type: 'turn.completed', usage: { input_tokens: 5, cached_input_tokens: 0, output_tokens: 1 } }),
    ),
  /** Claude Code stream-json whose result carries a 100,000-level structured output */
  'deep-claude': () =>
    lines(
      j({ type: 'system', subtype: 'init', session_id: 'c1', model: 'claude-x', tools: [] }),
      j({
        type: 'assistant',
        session_id: 'c1',
        message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'done' }], usage: { input_tokens: 3, output_tokens: 1 } },
      }),
      `{"type":"result","subtype":"success","is_error":false,"session_id":"c1","result":"done","num_turns":1,"total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":1},"structured_output":${deepObject()}}`,
    ),
  /** a 50 MB first line: an assistant message whose text is 50 MB */
  'line-50mb-native': () =>
    Buffer.concat([
      Buffer.from('{"type":"assistant/message","sessionId":"s","data":{"message":{"content":[{"type":"text","text":"'),
      Buffer.alloc(50 * MB, 0x61),
      Buffer.from(`"}]}}}\n${completed}\n`),
    ]),
  /** a 50 MB line that is not JSON between native events */
  'line-50mb-garbage': () => Buffer.concat([Buffer.from(`${turnStart}\n`), Buffer.alloc(50 * MB, 0x78), Buffer.from(`\n${completed}\n`)]),
  /** Codex exec --json whose answer is 50 MB on one line */
  'line-50mb-codex': () =>
    Buffer.concat([
      Buffer.from(
        `${j({ type: 'thread.started', thread_id: 't' })}\n${j({ type: 'turn.started' })}\n{"type":"item.completed","item":{"id":"i0","type":"agent_message","text":"`,
      ),
      Buffer.alloc(50 * MB, 0x62),
      Buffer.from(`"}}\n${j({ type: 'turn.completed', usage: { input_tokens: 5, cached_input_tokens: 0, output_tokens: 1 } })}\n`),
    ]),
  /** 1,100 events with seq 0…1,099, then re-deliveries of seq 0 (outside the 1,024 window) and 1,099 (inside) */
  'seq-window': () => {
    const out = [turnStart]
    for (let i = 0; i < 1100; i++)
      out.push(
        j({
          type: 'assistant/message',
          sessionId: 's',
          seq: i,
          data: { message: { content: [{ type: 'text', text: `t${i}` }] }, usage: { inputTokens: 1, outputTokens: 0 } },
        }),
      )
    out.push(
      j({
        type: 'assistant/message',
        sessionId: 's',
        seq: 0,
        data: { message: { content: [{ type: 'text', text: 'again 0' }] }, usage: { inputTokens: 1, outputTokens: 0 } },
      }),
    )
    out.push(
      j({
        type: 'assistant/message',
        sessionId: 's',
        seq: 1099,
        data: { message: { content: [{ type: 'text', text: 'again 1099' }] }, usage: { inputTokens: 1, outputTokens: 0 } },
      }),
    )
    out.push(completed)
    return lines(...out)
  },
} as const

export type GeneratedName = keyof typeof generated
