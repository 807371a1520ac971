/**
 * No terminal injection (issue 14): every string field of every corpus log, and the log's file name, gets
 * escape sequences appended (OSC 52 clipboard, OSC 8 link, OSC 0 title, CSI, a C1 CSI, bidi overrides, a newline
 * and a carriage return); then every output path prints them — `replay` (summary, `--brief`, `--json`), `events`,
 * `watch` (summary with its status line, `--json`), `stats` (table, `--by model`, `--json`) and every stderr
 * message (skipped files, notes, protocol errors). Nothing a terminal would act on may come out: no C0 control
 * other than the newline ending a line of our own, no DEL, no C1 control, no bidi control, no line separator —
 * in JSON they are `\u` escapes, in text visible escapes (`\x1b`).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { runCli } from '../support/cli.js'
import { figure } from './support/runs.js'

const PAYLOAD =
  '\u001b]52;c;aGVsbG8=\u0007\u001b]8;;https://evil.example/\u0007link\u001b]8;;\u0007\u001b]0;title\u0007\u001b[2J\u009b31m\u202eevil\u2066\u2028\r\n'
// the only controls the CLI writes itself: newlines ending its lines, and the watch status line's erase
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls a terminal acts on are what this test looks for
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
// JSON output keeps the values: what a terminal acts on (C0, DEL, C1, line separators) must be `\u` escapes.
// (Bidi controls stay as JSON writes them: they reorder how a line looks, not what the terminal does.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, for JSON output
const UNSAFE_JSON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own erase sequence
const OWN = /\r\u001b\[K/g
const STRUCTURAL = new Set([
  'type',
  'subtype',
  'role',
  'method',
  'jsonrpc',
  'kind',
  'sessionUpdate',
  'status',
  'stop_reason',
  'stopReason',
  'terminal_reason',
  'finish_reason',
  'reason',
])

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname
const corpus = (): Array<string> => {
  const out: Array<string> = []
  for (const d of readdirSync(FIXTURES)) {
    if (d === 'hostile' || d === 'homes' || d === 'vocabularies') continue
    const dir = join(FIXTURES, d)
    if (!statSync(dir).isDirectory()) continue
    for (const f of readdirSync(dir)) if (/\.(jsonl|json|txt|ndjson|log)$/.test(f) && !f.startsWith('expected')) out.push(join(dir, f))
  }
  return out.sort()
}

/** `v` with the payload appended to every string (all of them, or all but the structural ones). */
const poison = (v: unknown, all: boolean, key?: string): unknown => {
  if (typeof v === 'string') return all || key === undefined || !STRUCTURAL.has(key) ? v + PAYLOAD : v
  if (Array.isArray(v)) return v.map((x) => poison(x, all))
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, poison(x, all, k)]))
  return v
}

/** The poisoned text of a log: line by line (a line that is not JSON stays as it is), or as one document. */
const poisonLog = (text: string, all: boolean): string => {
  try {
    return JSON.stringify(poison(JSON.parse(text), all), null, 1)
  } catch {
    return text
      .split('\n')
      .map((l) => {
        try {
          return JSON.stringify(poison(JSON.parse(l), all))
        } catch {
          return l
        }
      })
      .join('\n')
  }
}

interface Problem {
  readonly where: string
  readonly at: number
  readonly char: string
}

const problems: Array<Problem> = []
let checked = 0
/** Outputs where the payload is shown, as visible escapes (text) or `\u` escapes (JSON): it was not dropped. */
let shown = 0
const check = (where: string, s: string, json = false): void => {
  checked++
  const t = s.replace(OWN, '')
  if (t.includes('\\x1b]52;c;aGVsbG8=') || t.includes('\\u001b]52;c;aGVsbG8=')) shown++
  const m = (json ? UNSAFE_JSON : UNSAFE).exec(t)
  if (m !== null) problems.push({ where, at: m.index, char: `U+${(m[0].codePointAt(0) as number).toString(16).padStart(4, '0')}` })
  // a line break in a file name never starts a line of its own
  if (/(^|\n)INJECTED/.test(t)) problems.push({ where, at: t.search(/(^|\n)INJECTED/), char: 'a newline from a file name' })
}

/** The problems by output path (command and stream) and character, with a count and one example log. */
const summary = (): Array<string> => {
  const by = new Map<string, { n: number; example: string }>()
  for (const p of problems) {
    const path = p.where.replace(/\/tmp\/[^:]*/, 'LOG')
    const k = `${path} ${p.char}`
    const e = by.get(k)
    if (e === undefined) by.set(k, { n: 1, example: p.where.slice(0, 160) })
    else e.n++
  }
  return [...by].map(([k, v]) => `${k} ×${v.n}`)
}

/** `watch` in-process on `input`, its stderr a terminal (so the status line is drawn). */
const watchIt = async (argv: ReadonlyArray<string>, input: string): Promise<{ stdout: string; stderr: string }> => {
  let stdout = ''
  let stderr = ''
  const stdin = (async function* () {
    yield Buffer.from(input)
    // a pause: the status line is drawn on the open run
    await new Promise((r) => setTimeout(r, 250))
  })()
  await main([...argv], {
    stdin,
    stdout: {
      write: (s: string) => {
        stdout += s
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s
      },
      isTTY: true,
      columns: 400,
    },
    env: { NO_COLOR: '1' },
  })
  return { stdout, stderr }
}

