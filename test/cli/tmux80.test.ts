/**
 * In a real terminal 80 columns wide (a tmux pane), `stats`, `stats --by session --breakdown` and
 * `replay --brief` over the fixture home draw without a single wrapped line: the pane captured as the terminal
 * shows it has exactly the lines of the capture with wrapped lines joined (`capture-pane -J`), and none is wider
 * than 80 columns. Needs tmux and a built CLI (`npm run build`); skipped without tmux.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textWidth } from '../../src/cli/stats/table.js'
import { binPath, repoRoot } from '../support/cli.js'

const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0
const home = join(repoRoot, 'test/fixtures/homes/basic')
const work = mkdtempSync(join(tmpdir(), 'ro-tmux-'))
const sock = join(work, 'tmux.sock')
const tmux = (...args: Array<string>): string => {
  const r = spawnSync('tmux', ['-f', '/dev/null', '-S', sock, ...args], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`)
  return r.stdout
}

beforeAll(() => {
  // one idle session keeps the private server up between the panes (it exits when its last session ends)
  if (hasTmux) tmux('new-session', '-d', '-s', 'keep', '-x', '80', '-y', '10', 'sh', '-c', 'sleep 600')
})

afterAll(() => {
  if (hasTmux) spawnSync('tmux', ['-S', sock, 'kill-server'])
  rmSync(work, { recursive: true, force: true })
})

/** Runs `args` of the built CLI in a fresh 80×50 pane; resolves with the whole pane (history included), as drawn and as joined. */
const runInPane = async (name: string, args: ReadonlyArray<string>): Promise<{ drawn: Array<string>; joined: Array<string> }> => {
  const done = `__done_${name}__`
  const quoted = args.map((a) => `'${a}'`).join(' ')
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '80',
    '-y',
    '50',
    '-c',
    repoRoot,
    'env',
    '-u',
    'NO_COLOR',
    '-u',
    'FORCE_COLOR',
    '-u',
    'COLUMNS',
    '-u',
    'LINES',
    `HOME=${home}`,
    'TZ=UTC',
    'TERM=xterm-256color',
    'sh',
    '-c',
    `'${process.execPath}' '${binPath}' ${quoted}; echo ${done}; sleep 30`,
  )
  tmux('set-option', '-t', name, 'history-limit', '2000')
  const deadline = Date.now() + 30_000
  let text = ''
  while (Date.now() < deadline) {
    text = tmux('capture-pane', '-p', '-S', '-', '-t', name)
    if (text.includes(done)) break
    await new Promise((r) => setTimeout(r, 100))
  }
  expect(text).toContain(done)
  const lines = (t: string): Array<string> => {
    const all = t.split('\n').map((l) => l.replace(/\s+$/, ''))
    return all.slice(
      0,
      all.findIndex((l) => l.includes(done)),
    )
  }
  const drawn = lines(tmux('capture-pane', '-p', '-S', '-', '-t', name))
  const joined = lines(tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name))
  tmux('kill-session', '-t', name)
  return { drawn, joined }
}

describe.skipIf(!hasTmux || !existsSync(binPath))('at 80 columns in tmux, nothing wraps', () => {
  it.each([
    ['stats', ['stats'], 'cost ~$2.54 estimated (17 runs)'],
    ['session', ['stats', '--by', 'session', '--breakdown'], '│ happy-cli/task_sdk   │ 2025-08-11 │'],
    ['brief', ['replay', '--brief'], 'c736db82a7c5 #1'],
  ] as const)('%s', async (name, args, shows) => {
    const { drawn, joined } = await runInPane(name, args)
    expect(drawn.join('\n')).toContain(shows)
    // a wrapped line shows as two drawn lines that -J joins into one
    expect(drawn).toStrictEqual(joined)
    expect(Math.max(...drawn.map(textWidth))).toBeLessThanOrEqual(80)
    expect(drawn.length).toBeGreaterThan(5)
  })
})
