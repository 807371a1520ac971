/**
 * Subagent files of Claude Code sessions (`<session>/subagents/*.jsonl`) are folded into the parent session's
 * runs as children, with their inferred endings and their usage (src/node/claudeSubagents.ts).
 */
import { createReadStream, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { replayFile, replayStream } from '../../src/node/replay.js'
import { attachSubagents, subagentFilesOf } from '../../src/node/claudeSubagents.js'

const usage = (input: number, output: number): object => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
})
const rec = (type: string, time: string, message: object, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    sessionId: 'sess',
    version: '2.1.0',
    type,
    uuid: `${type}-${time}`,
    timestamp: time,
    message,
    ...extra,
  })
const user = (time: string, content: unknown, extra: Record<string, unknown> = {}): string => rec('user', time, { role: 'user', content }, extra)
const asst = (time: string, id: string, content: ReadonlyArray<object>, model = 'claude-opus', u = usage(10, 5), extra: Record<string, unknown> = {}): string =>
  rec('assistant', time, { id, model, role: 'assistant', content, stop_reason: null, usage: u }, extra)

const setup = (): { dir: string; session: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-sub-'))
  const session = join(dir, 'sess.jsonl')
  writeFileSync(
    session,
    [
      user('2025-11-01T10:00:00.000Z', 'first task'),
      asst('2025-11-01T10:00:05.000Z', 'p1', [{ type: 'tool_use', id: 'task-1', name: 'Task', input: { prompt: 'dig' } }]),
      user('2025-11-01T10:03:00.000Z', [{ type: 'tool_result', tool_use_id: 'task-1', content: 'dug' }], {
        toolUseResult: { status: 'completed', agentId: 'abc' },
      }),
      asst('2025-11-01T10:05:00.000Z', 'p2', [{ type: 'text', text: 'first done' }]),
      user('2025-11-01T10:10:00.000Z', 'second task'),
      asst('2025-11-01T10:10:05.000Z', 'p3', [{ type: 'tool_use', id: 'task-2', name: 'Agent', input: { prompt: 'bg', run_in_background: true } }]),
      user('2025-11-01T10:10:06.000Z', [{ type: 'tool_result', tool_use_id: 'task-2', content: 'launched' }], {
        toolUseResult: { status: 'async_launched', agentId: 'zzz' },
      }),
      asst('2025-11-01T10:12:00.000Z', 'p4', [{ type: 'text', text: 'second done' }]),
      '',
    ].join('\n'),
  )
  const subDir = join(dir, 'sess', 'subagents')
  mkdirSync(subDir, { recursive: true })
  const side = (agentId: string): Record<string, unknown> => ({ isSidechain: true, agentId })
  writeFileSync(
    join(subDir, 'agent-abc.jsonl'),
    [
      user('2025-11-01T10:00:06.000Z', 'dig', side('abc')),
      asst('2025-11-01T10:01:00.000Z', 's1', [{ type: 'tool_use', id: 'g1', name: 'Grep', input: {} }], 'claude-haiku', usage(100, 1), side('abc')),
      asst('2025-11-01T10:01:00.000Z', 's1', [{ type: 'tool_use', id: 'g2', name: 'Grep', input: {} }], 'claude-haiku', usage(100, 20), side('abc')),
      user('2025-11-01T10:01:30.000Z', [{ type: 'tool_result', tool_use_id: 'g1', content: 'hit' }], side('abc')),
      asst('2025-11-01T10:02:59.000Z', 's2', [{ type: 'text', text: 'dug' }], 'claude-haiku', usage(50, 7), side('abc')),
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(subDir, 'agent-zzz.jsonl.gz'),
    gzipSync(
      [
        user('2025-11-01T10:10:07.000Z', 'bg', side('zzz')),
        asst('2025-11-01T10:11:00.000Z', 's3', [{ type: 'tool_use', id: 'b1', name: 'Bash', input: {} }], 'claude-haiku', usage(9, 3), side('zzz')),
        '',
      ].join('\n'),
    ),
  )
  writeFileSync(join(subDir, 'notes.txt'), 'not a transcript')
  return { dir, session }
}

describe('subagentFilesOf', () => {
  it('lists the session\u2019s subagent transcripts in name order, and [] when there is no folder', async () => {
    const { dir, session } = setup()
    expect(await subagentFilesOf(session)).toEqual([join(dir, 'sess', 'subagents', 'agent-abc.jsonl'), join(dir, 'sess', 'subagents', 'agent-zzz.jsonl.gz')])
    expect(await subagentFilesOf(join(dir, 'other.jsonl'))).toEqual([])
  })
})

describe('attachSubagents', () => {
  it('adds each subagent to the run it ran in, as a child with its ending, and adds its usage', async () => {
    const { session } = setup()
    // the session's own runs, before its subagents are attached (replayFile attaches them itself)
    const runs: Array<RunResult> = []
    await replayStream(createReadStream(session), (r) => runs.push(r), { file: session })
    expect(runs.map((r) => r.ending.kind)).toEqual(['answered', 'answered'])
    expect(runs[0]?.children).toEqual([{ sessionId: 'abc', ending: { kind: 'answered' }, finishReason: 'completed' }])
    // the background Agent call has launched but not finished: its child is unfinished until its file is read
    expect(runs[1]?.children).toEqual([{ sessionId: 'zzz', ending: { kind: 'unfinished' }, finishReason: null }])
    const before = JSON.stringify(runs)

    const out = await attachSubagents(runs, session)
    expect(JSON.stringify(runs)).toBe(before) // inputs unchanged
    expect(await replayFile(session)).toEqual(out) // replayFile reads the subagent files with the session
    const [a, b] = out
    // run 1: parent p1 + p2 (10/5 each) and subagent s1 (last copy 100/20) + s2 (50/7)
    expect(a?.children).toEqual([{ sessionId: 'abc', ending: { kind: 'answered' }, finishReason: 'completed' }])
    expect(a?.usage).toMatchObject({ inputTokens: 170, outputTokens: 37 })
    expect(a?.usage.byModel['claude-haiku']).toMatchObject({ inputTokens: 150, outputTokens: 27, costUsd: null })
    expect(a?.cost).toEqual({ totalUsd: null, complete: false, missing: 4 })
    expect(a?.toolCalls).toBe(3)
    expect(a?.ending).toEqual({ kind: 'answered' })
    expect(a?.response).toBe('first done')
    // run 2: the background subagent ends on a tool_use: its inferred ending replaces the unfinished placeholder
    expect(b?.children).toEqual([{ sessionId: 'zzz', ending: { kind: 'unfinished', lastEventType: 'tool_use' }, finishReason: null }])
    expect(b?.usage).toMatchObject({ inputTokens: 29, outputTokens: 13 })
    expect(b?.ending).toEqual({ kind: 'answered' })
  })

  it('a subagent that starts after every run joins the last run; no runs stay no runs', async () => {
    const { dir, session } = setup()
    writeFileSync(
      join(dir, 'sess', 'subagents', 'agent-late.jsonl'),
      `${user('2025-11-02T00:00:00.000Z', 'late', { isSidechain: true, agentId: 'late' })}\n${asst('2025-11-02T00:00:01.000Z', 'l1', [{ type: 'text', text: 'ok' }], 'claude-haiku', usage(1, 1), { isSidechain: true, agentId: 'late' })}\n`,
    )
    const out = await attachSubagents(await replayFile(session), session)
    expect(out[1]?.children.map((c) => [c.sessionId, c.ending.kind])).toEqual([
      ['zzz', 'unfinished'],
      ['late', 'answered'],
    ])
    expect(await attachSubagents([], session)).toEqual([])
  })
})
