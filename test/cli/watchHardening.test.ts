/**
 * `watch` in-process (issues 13 and 14): `--poll` is bounded; the status line is erased however watch ends
 * (also when its input stays open after the last run); `in` means what it means in the result block (input not
 * served from cache); Ctrl-C prints the open run as `replay` prints the same records (SPEC §2 rule 2: unfinished
 * without an ending; a transcript's inferred ending), as `--help` says; watch stops when its output is gone.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import type { CliIO, Signal } from '../../src/cli/io.js'
import { watchHelp } from '../../src/cli/watchCommand.js'
import { runCli } from '../support/cli.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const j = (o: unknown): string => JSON.stringify(o)

interface Harness {
  readonly io: CliIO
  readonly stdout: () => string
  readonly stderr: () => string
  /** Sends a signal to the handlers watch registered. */
  readonly signal: (s: Signal) => void
  /** Lets the input end (the generator returns). */
  readonly end: () => void
  /** Resolves once watch has taken every chunk and asked for more (a loaded machine may take a while). */
  readonly drained: () => Promise<void>
}

/** An injected world: `chunks` are fed, then the input stays open until `end()` (or a signal stops watch). */
const harness = (chunks: ReadonlyArray<string>, opts: { tty?: boolean; closedAfter?: number } = {}): Harness => {
  let out = ''
  let err = ''
  let writes = 0
  const handlers = new Map<Signal, Array<() => void>>()
  let release: () => void = () => {}
  const released = new Promise<void>((r) => {
    release = r
  })
  let asked = false
  const stdin = (async function* () {
    for (const c of chunks) {
      yield Buffer.from(c)
      await sleep(5)
    }
    asked = true
    await released
  })()
  const io: CliIO = {
    stdin,
    stdout: {
      write: (s: string) => {
        writes++
        if (opts.closedAfter === undefined || writes <= opts.closedAfter) out += s
      },
      get closed() {
        return opts.closedAfter !== undefined && writes >= opts.closedAfter
      },
    },
    stderr: {
      write: (s: string) => {
        err += s
      },
      isTTY: opts.tty === true,
      columns: 300,
    },
    env: { NO_COLOR: '1' },
    onSignal: (sig, h) => {
      const list = handlers.get(sig) ?? []
      list.push(h)
      handlers.set(sig, list)
      return () => {
        list.splice(list.indexOf(h), 1)
      }
    },
  }
  return {
    io,
    stdout: () => out,
    stderr: () => err,
    signal: (s) => {
      for (const h of handlers.get(s) ?? []) h()
    },
    end: () => release(),
    drained: async () => {
      for (let t = 0; !asked && t < 20_000; t += 10) await sleep(10)
    },
  }
}

const native = (type: string, data: unknown): string => `${j({ type, sessionId: 's', data })}\n`
const answeredRun = [
  native('turn/start', { turn: 1 }),
  native('assistant/message', {
    turn: 1,
    step: 1,
    message: { content: [{ type: 'text', text: 'done' }] },
    usage: { inputTokens: 100, cacheReadTokens: 900, cacheWriteTokens: 20, outputTokens: 5 },
  }),
  native('turn/end', { turn: 1, reason: { kind: 'completed' } }),
  native('session/status', { status: 'idle' }),
]
const openRun = [
  native('turn/start', { turn: 2 }),
  native('assistant/message', {
    turn: 2,
    step: 1,
    message: { content: [{ type: 'text', text: 'thinking' }] },
    usage: { inputTokens: 7, cacheReadTokens: 300, outputTokens: 2 },
  }),
]

describe('watch --poll', () => {
  it('takes 10 to 60,000 ms; anything else is a usage error, not a busy loop or a timer overflow', async () => {
    for (const bad of ['3e9', '5', '-1', 'NaN', 'Infinity', '60001']) {
      const r = await runCli(['watch', `--poll=${bad}`, 'x.jsonl'])
      expect([bad, r.code, r.stdout, r.stderr]).toStrictEqual([bad, 2, '', 'run-outcome watch: --poll takes milliseconds, from 10 to 60000\n'])
    }
  })
})

describe('the status line', () => {
  it('is erased on exit when the input stays open after the last run (Ctrl-C), and "in" counts input not served from cache, as the result block does', async () => {
    const h = harness([...answeredRun, ...openRun], { tty: true })
    const done = main(['watch'], h.io)
    await sleep(700) // the status is drawn every 200 ms
    h.signal('SIGINT')
    expect(await done).toBe(1)
    const err = h.stderr()
    // the last status drawn names the open run: 7 in (300 cache) / 2 out
    const statuses = err.split('\r\x1b[K').filter((s) => s !== '')
    expect(statuses.at(-1)).toMatch(
      /^. run 2 · 1 turn · 0 tool calls · 7 in \+ 300 cache \/ 2 out tokens · cost so far unknown · \d+\.\d s · last: assistant\/message$/,
    )
    // nothing is left on the line: the last thing written to stderr is the erase
    expect(err.endsWith('\r\x1b[K')).toBe(true)
    // the result block: "in" is the same figure (input not served from cache), the cache named apart
    expect(h.stdout()).toMatch(/\n {2}tokens +100 in · 900 cache read · 20 cache write · 5 out\n/)
    expect(h.stdout()).toMatch(/\n {2}tokens +7 in · 300 cache read · 2 out\n/)
  })

  it('is erased when the input ends after a pause, too', async () => {
    const h = harness(answeredRun, { tty: true })
    const done = main(['watch'], h.io)
    await sleep(500)
    h.end()
    expect(await done).toBe(0)
    expect(h.stderr().endsWith('\r\x1b[K')).toBe(true)
  })
})