describe('escape sequences in every string field and file name', () => {
  const logs = corpus()
  const dir = mkdtempSync(join(tmpdir(), 'run-outcome-inject-'))
  const names: Array<string> = []
  for (const [i, f] of logs.entries()) {
    for (const all of [true, false]) {
      const ext = f.endsWith('.json') ? '.json' : '.jsonl'
      const name = join(dir, `evil\u001b]0;pwned\u0007\u009b2J\u202e\nINJECTED-${i}-${all ? 'all' : 'values'}${ext}`)
      writeFileSync(name, poisonLog(readFileSync(f, 'utf8'), all))
      names.push(name)
    }
  }
  const of = (family: string): Array<string> => summary().filter((x) => x.startsWith(family))

  beforeAll(async () => {
    for (const name of names) {
      for (const argv of [
        ['replay', name],
        ['replay', '--brief', name],
        ['replay', '--json', name],
        ['events', name],
      ]) {
        const r = await runCli(argv)
        const json = argv.includes('--json') || argv[0] === 'events'
        check(`${argv.slice(0, -1).join(' ')} ${name}: stdout`, r.stdout, json)
        check(`${argv.slice(0, -1).join(' ')} ${name}: stderr`, r.stderr)
      }
      const text = readFileSync(name, 'utf8')
      for (const argv of [['watch'], ['watch', '--json']]) {
        const r = await runCli(argv, text)
        check(`${argv.join(' ')} < ${name}: stdout`, r.stdout, argv.includes('--json'))
        check(`${argv.join(' ')} < ${name}: stderr`, r.stderr)
      }
    }
    // the status line (a terminal on stderr, the input paused on an open run), for one log of each format
    const seen = new Set<string>()
    for (const name of names) {
      const dirName = logs[Number(/INJECTED-(\d+)-/.exec(name)?.[1])]?.split('/').at(-2) ?? ''
      if (seen.has(dirName) || !name.endsWith('values.jsonl')) continue
      seen.add(dirName)
      const r = await watchIt(['watch'], readFileSync(name, 'utf8'))
      check(`watch (status line) < ${name}: stdout`, r.stdout)
      check(`watch (status line) < ${name}: stderr`, r.stderr)
    }
    for (const argv of [
      ['replay', dir],
      ['replay', '--brief', dir],
      ['replay', '--json', dir],
      ['events', dir],
      ['stats', '--jobs', '1', dir],
      ['stats', '--jobs', '1', '--by', 'model', '--breakdown', dir],
      ['stats', '--jobs', '1', '--by', 'session', dir],
      ['stats', '--jobs', '1', '--json', dir],
    ]) {
      const r = await runCli(argv)
      check(`${argv.slice(0, -1).join(' ')} DIR: stdout`, r.stdout, argv.includes('--json') || argv[0] === 'events')
      check(`${argv.slice(0, -1).join(' ')} DIR: stderr`, r.stderr)
    }
    figure(
      `injection: ${names.length} poisoned logs (${logs.length} corpus logs × 2), ${checked} outputs checked (${shown} show the payload escaped), ${problems.length} with a control character`,
    )
  }, 120_000)

  it(`replay (summary, --brief, --json; files and a folder) and watch (summary, status line, --json): nothing a terminal acts on`, () => {
    expect(checked).toBeGreaterThan(4 * names.length)
    // what was in the logs is shown, escaped, not dropped
    expect(shown).toBeGreaterThan(names.length)
    expect([...of('replay'), ...of('watch')]).toStrictEqual([])
  })

  it('events: nothing a terminal acts on', () => {
    expect(of('events')).toStrictEqual([])
  })

  it('stats (table, --by model, --by session, --json): nothing a terminal acts on', () => {
    expect(of('stats')).toStrictEqual([])
  })

  it('arguments echoed in usage errors are escaped too (every command)', async () => {
    const bad = `x${PAYLOAD}`
    const cases: Array<Array<string>> = [
      ['replay', '--format', bad, 'f'],
      ['replay', '--accept', bad, 'f'],
      ['replay', `--${bad}`],
      ['events', '--format', bad, 'f'],
      ['watch', '--format', bad, 'f'],
      ['watch', `--${bad}`],
      ['stats', '--by', bad, 'f'],
      ['stats', '--order', bad, 'f'],
      ['stats', `--${bad}`],
      ['consume', '--format', bad],
      ['consume', `--${bad}`],
      ['help', bad],
      [bad],
    ]
    const seen: Array<string> = []
    for (const argv of cases) {
      const r = await runCli(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      const t = r.stdout + r.stderr
      if (UNSAFE.test(t)) seen.push(`${argv[0]}: ${JSON.stringify(t.slice(0, 120))}`)
      // the argument is shown, escaped
      expect(t.includes('\\x1b]52;c;aGVsbG8=') || t.includes('x\\x1b'), JSON.stringify(t.slice(0, 200))).toBe(true)
    }
    expect(seen).toStrictEqual([])
  })
})
