/**
 * Blank lines an input starts with are dropped as they arrive and counted (src/io/blankLead.ts), so the sniffer
 * never holds them: a blank input of any size is one unfinished run (SPEC §1), not "format not detected" once it
 * passes the 64 MiB head cap, and a log after many blank lines is read with its lines numbered as in the file.
 */
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BlankLead } from '../../src/io/blankLead.js'
import { LineSplitter } from '../../src/io/lines.js'
import { EMPTY_INPUT_NOTE, replayStream } from '../../src/node/replay.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { chunksOf } from '../reliability/support/jsonl.js'

type Line = { text: string; lineNo: number; unterminated: boolean }

const splitPlain = (chunks: ReadonlyArray<Buffer>): Array<Line> => {
  const out: Array<Line> = []
  const s = new LineSplitter((text, lineNo, unterminated) => out.push({ text, lineNo, unterminated }))
  for (const c of chunks) s.push(c)
  s.end()
  return out
}

/** As replay's head does: each chunk through the lead, the splitter told how many lines were dropped first. */
const splitLed = (chunks: ReadonlyArray<Buffer>, maxCarry: number): Array<Line> => {
  const out: Array<Line> = []
  const s = new LineSplitter((text, lineNo, unterminated) => out.push({ text, lineNo, unterminated }))
  const lead = new BlankLead(maxCarry)
  let fed = false
  const feed = (b: Buffer): void => {
    if (!fed) s.skipLines(lead.lines)
    fed = true
    s.push(b)
  }
  for (const c of chunks) {
    const b = lead.take(c)
    if (b !== undefined) feed(b)
  }
  const held = lead.end()
  if (held !== undefined) feed(held)
  s.end()
  return out
}

/** `bytes` cut at the points (taken modulo its length + 1), as the reliability suite cuts its documents. */
const cut = (bytes: Buffer, at: ReadonlyArray<number>): Array<Buffer> =>
  chunksOf(
    bytes,
    at.map((p) => p % (bytes.length + 1)),
  )

describe('BlankLead', () => {
  it('gives the splitter the same lines, numbers and last-line flag as reading every byte, however the input is cut', () => {
    const blank = fc.constantFrom('', ' ', '\t', '\r', '\v', '\f', '  ', ' \r')
    const content = fc.constantFrom('{"a":1}', '[1]', 'x', ' {"b":"é"}', 'data: {"c":2}', '\uFEFF{}', '\t\tz')
    const input = fc
      .tuple(
        fc.boolean(),
        fc.array(fc.tuple(blank, fc.constantFrom('\n', '\r\n')), { maxLength: 12 }),
        fc.array(fc.oneof(blank, content), { maxLength: 6 }),
        fc.boolean(),
      )
      .map(([bom, lead, rest, final]) => {
        const text = `${bom ? '\uFEFF' : ''}${lead.map(([b, nl]) => b + nl).join('')}${rest.join('\n')}${final ? '\n' : ''}`
        return Buffer.from(text, 'utf8')
      })
    fc.assert(
      fc.property(input, fc.array(fc.nat(), { maxLength: 6 }), (bytes, at) => {
        const chunks = cut(bytes, at)
        expect(splitLed(chunks, 1 << 30)).toStrictEqual(splitPlain(chunks))
      }),
      { numRuns: 3000 },
    )
  })

  it('past maxCarry blank bytes in one line, only the blank start of the first line that holds anything differs', () => {
    const blank = fc.constantFrom(' ', '\t', '\r', '  ', '   \t')
    const input = fc
      .tuple(fc.array(fc.oneof(blank, fc.constant('\n')), { maxLength: 16 }), fc.constantFrom('{"a":1}', 'x y', '[2]'), fc.boolean())
      .map(([lead, content, final]) => Buffer.from(`${lead.join('')}${content}\nz${final ? '\n' : ''}`))
    const trimFirst = (lines: Array<Line>): Array<Line> => lines.map((l, i) => (i === 0 ? { ...l, text: l.text.replace(/^[ \t\r\v\f]+/, '') } : l))
    fc.assert(
      fc.property(input, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 0, max: 6 }), (bytes, at, maxCarry) => {
        const chunks = cut(bytes, at)
        expect(trimFirst(splitLed(chunks, maxCarry))).toStrictEqual(trimFirst(splitPlain(chunks)))
      }),
      { numRuns: 3000 },
    )
  })

  it('holds no more than the blank bytes after the last newline: 1 MiB of blank lines, then a record on line 524,289', () => {
    const lead = new BlankLead(1024)
    const blank = Buffer.from(' \n'.repeat(512 * 1024))
    expect(lead.take(blank)).toBeUndefined()
    expect(lead.take(Buffer.from('  '))).toBeUndefined()
    expect(lead.lines).toBe(512 * 1024)
    expect(lead.take(Buffer.from('\n\t{"a":1}\n'))?.toString()).toBe('\t{"a":1}\n')
    expect(lead.lines).toBe(512 * 1024 + 1)
    expect(lead.handedOn).toBe(true)
    expect(lead.take(Buffer.from('\n\n'))?.toString()).toBe('\n\n')
  })

  it('lets go of blank bytes past maxCarry in one line: a 65 MiB blank line is dropped, the next line keeps its number', () => {
    const lead = new BlankLead(4)
    expect(lead.take(Buffer.from('\n  '))).toBeUndefined()
    expect(lead.take(Buffer.from('   '))).toBeUndefined()
    expect(lead.take(Buffer.from(' \n\t{}'))?.toString()).toBe('\t{}')
    expect([lead.lines, lead.handedOn]).toStrictEqual([2, true])
  })
})

