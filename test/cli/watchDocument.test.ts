/**
 * `watch FILE` on a JSON document (a Gemini CLI session file), which its writer writes whole again after each
 * message — in place (truncate and write, the same inode) or by a rename. The hostile trial found watch reading
 * such a file like a log: the new document's bytes past the old length were glued to the old document, and at
 * Ctrl-C it was "not valid JSON" (exit 2, no runs). Each run must now be printed once, as it becomes final, and
 * the last at the stop, the whole equal to `replay` of the final document.
 */
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIO, Signal } from '../../src/cli/io.js'
import { main } from '../../src/cli/main.js'
import { runCli } from '../support/cli.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
/** Waits until `ok()` holds (a loaded machine may take a while to start watch), for at most 20 s. */
const until = async (ok: () => boolean): Promise<void> => {
  for (let t = 0; !ok() && t < 20_000; t += 20) await sleep(20)
}
const session = JSON.parse(readFileSync(new URL('../fixtures/gemini-session/session-2025-10-27T19-55-981c87cb.json', import.meta.url), 'utf8')) as {
  messages: Array<unknown>
}
/** The session as Gemini CLI wrote it after its first `k` messages (pretty-printed, no final newline). */
const version = (k: number): string => JSON.stringify({ ...session, messages: session.messages.slice(0, k) }, null, 2)

/** A session file in a folder of its own, holding `text` at first. */
const sessionFile = (text: string): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'ro-watch-doc-')), 'session.json')
  writeFileSync(file, text)
  return file
}

const watching = (path: string, extra: ReadonlyArray<string> = []) => {
  let out = ''
  let err = ''
  const handlers = new Map<Signal, Array<() => void>>()
  const io: CliIO = {
    stdin: (async function* () {})(),
    stdout: { write: (s: string) => void (out += s) },
    stderr: { write: (s: string) => void (err += s), isTTY: false, columns: 200 },
    env: { NO_COLOR: '1' },
    onSignal: (sig, h) => {
      handlers.set(sig, [...(handlers.get(sig) ?? []), h])
      return () => {}
    },
  }
  const done = main(['watch', '--json', '--poll', '20', ...extra, path], io)
  const kinds = (): Array<string> =>
    out
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind)
  return {
    done,
    kinds,
    stdout: () => out,
    stderr: () => err,
    /** Ctrl-C, once watch listens for it. */
    interrupt: async () => {
      await until(() => handlers.has('SIGINT'))
      for (const h of handlers.get('SIGINT') ?? []) h()
    },
  }
}

/**
 * Ctrl-C, then what the whole session shows: exit 1 (its second run was stopped), its three runs each printed
 * once, the output `replay` prints for the final file, and nothing on stderr.
 */
const stopsAsReplay = async (w: ReturnType<typeof watching>, file: string): Promise<void> => {
  await w.interrupt()
  expect(await w.done).toBe(1)
  expect(w.kinds()).toStrictEqual(['answered', 'stopped', 'answered'])
  expect(w.stdout()).toBe((await runCli(['replay', '--json', file])).stdout)
  expect(w.stderr()).toBe('')
}

describe('watch on a JSON document written whole again', () => {
  for (const how of ['in place', 'by a rename'] as const) {
    it(`${how}: each run once, as it becomes final; the last at Ctrl-C; all as replay gives the final document`, async () => {
      const file = sessionFile(version(5))
      const write = (text: string): void => {
        if (how === 'in place') writeFileSync(file, text)
        else {
          writeFileSync(`${file}.next`, text)
          renameSync(`${file}.next`, file)
        }
      }
      const w = watching(file)
      // two prompts: the first run is final, the second still open
      await until(() => w.kinds().length > 0)
      await sleep(200)
      expect(w.kinds()).toStrictEqual(['answered'])
      // the second run's next message: still the last run, still open
      write(version(6))
      await sleep(300)
      expect(w.kinds()).toStrictEqual(['answered'])
      // a third prompt: the second run is final now (stopped)
      write(version(18))
      await until(() => w.kinds().length > 1)
      await sleep(200)
      expect(w.kinds()).toStrictEqual(['answered', 'stopped'])
      await stopsAsReplay(w, file)
    })
  }

  it('emptied for a rewrite and seen empty: no run printed twice (second attack)', async () => {
    const file = sessionFile(version(8))
    const w = watching(file)
    await until(() => w.kinds().length > 1)
    // what `cat new > file` does: truncate, a pause a poll can fall in, then the write
    writeFileSync(file, '')
    await sleep(150)
    writeFileSync(file, version(18))
    await sleep(300)
    await stopsAsReplay(w, file)
  })

  it('another session written over it: read from its start, with a note; a rewound one: nothing printed twice', async () => {
    const file = sessionFile(version(8))
    const w = watching(file)
    await until(() => w.kinds().length > 1)
    // rewound to two prompts: the two runs printed stay as they were
    writeFileSync(file, version(5))
    await until(() => w.stderr() !== '')
    expect(w.kinds()).toStrictEqual(['answered', 'stopped'])
    expect(w.stderr()).toBe(`run-outcome watch: ${file} now holds fewer runs than were printed; the runs after run 2 print as they end\n`)
    // another session (its id differs): its runs from the first
    writeFileSync(file, JSON.stringify({ ...session, sessionId: 'another-session', messages: session.messages.slice(0, 5) }, null, 2))
    await until(() => w.kinds().length > 2)
    await w.interrupt()
    expect(await w.done).toBe(1)
    expect(w.kinds()).toStrictEqual(['answered', 'stopped', 'answered', 'unfinished'])
    expect(w.stderr()).toContain(`run-outcome watch: ${file} now holds another session; reading it from its start\n`)
  })

  it('--format native: the protocol error replay gives, exit 3 (second attack)', async () => {
    const file = sessionFile(version(18))
    const w = watching(file, ['--format', 'native'])
    expect(await w.done).toBe(3)
    expect(w.stdout()).toBe('')
    const replayed = await runCli(['replay', '--format', 'native', file])
    expect(replayed.code).toBe(3)
    expect(w.stderr().split('\n')[0]).toBe(replayed.stderr.split('\n')[0]?.replace('run-outcome replay:', 'run-outcome watch:'))
  })

  it('caught half-written, then whole: no error, the runs as they end', async () => {
    const whole = version(18)
    const file = sessionFile(whole.slice(0, Math.floor(whole.length / 2)))
    const w = watching(file)
    await sleep(200)
    expect(w.kinds()).toStrictEqual([])
    writeFileSync(file, whole)
    await until(() => w.kinds().length > 1)
    expect(w.kinds()).toStrictEqual(['answered', 'stopped'])
    await w.interrupt()
    expect(await w.done).toBe(1)
    expect(w.kinds()).toStrictEqual(['answered', 'stopped', 'answered'])
    expect(w.stderr()).toBe('')
  })

  it('never a whole document: exit 2 at Ctrl-C, saying why', async () => {
    const file = sessionFile(version(18).slice(0, 400))
    const w = watching(file)
    await sleep(200)
    await w.interrupt()
    expect(await w.done).toBe(2)
    expect(w.stdout()).toBe('')
    expect(w.stderr()).toBe(`run-outcome watch: ${file} starts like a JSON document but is not valid JSON\n`)
  })
})
