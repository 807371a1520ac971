/** `watch` through a real pipe: results appear as each run ends, before the pipe closes; Ctrl-C prints the open run. */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const lines = readFileSync(new URL('../../examples/native/session.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const start = () => {
  const child = spawn(process.execPath, [binPath, 'watch', '--json'], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  const out: Array<{ at: number; line: string }> = []
  let buf = ''
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString()
    let nl = buf.indexOf('\n')
    while (nl !== -1) {
      out.push({ at: Date.now(), line: buf.slice(0, nl) })
      buf = buf.slice(nl + 1)
      nl = buf.indexOf('\n')
    }
  })
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)))
  return { child, out, exited }
}

/** `watch --json --poll 50 FILE` as a process: its JSON lines as they come, and its stderr so far. */
const followFile = (f: string) => {
  const child = spawn(process.execPath, [binPath, 'watch', '--json', '--poll', '50', f], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  const out: Array<string> = []
  let err = ''
  child.stdout.on('data', (b: Buffer) =>
    out.push(
      ...b
        .toString()
        .split('\n')
        .filter((l) => l !== ''),
    ),
  )
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString()
  })
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)))
  return { child, out, stderr: () => err, exited }
}

describe('run-outcome watch', () => {
  it('prints each run as it ends, before the pipe closes', async () => {
    const { child, out, exited } = start()
    // run 1 (lines 1–13 end with the root idle), written slowly
    for (const l of lines.slice(0, 13)) {
      child.stdin.write(`${l}\n`)
      await sleep(20)
    }
    const deadline = Date.now() + 10_000
    while (out.length === 0 && Date.now() < deadline) await sleep(25)
    const firstAt = out[0]?.at
    expect(firstAt).toBeDefined()
    expect(JSON.parse(out[0]?.line ?? '{}').ending).toStrictEqual({ kind: 'answered' })
    // the pipe is still open: now write run 2 and close
    await sleep(300)
    const closedAt = Date.now()
    child.stdin.end(`${lines.slice(13).join('\n')}\n`)
    expect(await exited).toBe(1) // run 2 is cut off (max_tokens): not success
    expect(firstAt as number).toBeLessThan(closedAt)
    expect(out.map((o) => JSON.parse(o.line).ending.kind)).toStrictEqual(['answered', 'cut_off'])
  })

  it('Ctrl-C prints what is known so far as unfinished', async () => {
    const { child, out, exited } = start()
    // run 1 first: its result proves the watcher is up and reading before we interrupt
    child.stdin.write(`${lines.slice(0, 13).join('\n')}\n`)
    const deadline = Date.now() + 15_000
    while (out.length === 0 && Date.now() < deadline) await sleep(25)
    expect(out).toHaveLength(1)
    child.stdin.write(`${lines.slice(13, 16).join('\n')}\n`)
    await sleep(500)
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    expect(out).toHaveLength(2)
    const r = JSON.parse(out[1]?.line ?? '{}')
    expect(r.ending).toStrictEqual({ kind: 'unfinished', lastEventType: 'assistant/message' })
    expect(r.turns).toBe(1)
    expect(r.usage.outputTokens).toBe(4096)
    expect(r.response).toBeNull()
  })

  it('Ctrl-C while a line is half written leaves that line unread: no note of a last line cut off', async () => {
    const { child, out, exited } = start()
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    child.stdin.write(`${lines.slice(0, 13).join('\n')}\n`)
    const deadline = Date.now() + 15_000
    while (out.length === 0 && Date.now() < deadline) await sleep(25)
    expect(out).toHaveLength(1)
    // lines 14–16, then the first half of line 17 (the writer is still writing it)
    const next = lines[16] as string
    child.stdin.write(`${lines.slice(13, 16).join('\n')}\n${next.slice(0, Math.floor(next.length / 2))}`)
    await sleep(500)
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    const r = JSON.parse(out[1]?.line ?? '{}')
    expect(r.ending).toStrictEqual({ kind: 'unfinished', lastEventType: 'assistant/message' })
    expect(r.source.lastLine).toBe(16)
    expect(r.diagnostics).toStrictEqual([])
    expect(stderr).not.toContain('cut off')
  })

  const waitForLines = async (out: ReadonlyArray<unknown>, n: number): Promise<void> => {
    for (const deadline = Date.now() + 15_000; out.length < n && Date.now() < deadline; ) await sleep(25)
  }

  it('Ctrl-C on a gzip pipe prints the open run as unfinished and notes the cut stream (no failure)', async () => {
    const { child, out, exited } = start()
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const gz = gzipSync(`${lines.slice(0, 16).join('\n')}\n`)
    child.stdin.write(gz.subarray(0, gz.length - 8)) // all the data, not the trailer: the pipe stays open
    await waitForLines(out, 1)
    expect(out).toHaveLength(1)
    await sleep(500)
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    expect(out.map((o) => JSON.parse(o.line).ending)).toStrictEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'assistant/message' }])
    expect(stderr).toContain('run-outcome watch: the gzip stream ended before its end marker (cut off); read what it held')
  })

  it('a followed file replaced by a new one (write, then rename) is read from the new start, once', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-watch-'))
    const f = join(d, 'live.jsonl')
    writeFileSync(f, `${lines.slice(0, 13).join('\n')}\n`)
    const { child, out, stderr, exited } = followFile(f)
    await waitForLines(out, 1)
    writeFileSync(join(d, 'new.tmp'), `${lines.slice(13).join('\n')}\n`)
    renameSync(join(d, 'new.tmp'), f)
    await waitForLines(out, 2)
    await sleep(300) // time to read the old content again, which must not happen
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    expect(out.map((l) => JSON.parse(l).ending.kind)).toStrictEqual(['answered', 'cut_off'])
    expect(stderr()).toContain(`run-outcome watch: ${f} was replaced by a new file; reading it from its start`)
  })

  it('a followed file truncated and written again is a new input: fresh seqs, lines from 1, its own runs', async () => {
    const d = mkdtempSync(join(tmpdir(), 'run-outcome-watch-'))
    const f = join(d, 'live.jsonl')
    const log = (reason: unknown): string =>
      `${[
        JSON.stringify({ type: 'turn/start', sessionId: 's', seq: 0, data: { turn: 1 } }),
        JSON.stringify({ type: 'turn/end', sessionId: 's', seq: 1, data: { turn: 1, reason } }),
        JSON.stringify({ type: 'session/status', sessionId: 's', seq: 2, data: { status: 'idle' } }),
      ].join('\n')}\n`
    writeFileSync(f, log({ kind: 'completed' }))
    const { child, out, stderr, exited } = followFile(f)
    await waitForLines(out, 1)
    // truncated, seen truncated (a poll or more), then the same session's seqs again, ending in an error
    writeFileSync(f, '')
    for (const deadline = Date.now() + 15_000; !stderr().includes('was truncated') && Date.now() < deadline; ) await sleep(25)
    writeFileSync(f, log({ kind: 'error', error: { message: 'boom' } }))
    await waitForLines(out, 2)
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    const runs = out.map((l) => JSON.parse(l) as { ending: unknown; source: { firstLine: number; lastLine: number }; diagnostics: Array<unknown> })
    expect(runs.map((r) => r.ending)).toStrictEqual([{ kind: 'answered' }, { kind: 'failed', error: { message: 'boom' }, reason: 'error' }])
    expect(runs.map((r) => [r.source.firstLine, r.source.lastLine])).toStrictEqual([
      [1, 3],
      [1, 3],
    ])
    expect(runs[1]?.diagnostics).toStrictEqual([])
    expect(stderr()).toContain(`run-outcome watch: ${f} was truncated; reading it again from its start`)
    expect(stderr()).not.toContain('repeated delivery')
  })

  it('Claude Code stream-json: the run is printed at its first result; a late duplicate result goes to stderr', async () => {
    const claude = readFileSync(new URL('../../examples/claude-code/claude.jsonl', import.meta.url), 'utf8')
      .trim()
      .split('\n')
    const { child, out, exited } = start()
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    for (const l of claude) {
      child.stdin.write(`${l}\n`)
      await sleep(15)
    }
    const deadline = Date.now() + 15_000
    while (out.length === 0 && Date.now() < deadline) await sleep(25)
    expect(out).toHaveLength(1)
    const r = JSON.parse(out[0]?.line ?? '{}')
    expect(r.ending).toStrictEqual({ kind: 'answered' })
    expect(r.response).toBe('All tasks completed. The file contains: "Hello, World!"')
    // the process exits with an error result for the same session after the answer (K7)
    const sid = r.sessionId as string
    child.stdin.end(`${JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, session_id: sid })}\n`)
    expect(await exited).toBe(0)
    expect(out).toHaveLength(1)
    expect(stderr).toContain(`line ${claude.length + 1}: ignored a further terminal record`)
  })

  const liveCases: Array<[string, () => string[], string]> = [
    [
      'Gemini stream-json',
      () =>
        readFileSync(new URL('../fixtures/gemini-stream-json/gemini.jsonl', import.meta.url), 'utf8')
          .trim()
          .split('\n'),
      'answered',
    ],
    [
      'AI SDK UI message stream (JSONL)',
      () =>
        (JSON.parse(readFileSync(new URL('../fixtures/ai-sdk-ui-message-stream/react-agent-tool-calling.json', import.meta.url), 'utf8')) as unknown[]).map(
          (x) => JSON.stringify(x),
        ),
      'answered',
    ],
    [
      'Codex exec --json',
      () =>
        readFileSync(new URL('../fixtures/codex-exec-json/stream-output-2.jsonl', import.meta.url), 'utf8')
          .trim()
          .split('\n'),
      'answered',
    ],
  ]
  for (const [name, load, kind] of liveCases) {
    it(`${name}: the result is printed at its terminal record, while the pipe is still open`, async () => {
      const { child, out, exited } = start()
      child.stdin.write(`${load().join('\n')}\n`)
      const deadline = Date.now() + 15_000
      while (out.length === 0 && Date.now() < deadline) await sleep(25)
      expect(out).toHaveLength(1)
      expect(JSON.parse(out[0]?.line ?? '{}').ending.kind).toBe(kind)
      child.stdin.end()
      expect(await exited).toBe(0)
    })
  }
})