const replay = async (chunks: Iterable<Buffer>, file: string): Promise<{ runs: Array<RunResult>; notes: ReadonlyArray<string>; format: string }> => {
  const runs: Array<RunResult> = []
  const out = await replayStream(Readable.from(chunks), (r) => runs.push(r), { file })
  return { runs, notes: out.notes, format: out.format }
}

/** `count` copies of `unit`, in pieces of about 1 MiB (never one string). */
function* repeated(unit: string, count: number): Generator<Buffer> {
  const per = Math.floor(1048576 / unit.length)
  const full = Buffer.from(unit.repeat(per))
  for (let left = count; left > 0; left -= per) yield left >= per ? full : Buffer.from(unit.repeat(left))
}

describe('replay after a long blank start', () => {
  it('70 MiB of newlines (over the 64 MiB head cap) is blank: one unfinished run and the empty-input note', async () => {
    const { runs, notes, format } = await replay(repeated('\n', 70 * 1048576), 'blank.jsonl')
    expect(format).toBe('native')
    expect(notes).toStrictEqual([EMPTY_INPUT_NOTE])
    expect(runs.map((r) => [r.ending.kind, r.startedAt, r.turns])).toStrictEqual([['unfinished', null, 0]])
  })

  it('long blank lines (230 of 300,000 spaces, one of 65 MiB) before a log are dropped too; alone they are blank', async () => {
    const spaces = Buffer.alloc(300_000, 0x20)
    const long = [...Array.from({ length: 230 }, () => [spaces, Buffer.from('\n')]).flat(), ...repeated(' ', 65 * 1048576), Buffer.from('\n')]
    const log = `${JSON.stringify({ type: 'turn/start', sessionId: 's', data: {} })}\n${JSON.stringify({ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } })}\n`
    const withLog = await replay([...long, Buffer.from(log)], 'long.jsonl')
    expect(withLog.format).toBe('native')
    expect(withLog.notes).toStrictEqual([])
    expect(withLog.runs.map((r) => [r.ending.kind, r.turns])).toStrictEqual([['answered', 1]])
    const alone = await replay(long, 'long-blank.jsonl')
    expect(alone.notes).toStrictEqual([EMPTY_INPUT_NOTE])
    expect(alone.runs.map((r) => r.ending.kind)).toStrictEqual(['unfinished'])
  })

  it('a native log after 66 MiB of blank CRLF lines is read, its diagnostic on the line the file has it', async () => {
    const blankLines = 22 * 1048576 // ' \r\n' × 22 Mi = 66 MiB
    const log = [
      { type: 'turn/start', sessionId: 's', data: {} },
      { type: 'no/such', sessionId: 's', data: {} },
      { type: 'usage/add', sessionId: 's', data: { usage: { inputTokens: 7, outputTokens: 3 } } },
      { type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n')
    const chunks = [...repeated(' \r\n', blankLines), Buffer.from(`${log}\n`)]
    const { runs, format } = await replay(chunks, 'late.jsonl')
    expect(format).toBe('native')
    expect(runs).toHaveLength(1)
    const [run] = runs
    expect([run?.ending.kind, run?.usage.inputTokens, run?.usage.outputTokens]).toStrictEqual(['answered', 7, 3])
    expect(run?.diagnostics.map((d) => d.line)).toStrictEqual([blankLines + 2])
  })
})
