import { mkdtempSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { replayStream } from '../../src/node/replay.js'
import { runCli } from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'run-outcome-cli-'))
const write = (name: string, lines: unknown[] | string): string => {
  const p = join(dir, name)
  writeFileSync(p, typeof lines === 'string' ? lines : `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
  return p
}
const turn = (kind: unknown) => [
  { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
  { type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text: 'ok' }] } } },
  { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: kind } },
]

describe('run-outcome replay (in-process main)', () => {
  it('prints one JSON line per run and exits 0 when every run answered', async () => {
    const f = write('two-runs.jsonl', [
      ...turn({ kind: 'completed' }),
      { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
      ...turn({ kind: 'completed' }),
    ])
    const r = await runCli(['replay', '--json', f])
    expect(r.code).toBe(0)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.ending.kind, l.source.firstLine, l.source.lastLine])).toStrictEqual([
      ['answered', 1, 4],
      ['answered', 5, 7],
    ])
  })

  it('exit 1 when a run is not answered; --accept widens success', async () => {
    const f = write('cut.jsonl', turn({ kind: 'max-tokens' }))
    expect((await runCli(['replay', f])).code).toBe(1)
    expect((await runCli(['replay', '--accept', 'cut_off', f])).code).toBe(0)
  })

  it('a malformed turn/end on line N: exit 3, stderr names file, line, index and path', async () => {
    const f = write('bad.jsonl', [
      ...turn({ kind: 'completed' }),
      { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
      { type: 'turn/end', sessionId: 's', data: { reason: { kind: 42 } } },
    ])
    const r = await runCli(['replay', '--json', f])
    expect(r.code).toBe(3)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(`${f}:5: event #4 (turn/end) at reason.kind: expected string`)
    const json = JSON.parse(r.stderr.trim().split('\n').at(-1) as string)
    expect(json).toMatchObject({ name: 'ProtocolError', file: f, line: 5, index: 4, path: 'reason.kind', expected: 'string' })
  })

  it('a non-JSON line in native format is a protocol error; a truncated last line is a diagnostic', async () => {
    const ok = turn({ kind: 'completed' })
      .map((l) => JSON.stringify(l))
      .join('\n')
    const mid = write('mid.jsonl', `${ok}\nnot json at all\n${ok}\n`)
    const r1 = await runCli(['replay', '--format', 'native', mid])
    expect(r1.code).toBe(3)
    expect(r1.stderr).toContain(':4: event #3: not valid JSON')
    const cut = write('cut-last.jsonl', `${ok}\n{"type":"turn/st`)
    const r2 = await runCli(['replay', '--json', '--format', 'native', cut])
    expect(r2.code).toBe(0)
    const res = JSON.parse(r2.stdout)
    expect(res.ending.kind).toBe('answered')
    expect(res.diagnostics).toStrictEqual([{ line: 4, message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' }])
  })

  it('reads standard input with -', async () => {
    const r = await runCli(
      ['replay', '--json', '-'],
      turn({ kind: 'completed' })
        .map((l) => JSON.stringify(l))
        .join('\n'),
    )
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).source).toStrictEqual({ file: null, firstLine: 1, lastLine: 3 })
  })

  it('an empty input is one unfinished run (exit 1)', async () => {
    const r = await runCli(['replay', '--json', '--format', 'native', write('empty.jsonl', '')])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).ending).toStrictEqual({ kind: 'unfinished' })
  })

  it('usage errors exit 2 with what to do next', async () => {
    expect((await runCli(['replay', '--format', 'nope', 'x'])).code).toBe(2)
    expect((await runCli(['replay', '--bogus'])).stderr).toContain("Try 'run-outcome replay --help'")
    expect((await runCli(['replay', join(dir, 'missing.jsonl')])).stderr).toContain('no such file or directory')
    expect((await runCli(['frobnicate'])).code).toBe(2)
  })

  it('a named file whose format cannot be detected exits 2; in a directory it is skipped with a note', async () => {
    const f = write('prose.txt', 'hello\nworld\n')
    const r = await runCli(['replay', f])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('could not detect the format')
    const d = join(dir, 'tree')
    mkdirSync(join(d, 'sub'), { recursive: true })
    writeFileSync(join(d, 'notes.txt'), 'just prose\n')
    writeFileSync(
      join(d, 'sub', 'a.jsonl'),
      `${turn({ kind: 'completed' })
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`,
    )
    const rd = await runCli(['replay', '--json', d])
    expect(rd.code).toBe(0)
    expect(rd.stdout.trim().split('\n')).toHaveLength(1)
    expect(rd.stderr).toContain('notes.txt: format not recognised')
  })

  it('--help for the tool and the command exit 0', async () => {
    const a = await runCli(['--help'])
    expect(a.code).toBe(0)
    expect(a.stdout).toContain('replay')
    const b = await runCli(['replay', '--help'])
    expect(b.code).toBe(0)
    expect(b.stdout).toContain('--accept KIND')
  })

  it('a Claude Code session is read with its subagent files, which make no runs of their own', async () => {
    const fixtures = new URL('../fixtures/claude-code-transcript/', import.meta.url).pathname
    const root = join(dir, 'claude-projects', 'p')
    mkdirSync(join(root, 'sess', 'subagents'), { recursive: true })
    writeFileSync(join(root, 'sess.jsonl'), readFileSync(join(fixtures, '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl')))
    // the first five records of a Task subagent transcript: it ends on a tool_use
    writeFileSync(
      join(root, 'sess', 'subagents', 'agent-x1.jsonl'),
      `${readFileSync(join(fixtures, 'task_sdk.jsonl'), 'utf8').split('\n').slice(0, 5).join('\n')}\n`,
    )
    for (const input of [join(dir, 'claude-projects'), join(root, 'sess.jsonl')]) {
      const r = await runCli(['replay', '--json', input])
      const runs = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      expect(runs).toHaveLength(1)
      expect(runs[0].ending).toStrictEqual({ kind: 'answered' })
      expect(runs[0].children).toStrictEqual([{ sessionId: 'x1', ending: { kind: 'unfinished', lastEventType: 'tool_use' }, finishReason: null }])
    }
  })

  it('a directory with no logs exits 2 and says so; a wrong explicit --format gets a hint', async () => {
    const empty = join(dir, 'nothing-here')
    mkdirSync(empty, { recursive: true })
    writeFileSync(join(empty, 'readme.md'), '# notes\n')
    const r = await runCli(['replay', empty])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`no log files under ${empty}`)
    const claude = new URL('../fixtures/claude-code-stream-json/claude.jsonl', import.meta.url).pathname
    const w = await runCli(['replay', '--format', 'codex', claude])
    expect(w.stderr).toContain('the first lines look like claude-code, not codex')
  })

  it('a directory whose files are all skipped exits 2 (nothing was read); a file with a protocol error counts as read', async () => {
    const d = join(dir, 'only-prose')
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, 'a.txt'), 'just prose\n')
    writeFileSync(join(d, 'b.log'), 'more prose\n')
    const r = await runCli(['replay', d])
    expect([r.code, r.stdout]).toStrictEqual([2, ''])
    expect(r.stderr).toContain(`run-outcome replay: none of the 2 file(s) under ${d} could be read as a log`)
    writeFileSync(join(d, 'c.jsonl'), `${JSON.stringify({ type: 'turn/end', sessionId: 's', data: {} })}\n`)
    expect((await runCli(['replay', d])).code).toBe(3)
  })

  it('an empty input gives its one unfinished run (SPEC §1) and a note saying it held no records', async () => {
    const f = write('empty.jsonl', '')
    const r = await runCli(['replay', '--json', f])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).ending).toStrictEqual({ kind: 'unfinished' })
    expect(r.stderr).toBe(`run-outcome replay: ${f}: the input holds no records (empty or blank): one unfinished run\n`)
  })

  it('an unknown option names the closest known one; a far-off one gets no guess', async () => {
    const a = await runCli(['replay', '--jsn', 'x.jsonl'])
    expect([a.code, a.stderr]).toStrictEqual([2, "run-outcome replay: unknown option --jsn (did you mean --json?)\nTry 'run-outcome replay --help'.\n"])
    const b = await runCli(['stats', '--by-model'])
    expect(b.stderr.split('\n')[0]).toBe('run-outcome stats: unknown option --by-model')
    const c = await runCli(['watch', '--acept', 'cut_off'])
    expect(c.stderr.split('\n')[0]).toBe('run-outcome watch: unknown option --acept (did you mean --accept?)')
  })

  it('a gzip log cut before its end marker gives what it held, with a note, not a failure', async () => {
    const text = `${[...turn({ kind: 'completed' }), { type: 'session/status', sessionId: 's', data: { status: 'idle' } }, ...turn({ kind: 'completed' }).slice(0, 2)].map((l) => JSON.stringify(l)).join('\n')}\n`
    const gz = gzipSync(text)
    const f = join(dir, 'cut.jsonl.gz')
    writeFileSync(f, gz.subarray(0, gz.length - 8)) // drop the gzip trailer (CRC and size)
    const r = await runCli(['replay', '--json', f])
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).ending),
    ).toStrictEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'assistant/message' }])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`run-outcome replay: ${f}: the gzip stream ended before its end marker (cut off); read what it held\n`)
  })

  it('a gzip stream whose first chunk is one byte is still recognised as gzip', async () => {
    const gz = gzipSync(
      `${turn({ kind: 'completed' })
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`,
    )
    async function* dribble() {
      yield gz.subarray(0, 1)
      yield gz.subarray(1)
    }
    const runs: Array<{ ending: unknown }> = []
    const outcome = await replayStream(dribble(), (r) => runs.push(r))
    expect([outcome.format, outcome.notes, runs.map((r) => r.ending)]).toStrictEqual(['native', [], [{ kind: 'answered' }]])
  })
})
