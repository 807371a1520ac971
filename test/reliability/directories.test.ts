/**
 * Directories (issue 14): symbolic links to files and folders are followed (a loop is read once, with a note);
 * a broken link is noted; file names that are not valid UTF-8 are read through Buffer paths; a file reached
 * through overlapping inputs is listed once; a `subagents` folder given by itself is read; a session file named
 * `...jsonl` cannot pull a `subagents` folder from outside its own; the 100-diagnostic cap holds for
 * diagnostics added from subagent files.
 */
import { spawnSync } from 'node:child_process'
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_DIAGNOSTICS, type RunResult } from '../../src/core/RunResult.js'
import { attachSubagents, subagentFilesOf, subagentFilesOfSync } from '../../src/node/claudeSubagents.js'
import { listLogFiles, listLogPaths } from '../../src/node/files.js'
import { replayStream } from '../../src/node/replay.js'
import { runCli } from '../support/cli.js'

const native = readFileSync(new URL('../../examples/native/session.jsonl', import.meta.url), 'utf8')
const tmp = (): string => mkdtempSync(join(tmpdir(), 'run-outcome-dirs-'))

describe('symbolic links', () => {
  // they were left out without a word: a FIFO named like a log vanished from `replay DIR` and `stats DIR`
  it('a FIFO, and a link to a device, named like logs in a folder: noted as not regular files, the rest read', async () => {
    const d = tmp()
    writeFileSync(join(d, 'a.jsonl'), native)
    expect(spawnSync('mkfifo', [join(d, 'b.jsonl')]).status).toBe(0)
    symlinkSync('/dev/null', join(d, 'c.jsonl'))
    const skipped: Array<[string, string]> = []
    expect(await listLogFiles(d, (p, why) => skipped.push([p, why]))).toStrictEqual([join(d, 'a.jsonl')])
    const why = 'not a regular file (a FIFO, socket or device; name it by itself to read it)'
    expect(skipped).toStrictEqual([
      [join(d, 'b.jsonl'), why],
      [join(d, 'c.jsonl'), why],
    ])
    const r = await runCli(['replay', '--json', d])
    expect(r.stderr).toBe(`run-outcome replay: skipped ${join(d, 'b.jsonl')}: ${why}\nrun-outcome replay: skipped ${join(d, 'c.jsonl')}: ${why}\n`)
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(0)
    const s = JSON.parse((await runCli(['stats', '--json', d], '', { RUN_OUTCOME_CACHE: '0' })).stdout) as { filesRead: number; skipped: unknown }
    expect([s.filesRead, s.skipped]).toStrictEqual([
      1,
      [
        { file: join(d, 'b.jsonl'), why: 'not-regular' },
        { file: join(d, 'c.jsonl'), why: 'not-regular' },
      ],
    ])
  })

  it('links to files and folders are followed; a loop and a second link to a folder are read once, with a note; a broken link is noted', async () => {
    const d = tmp()
    const real = join(d, 'real')
    mkdirSync(real)
    writeFileSync(join(real, 'a.jsonl'), native)
    mkdirSync(join(d, 'logs'))
    symlinkSync(join(real, 'a.jsonl'), join(d, 'logs', 'linked.jsonl'))
    symlinkSync(real, join(d, 'logs', 'folder'))
    symlinkSync(d, join(real, 'loop')) // back up to the top: a loop
    symlinkSync(join(d, 'nowhere.jsonl'), join(d, 'logs', 'broken.jsonl'))
    const skipped: Array<[string, string]> = []
    const files = await listLogFiles(join(d, 'logs'), (p, why) => skipped.push([p, why]))
    // a.jsonl is reached as folder/a.jsonl and as linked.jsonl: one file, listed once (the first path in order)
    expect(files).toStrictEqual([join(d, 'logs', 'folder', 'a.jsonl')])
    expect(skipped).toStrictEqual([
      [join(d, 'logs', 'broken.jsonl'), 'a symbolic link to nothing readable'],
      [join(d, 'logs', 'folder', 'loop', 'logs'), 'the same folder as one already read (a symbolic link loop or a second link to it)'],
      [join(d, 'logs', 'folder', 'loop', 'real'), 'the same folder as one already read (a symbolic link loop or a second link to it)'],
    ])
    // the CLI reads the linked file (today's runs are not lost to a link)
    const r = await runCli(['replay', '--json', join(d, 'logs')])
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as RunResult).ending.kind),
    ).toStrictEqual(['answered', 'cut_off'])
    expect(r.stderr).toContain(`skipped ${join(d, 'logs', 'broken.jsonl')}: a symbolic link to nothing readable`)
  })

  it('stats names each of them under its own reason (a broken link is not an unreadable folder), and reads the linked file', async () => {
    const d = tmp()
    const real = join(d, 'real')
    mkdirSync(real)
    writeFileSync(join(real, 'a.jsonl'), native)
    symlinkSync(join(d, 'nowhere.jsonl'), join(real, 'broken.jsonl'))
    symlinkSync(d, join(real, 'loop'))
    const r = await runCli(['stats', '--jobs', '1', '--json', d])
    const doc = JSON.parse(r.stdout) as { runs: number; filesRead: number; skipped: Array<{ file: string; why: string }> }
    expect([r.code, doc.runs, doc.filesRead]).toStrictEqual([0, 2, 1])
    expect(doc.skipped).toStrictEqual([
      { file: join(real, 'broken.jsonl'), why: 'broken-link' },
      { file: join(real, 'loop'), why: 'folder-again' },
    ])
    const text = await runCli(['stats', '--jobs', '1', d])
    expect(text.stderr.split('\n').filter((l) => l.includes('skipped'))).toStrictEqual([
      `run-outcome stats: skipped ${join(real, 'broken.jsonl')}: a symbolic link to nothing readable`,
      `run-outcome stats: skipped ${join(real, 'loop')}: the same folder as one already read (a symbolic link loop or a second link to it)`,
    ])
  })
})

