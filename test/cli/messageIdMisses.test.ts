/**
 * `replay --message-id` where it cannot select a run, as a new user hit it: on a Claude Code log (the option reads
 * native logs only) and on a native log that never inserts the message, it printed one empty `unfinished` run
 * with nothing on stderr.
 */
import { createReadStream } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { replayStream } from '../../src/node/replay.js'
import { runCli } from '../support/cli.js'

const fx = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const native = new URL('../../examples/native/session.jsonl', import.meta.url).pathname

describe('replay --message-id', () => {
  it('on a log of another format is a usage error naming the format (exit 2), not an empty run', async () => {
    const file = fx('claude-code-stream-json/claude.jsonl')
    const r = await runCli(['replay', '--message-id', 'msg-1', file])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`run-outcome replay: a message id (--message-id) selects a run of a native log only, and ${file} is a claude-code log\n`)
  })

  it('on a native log that never inserts the message: the empty run is printed and a note says why', async () => {
    const r = await runCli(['replay', '--json', '--message-id', 'nope', native])
    expect(r.code).toBe(1)
    const run = JSON.parse(r.stdout) as { ending: { kind: string }; turns: number; startedAt: string | null }
    expect(run.ending.kind).toBe('unfinished')
    expect(run.turns).toBe(0)
    expect(run.startedAt).toBeNull()
    expect(r.stderr).toBe(
      `run-outcome replay: ${native}: the run of message nope (--message-id) is empty: no agent/inbox/spliced event inserts it, or nothing followed it\n`,
    )
  })

  it('a message the log inserts selects its run, with no note', async () => {
    const r = await runCli(['replay', '--json', '--message-id', 'msg-1', native])
    expect(r.code).toBe(0)
    const run = JSON.parse(r.stdout) as { ending: { kind: string }; response: string }
    expect(run.ending).toStrictEqual({ kind: 'answered' })
    expect(run.response).toBe('The repository has 42 files.')
    expect(r.stderr).toBe('')
  })
})

describe('replayStream with messageId', () => {
  it('rejects a log of another format with ReplayError bad-option, before any run, and closes the stream', async () => {
    const file = fx('codex-exec-json/stream-output-2.jsonl')
    const stream = createReadStream(file)
    const runs: Array<unknown> = []
    await expect(replayStream(stream, (r) => runs.push(r), { messageId: 'm', file })).rejects.toMatchObject({
      name: 'ReplayError',
      code: 'bad-option',
      message: `a message id (--message-id) selects a run of a native log only, and ${file} is a codex log`,
    })
    expect(runs).toStrictEqual([])
    expect(stream.destroyed).toBe(true)
  })
})