describe('Ctrl-C prints the open run as replay prints the same records', () => {
  it('a JSON document without a final newline (a Gemini CLI session file): its runs, as replay gives them (hostile trial)', async () => {
    const doc = readFileSync(new URL('../fixtures/gemini-session/session-2025-10-27T19-55-981c87cb.json', import.meta.url), 'utf8')
    expect(doc.endsWith('}')).toBe(true)
    const h = harness([doc.slice(0, 1000), doc.slice(1000)])
    const done = main(['watch', '--json'], h.io)
    await h.drained()
    await sleep(100)
    h.signal('SIGINT')
    expect(await done).toBe(1)
    const replayed = await runCli(['replay', '--json', '-'], doc)
    expect(h.stdout()).toBe(replayed.stdout)
    expect(
      h
        .stdout()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['answered', 'stopped', 'answered'])
  })

  it('a last record that is whole JSON but lacks its newline is read; a half-written one is not', async () => {
    const whole = harness([...answeredRun, openRun[0] as string, (openRun[1] as string).trimEnd()])
    const done = main(['watch', '--json'], whole.io)
    await whole.drained()
    await sleep(100)
    whole.signal('SIGINT')
    expect(await done).toBe(1)
    const kinds = (out: string): Array<unknown> =>
      out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: unknown }).ending)
    expect(kinds(whole.stdout())).toStrictEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'assistant/message' }])
    const half = harness([...answeredRun, openRun[0] as string, (openRun[1] as string).slice(0, 40)])
    const halfDone = main(['watch', '--json'], half.io)
    await half.drained()
    await sleep(100)
    half.signal('SIGINT')
    expect(await halfDone).toBe(1)
    expect(kinds(half.stdout())).toStrictEqual([{ kind: 'answered' }, { kind: 'unfinished', lastEventType: 'turn/start' }])
    expect(half.stderr()).toBe('')
  })

  it('before any record came: one unfinished run, and no claim that the input is empty (hostile trial)', async () => {
    const h = harness([])
    const done = main(['watch', '--json'], h.io)
    await sleep(100)
    h.signal('SIGINT')
    expect(await done).toBe(1)
    expect((JSON.parse(h.stdout()) as { ending: unknown }).ending).toStrictEqual({ kind: 'unfinished' })
    expect(h.stderr()).toBe('run-outcome watch: stopped before any record was read\n')
  })

  it('native: unfinished (no ending record); the help says so', async () => {
    const h = harness([...answeredRun, ...openRun])
    const done = main(['watch', '--json'], h.io)
    await sleep(400)
    h.signal('SIGINT')
    expect(await done).toBe(1)
    const runs = h
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ending: unknown; inferred: boolean })
    expect(runs.map((r) => [r.ending, r.inferred])).toStrictEqual([
      [{ kind: 'answered' }, false],
      [{ kind: 'unfinished', lastEventType: 'assistant/message' }, false],
    ])
    const replayed = await runCli(['replay', '--json', '-'], [...answeredRun, ...openRun].join(''))
    expect(h.stdout()).toBe(replayed.stdout)
    expect(watchHelp()).toContain(
      'prints the run still open as the records so far\nshow it, as replay would print the same records: unfinished when they hold no ending',
    )
  })

  it('a Claude Code transcript: the ending inferred from its last records, marked inferred (the help says so)', async () => {
    let n = 0
    const rec = (type: string, message: unknown): string =>
      `${j({ parentUuid: null, isSidechain: false, userType: 'external', cwd: '/tmp', sessionId: 'tx', version: '2.0.30', type, uuid: `u${++n}`, timestamp: `2025-10-30T12:00:0${n}.000Z`, message })}\n`
    const lines = [
      rec('user', { role: 'user', content: 'hi' }),
      rec('assistant', {
        id: 'm1',
        model: 'claude-sonnet',
        role: 'assistant',
        content: [{ type: 'text', text: 'hello' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 3, output_tokens: 1 },
      }),
    ]
    const h = harness(lines)
    const done = main(['watch', '--json'], h.io)
    await sleep(400)
    // a transcript's run is shown when the next prompt starts: nothing yet
    expect(h.stdout()).toBe('')
    h.signal('SIGHUP')
    expect(await done).toBe(0)
    const r = JSON.parse(h.stdout()) as { ending: unknown; inferred: boolean; response: string }
    expect([r.ending, r.inferred, r.response]).toStrictEqual([{ kind: 'answered' }, true, 'hello'])
    expect(h.stdout()).toBe((await runCli(['replay', '--json', '-'], lines.join(''))).stdout)
    expect(watchHelp()).toContain(
      'for\nlogs that write no ending record (Claude Code transcripts), the ending inferred from the last\nrecords, marked (inferred)',
    )
  })
})

describe('output gone', () => {
  it('watch stops following once the reader of its output has gone, though the input stays open', async () => {
    const h = harness([...answeredRun, ...answeredRun.map((l) => l.replace('"turn":1', '"turn":3'))], { closedAfter: 1 })
    const r = await Promise.race([main(['watch', '--json'], h.io), sleep(5_000).then(() => 'still following' as const)])
    h.end()
    expect(r).toBe(0)
    expect(h.stdout().trim().split('\n')).toHaveLength(1)
  })
})