describe('names and overlapping inputs', () => {
  it('a file name that is not valid UTF-8 is listed as a Buffer and read; the string listing notes it instead of dropping it', async () => {
    const d = tmp()
    const name = Buffer.concat([Buffer.from(`${d}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.jsonl')])
    writeFileSync(name, native)
    writeFileSync(join(d, 'good.jsonl'), native)
    const paths = await listLogPaths(d)
    expect(paths.map((p) => [Buffer.isBuffer(p.path), p.label])).toStrictEqual([
      [true, `${d}/bad-\\xff\\xfe.jsonl`],
      [false, join(d, 'good.jsonl')],
    ])
    const runs: Array<RunResult> = []
    await replayStream(createReadStream(paths[0]?.path as Buffer), (r) => runs.push(r), { file: paths[0]?.label ?? null })
    expect(runs.map((r) => r.ending.kind)).toStrictEqual(['answered', 'cut_off'])
    const skipped: Array<string> = []
    expect(await listLogFiles(d, (p, why) => skipped.push(`${p}: ${why}`))).toStrictEqual([join(d, 'good.jsonl')])
    expect(skipped).toStrictEqual([`${d}/bad-\\xff\\xfe.jsonl: its name is not valid UTF-8 (not read)`])
  })

  it('the CLI reads a file whose name is not valid UTF-8 (replay, events, stats), shown with its bytes escaped', async () => {
    const d = tmp()
    const a = Buffer.concat([Buffer.from(`${d}/bad-`), Buffer.from([0xff]), Buffer.from('.jsonl')])
    const b = Buffer.concat([Buffer.from(`${d}/bad-`), Buffer.from([0xfe]), Buffer.from('.jsonl')])
    writeFileSync(a, native)
    writeFileSync(b, native)
    const replay = await runCli(['replay', '--brief', d])
    expect(replay.code).toBe(1)
    expect(replay.stderr).toBe('')
    expect(
      replay.stdout
        .split('\n')
        .filter((l) => l.includes('bad-'))
        .map((l) => l.slice(l.indexOf('bad-'))),
    ).toStrictEqual(['bad-\\xfe.jsonl #1', 'bad-\\xfe.jsonl #2', 'bad-\\xff.jsonl #1', 'bad-\\xff.jsonl #2'])
    const json = await runCli(['replay', '--json', d])
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => [(JSON.parse(l) as RunResult).source?.file, (JSON.parse(l) as RunResult).ending.kind]),
    ).toStrictEqual([
      [`${d}/bad-\\xfe.jsonl`, 'answered'],
      [`${d}/bad-\\xfe.jsonl`, 'cut_off'],
      [`${d}/bad-\\xff.jsonl`, 'answered'],
      [`${d}/bad-\\xff.jsonl`, 'cut_off'],
    ])
    const events = await runCli(['events', d])
    expect([events.code, events.stderr, events.stdout.trim().split('\n').length]).toStrictEqual([0, '', 2 * native.trim().split('\n').length])
    const stats = await runCli(['stats', '--jobs', '1', '--json', '--by', 'session', d])
    const doc = JSON.parse(stats.stdout) as { runs: number; filesRead: number; filesSkipped: number }
    expect([stats.code, doc.runs, doc.filesRead, doc.filesSkipped]).toStrictEqual([0, 4, 2, 0])
  })

  it('the CLI reads a file reached through overlapping inputs once (d ./d, a folder and its parent, a file and its folder)', async () => {
    const d = tmp()
    mkdirSync(join(d, 'sub'))
    writeFileSync(join(d, 'sub', 'a.jsonl'), native)
    writeFileSync(join(d, 'b.jsonl'), native)
    const sub = join(d, 'sub')
    for (const argv of [
      [sub, `${d}/./sub/`],
      [sub, d],
      [d, sub],
      [join(sub, 'a.jsonl'), d],
      [d, join(sub, 'a.jsonl')],
    ]) {
      const replay = await runCli(['replay', '--json', ...argv])
      // a.jsonl and b.jsonl: two runs each, each file once
      expect([argv, replay.code, replay.stdout.trim().split('\n').length]).toStrictEqual([argv, 1, 4 - (argv.includes(d) ? 0 : 2)])
      expect(replay.stderr).toMatch(/skipped .*a\.jsonl: already read \(the same file through another path\)\n$/)
      const events = await runCli(['events', ...argv])
      expect([argv, events.code, events.stdout.trim().split('\n').length]).toStrictEqual([
        argv,
        0,
        (argv.includes(d) ? 2 : 1) * native.trim().split('\n').length,
      ])
      const stats = await runCli(['stats', '--jobs', '1', '--json', ...argv])
      const doc = JSON.parse(stats.stdout) as { runs: number; files: number }
      expect([argv, stats.code, doc.runs, doc.files]).toStrictEqual([argv, 0, argv.includes(d) ? 4 : 2, argv.includes(d) ? 2 : 1])
    }
  })

  it('the same file through overlapping inputs (d and ./d, a folder and its parent) is listed once with a shared `seen`', async () => {
    const d = tmp()
    mkdirSync(join(d, 'sub'))
    writeFileSync(join(d, 'sub', 'a.jsonl'), native)
    writeFileSync(join(d, 'b.jsonl'), native)
    const seen = new Set<string>()
    const dup: Array<string> = []
    const first = await listLogFiles(join(d, 'sub'), undefined, { seen, onDuplicate: (p) => dup.push(p) })
    const second = await listLogFiles(`${d}/./sub/`, undefined, { seen, onDuplicate: (p) => dup.push(p) })
    const parent = await listLogFiles(d, undefined, { seen, onDuplicate: (p) => dup.push(p) })
    expect([first, second, parent]).toStrictEqual([[join(d, 'sub', 'a.jsonl')], [], [join(d, 'b.jsonl')]])
    expect(dup).toStrictEqual([join(d, 'sub', 'a.jsonl'), join(d, 'sub', 'a.jsonl')])
  })
})

describe('Claude Code subagent folders', () => {
  const claudeParent = [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 'sess', timestamp: '2025-10-30T12:00:00.000Z', message: { role: 'user', content: 'go' } },
    {
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      sessionId: 'sess',
      timestamp: '2025-10-30T12:00:05.000Z',
      message: {
        id: 'm-p',
        model: 'claude-sonnet',
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 5 },
      },
    },
  ]
    .map((x) => `${JSON.stringify(x)}\n`)
    .join('')
  const subRecord = (agent: string): string =>
    `${JSON.stringify({ parentUuid: null, isSidechain: true, userType: 'external', sessionId: 'sess', agentId: agent, type: 'assistant', uuid: `x-${agent}`, timestamp: '2025-10-30T12:00:01.000Z', message: { id: `m-${agent}`, model: 'claude-sonnet', role: 'assistant', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage: { input_tokens: 2, output_tokens: 3 } } })}\n`

  it('a subagents folder (or a session folder) given by itself is read; under its project it belongs to the session', async () => {
    const d = tmp()
    const sub = join(d, 'proj', 'sess', 'subagents')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(d, 'proj', 'sess.jsonl'), native)
    writeFileSync(join(sub, 'agent-a1.jsonl'), subRecord('a1'))
    expect(await listLogFiles(join(d, 'proj'))).toStrictEqual([join(d, 'proj', 'sess.jsonl')])
    expect(await listLogFiles(sub)).toStrictEqual([join(sub, 'agent-a1.jsonl')])
    expect(await listLogFiles(join(d, 'proj', 'sess'))).toStrictEqual([join(sub, 'agent-a1.jsonl')])
    const r = await runCli(['replay', '--json', sub])
    expect([r.code, (JSON.parse(r.stdout) as RunResult).usage.outputTokens]).toStrictEqual([0, 3])
  })

  it('a session file named `...jsonl` does not pull a subagents folder from outside its own folder', async () => {
    const d = tmp()
    mkdirSync(join(d, 'inner'))
    mkdirSync(join(d, 'subagents'))
    writeFileSync(join(d, 'subagents', 'agent-x.jsonl'), subRecord('x'))
    for (const name of ['...jsonl', '..jsonl', '.jsonl']) {
      writeFileSync(join(d, 'inner', name), native)
      expect([name, await subagentFilesOf(join(d, 'inner', name))]).toStrictEqual([name, []])
    }
  })

  // a link to a FIFO was listed like a link to a file, and the read of the session waited forever in its open
  it('a link in subagents/ to a FIFO, a folder or /dev/zero is no subagent file: the session is read at once', async () => {
    const d = tmp()
    const sub = join(d, 'proj', 'sess', 'subagents')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(d, 'proj', 'sess.jsonl'), claudeParent)
    writeFileSync(join(sub, 'agent-a1.jsonl'), subRecord('a1'))
    expect(spawnSync('mkfifo', [join(d, 'fifo')]).status).toBe(0)
    symlinkSync(join(d, 'fifo'), join(sub, 'agent-f.jsonl'))
    symlinkSync(d, join(sub, 'agent-d.jsonl'))
    symlinkSync('/dev/zero', join(sub, 'agent-z.jsonl'))
    symlinkSync(join(d, 'missing'), join(sub, 'agent-m.jsonl'))
    // the link to nothing stays (it is noted when read); the others are left out, as a FIFO itself would be
    const listed = [join(sub, 'agent-a1.jsonl'), join(sub, 'agent-m.jsonl')]
    expect(await subagentFilesOf(join(d, 'proj', 'sess.jsonl'))).toStrictEqual(listed)
    expect(subagentFilesOfSync(join(d, 'proj', 'sess.jsonl'))).toStrictEqual(listed)
    const r = await runCli(['replay', '--json', join(d, 'proj', 'sess.jsonl')])
    const run = JSON.parse(r.stdout) as RunResult
    expect([r.code, run.children.map((c) => c.sessionId), run.usage.outputTokens]).toStrictEqual([0, ['a1'], 5 + 3])
    expect(run.diagnostics.map((x) => x.message)).toStrictEqual(['could not read the subagent file agent-m.jsonl'])
    const s = await runCli(['stats', '--json', join(d, 'proj')], '', { RUN_OUTCOME_CACHE: '0' })
    expect([s.code, (JSON.parse(s.stdout) as { tokens: { outputTokens: number } }).tokens.outputTokens]).toStrictEqual([0, 8])
  })

  it('diagnostics from subagent files keep the 100-diagnostic cap (the rest counted)', async () => {
    const d = tmp()
    const sub = join(d, 'sess', 'subagents')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(d, 'sess.jsonl'), '')
    // links to nothing: each is a subagent file that cannot be read
    for (let i = 0; i < 150; i++) symlinkSync(join(d, `missing-${i}`), join(sub, `agent-${String(i).padStart(3, '0')}.jsonl`))
    const parent = {
      diagnostics: [{ message: 'one of its own' }],
      diagnosticsDropped: 0,
      children: [],
      usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, byModel: {} },
      cost: { totalUsd: null, complete: false, missing: 0 },
      toolCalls: 0,
      startedAt: null,
      endedAt: null,
    } as unknown as RunResult
    const [r] = await attachSubagents([parent], join(d, 'sess.jsonl'))
    expect([r?.diagnostics.length, r?.diagnosticsDropped, r?.diagnostics[1]?.message]).toStrictEqual([
      MAX_DIAGNOSTICS,
      51,
      'could not read the subagent file agent-000.jsonl',
    ])
  })
})
