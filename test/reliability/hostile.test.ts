/**
 * The hostile input corpus (test/fixtures/hostile/ plus large inputs built at test time): each gives a clear
 * error or diagnostic, the exit code of SPEC §1, no uncaught exception or stack trace, and bounded memory.
 * Everything runs through the CLI's entry function `main(argv, io)`; the corpus also as real processes.
 */
import * as E from 'fp-ts/lib/Either.js'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import { foldEvents, NativeFolder } from '../../src/core/fold.js'
import { decodeFoldState, encodeFoldState } from '../../src/core/FoldStateCodec.js'
import { LineSplitter } from '../../src/io/lines.js'
import { expectSame } from './support/equal.js'
import { generated, MB, type GeneratedName } from './support/hostile.js'
import { prototypeFingerprint, prototypesClean } from './support/ids.js'
import { distIsFresh, judge, MAXRSS_PRELOAD, runBinSettled, runMain, takeMaxRss, type CliOutcome } from './support/cliCheck.js'
import { figure } from './support/runs.js'

const DIR = join(import.meta.dirname, '../fixtures/hostile')
const fixture = (name: string): Buffer => readFileSync(join(DIR, name))
const fingerprint = prototypeFingerprint()

/** Runs `replay --json --format F -` in-process; checks the common verdict; returns runs and the outcome. */
const replay = async (input: Buffer, format: string, extra: ReadonlyArray<string> = []) => {
  const argv = ['replay', '--json', '--format', format, ...extra, '-']
  const o = await runMain(argv, input)
  const v = judge(o, argv, true)
  expect(v.problems).toStrictEqual([])
  expect(prototypesClean(fingerprint)).toBe(true)
  return { ...o, runs: v.runs, error: protocolErrorOf(o) }
}

const protocolErrorOf = (o: CliOutcome): Record<string, unknown> | undefined => {
  if (o.code !== 3) return undefined
  return JSON.parse(o.stderr.trim().split('\n').at(-1) as string) as Record<string, unknown>
}

const unfinishedEmpty = { kind: 'unfinished' }

describe('hostile corpus (test/fixtures/hostile), through main(argv, io)', () => {
  it.each(['empty.jsonl', 'bom-only.jsonl', 'blank.jsonl'])('%s: one unfinished run, exit 1, in auto and native', async (name) => {
    for (const format of ['auto', 'native']) {
      const r = await replay(fixture(name), format)
      expect([r.code, r.runs.length, r.runs[0]?.['ending'], r.runs[0]?.['format'], r.runs[0]?.['turns']]).toStrictEqual([1, 1, unfinishedEmpty, 'native', 0])
    }
  })

  it('a BOM and CRLF line endings change nothing: the same answered run as plain LF', async () => {
    const plain = fixture('crlf-native.jsonl').toString('utf8').replaceAll('\r\n', '\n')
    const want = await replay(Buffer.from(plain), 'native')
    expect([want.code, want.runs[0]?.['ending'], want.runs[0]?.['response'], want.runs[0]?.['source'], want.runs[0]?.['diagnostics']]).toStrictEqual([
      0,
      { kind: 'answered' },
      'fine',
      { file: null, firstLine: 1, lastLine: 4 },
      [],
    ])
    for (const name of ['bom-native.jsonl', 'crlf-native.jsonl'])
      for (const format of ['auto', 'native']) {
        const r = await replay(fixture(name), format)
        expect(r.code).toBe(0)
        expectSame(r.runs, want.runs, `${name} (${format})`)
      }
  })

  it('a truncated last line is a diagnostic; the run is unfinished, never answered (native and Codex)', async () => {
    for (const format of ['auto', 'native']) {
      const r = await replay(fixture('truncated-native.jsonl'), format)
      expect([r.code, r.runs.length, r.runs[0]?.['ending'], r.runs[0]?.['response'], r.runs[0]?.['diagnostics']]).toStrictEqual([
        1,
        1,
        { kind: 'unfinished', lastEventType: 'assistant/message' },
        null,
        [{ line: 3, message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' }],
      ])
    }
    const c = await replay(fixture('truncated-codex.jsonl'), 'auto')
    expect([c.code, c.runs.length, c.runs[0]?.['format'], (c.runs[0]?.['ending'] as { kind: string }).kind, c.runs[0]?.['response']]).toStrictEqual([
      1,
      1,
      'codex',
      'unfinished',
      null,
    ])
    expect((c.runs[0]?.['diagnostics'] as Array<{ line: number }>).map((d) => d.line)).toContain(4)
  })

  it('token counts out of range (1e999, 1e308 twice, negative, "NaN", a negative cost) are skipped with a diagnostic each; sums stay finite', async () => {
    const r = await replay(fixture('numbers-usage.jsonl'), 'native')
    const run = r.runs[0] as Record<string, unknown>
    expect([r.code, run['ending'], run['response'], run['usage'], run['cost']]).toStrictEqual([
      0,
      { kind: 'answered' },
      'ok',
      {
        inputTokens: 10,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 2,
        reasoningTokens: 0,
        byModel: { unknown: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 2, reasoningTokens: 0, costUsd: 0.25 } },
      },
      { totalUsd: 0.25, complete: true, missing: 0 },
    ])
    expect((run['diagnostics'] as Array<{ line: number; message: string }>).map((d) => [d.line, d.message])).toStrictEqual([
      [2, 'skipped a "assistant/message" event whose data at usage.inputTokens is not TokenCount'],
      [3, 'skipped a "assistant/message" event whose data at usage.inputTokens is not TokenCount'],
      [4, 'skipped a "assistant/message" event whose data at usage.inputTokens is not TokenCount'],
      [5, 'skipped a "assistant/message" event whose data at usage.inputTokens is not TokenCount'],
      [6, 'skipped a "assistant/message" event whose data at usage.inputTokens is not TokenCount'],
      [7, 'skipped a "assistant/message" event whose data at costUsd is not NonNegative'],
    ])
  })

  it('seq and time out of range, and turn 1e999, are envelope or data diagnostics; the event is skipped', async () => {
    const r = await replay(fixture('numbers-envelope.jsonl'), 'native')
    const run = r.runs[0] as Record<string, unknown>
    expect([r.code, run['ending'], run['turns'], run['startedAt'], run['durationMs']]).toStrictEqual([0, { kind: 'answered' }, 1, null, null])
    expect((run['diagnostics'] as Array<{ line: number; message: string }>).map((d) => [d.line, d.message])).toStrictEqual([
      [1, 'skipped a "turn/start" event: seq should be a non-negative integer'],
      [2, 'skipped a "turn/start" event: seq should be a non-negative integer'],
      [3, 'skipped a "turn/start" event: seq should be a non-negative integer'],
      [4, 'skipped a "turn/start" event: time should be epoch milliseconds or an ISO-8601 string'],
      [6, 'skipped a "turn/start" event whose data at turn is not number'],
    ])
    const t = await replay(fixture('numbers-turn.jsonl'), 'native')
    const tr = t.runs[0] as Record<string, unknown>
    expect([t.code, tr['ending'], tr['finishReason'], (tr['diagnostics'] as Array<{ line: number }>).map((d) => d.line)]).toStrictEqual([
      0,
      { kind: 'answered' },
      'completed',
      [2],
    ])
  })

  it('a limit of 1e999 in a turn/end reason is a protocol error at reason.limit (exit 3), not a limit printed as null', async () => {
    for (const format of ['auto', 'native']) {
      const r = await replay(fixture('numbers-limit.jsonl'), format)
      expect([r.code, r.stdout, r.error?.['kind'], r.error?.['line'], r.error?.['index'], r.error?.['path']]).toStrictEqual([
        3,
        '',
        'turn-end',
        2,
        1,
        'reason.limit',
      ])
    }
  })

  it('invalid UTF-8 inside strings decodes to U+FFFD; raw invalid bytes on a line of their own are a native protocol error', async () => {
    const r = await replay(fixture('invalid-utf8.jsonl'), 'auto')
    expect([r.code, r.runs[0]?.['ending'], r.runs[0]?.['response']]).toStrictEqual([0, { kind: 'answered' }, 'ok \ufffd'])
    for (const format of ['auto', 'native']) {
      const raw = await replay(fixture('invalid-utf8-raw.jsonl'), format)
      expect([raw.code, raw.stdout, raw.error?.['kind'], raw.error?.['line'], raw.error?.['index']]).toStrictEqual([3, '', 'json', 3, 2])
    }
  })

  it('a binary file: auto cannot detect a format (exit 2); native rejects line 1 (exit 3)', async () => {
    const auto = await replay(fixture('binary.bin'), 'auto')
    expect([auto.code, auto.stdout]).toStrictEqual([2, ''])
    expect(auto.stderr).toContain('could not detect the format')
    const native = await replay(fixture('binary.bin'), 'native')
    expect([native.code, native.error?.['kind'], native.error?.['line']]).toStrictEqual([3, 'json', 1])
  })

  it('a JSON array where lines were expected: a clear error, never a run', async () => {
    const pretty = await replay(fixture('array.json'), 'native')
    expect([pretty.code, pretty.stdout, pretty.error?.['kind'], pretty.error?.['line']]).toStrictEqual([3, '', 'json', 1])
    const oneLine = await replay(fixture('array-one-line.jsonl'), 'native')
    expect([oneLine.code, oneLine.stdout, oneLine.error?.['kind'], oneLine.error?.['path'], oneLine.error?.['expected']]).toStrictEqual([
      3,
      '',
      'event',
      '',
      'an event object',
    ])
    const auto = await replay(fixture('array-one-line.jsonl'), 'auto')
    expect([auto.code, auto.stdout]).toStrictEqual([2, ''])
    expect(auto.stderr).toContain('could not detect the format')
  })

  it('duplicated and out-of-order seq follow SPEC §4: a repeat is dropped, a late one applied, both noted', async () => {
    const r = await replay(fixture('seq.jsonl'), 'native')
    const run = r.runs[0] as Record<string, unknown>
    expect([r.code, run['ending'], run['response'], (run['usage'] as { inputTokens: number }).inputTokens]).toStrictEqual([0, { kind: 'answered' }, 'c', 130])
    expect(run['diagnostics']).toStrictEqual([
      { line: 3, message: 'dropped a repeated delivery (seq 2 was already applied in this session)' },
      { line: 5, message: 'applied an event whose seq 4 is lower than an earlier one in this session' },
      { line: 8, message: 'dropped a repeated delivery (seq 6 was already applied in this session)' },
    ])
    // the 1,024 window: seq 0 again after 1,100 later ones is applied (late); seq 1,099 again is dropped
    const w = await replay(generated['seq-window'](), 'native')
    const wr = w.runs[0] as Record<string, unknown>
    expect([wr['response'], (wr['usage'] as { inputTokens: number }).inputTokens, wr['diagnostics']]).toStrictEqual([
      'again 0',
      1101,
      [
        { line: 1102, message: 'applied an event whose seq 0 is lower than an earlier one in this session' },
        { line: 1103, message: 'dropped a repeated delivery (seq 1099 was already applied in this session)' },
      ],
    ])
  })

  it('__proto__ / constructor keys and ids are ordinary: nothing leaks onto Object.prototype', async () => {
    const r = await replay(fixture('proto-keys.jsonl'), 'auto')
    const run = r.runs[0] as Record<string, unknown>
    const usage = run['usage'] as { inputTokens: number; byModel: Record<string, { inputTokens: number; costUsd: number }> }
    expect([r.code, run['sessionId'], run['ending'], usage.inputTokens, Object.keys(usage.byModel), Object.hasOwn(usage.byModel, 'constructor')]).toStrictEqual(
      [0, '__proto__', { kind: 'answered' }, 1, ['constructor'], true],
    )
    expect([usage.byModel['constructor']?.inputTokens, usage.byModel['constructor']?.costUsd]).toStrictEqual([1, 0.5])
    expect(run['children']).toStrictEqual([
      { sessionId: 'toString', ending: { kind: 'failed', reason: 'unrecognized', raw: '__proto__' }, finishReason: '__proto__' },
    ])
  })

  it('the corpus directory as one input: every file read or skipped, the highest code wins, no stack trace', async () => {
    const argv = ['replay', '--json', DIR]
    const o = await runMain(argv, Buffer.alloc(0))
    const v = judge(o, argv, false)
    expect(v.problems.filter((p) => !p.startsWith('exit'))).toStrictEqual([])
    expect(o.code).toBe(3)
    expect(v.runs.length).toBeGreaterThan(10)
  })
})

describe('100,000-level nesting (built at test time)', () => {
  const run = async (name: GeneratedName, format: string) => replay(generated[name](), format)

  it('as a whole line: not an event (native exit 3 at path "" or "type"); auto cannot detect it (exit 2)', async () => {
    const a = await run('deep-array-line', 'native')
    expect([a.code, a.error?.['kind'], a.error?.['path'], a.error?.['line']]).toStrictEqual([3, 'event', '', 1])
    const o = await run('deep-object-line', 'native')
    expect([o.code, o.error?.['kind'], o.error?.['path'], o.error?.['line']]).toStrictEqual([3, 'event', 'type', 1])
    for (const name of ['deep-array-line', 'deep-object-line'] as const) {
      const auto = await run(name, 'auto')
      expect([auto.code, auto.stdout]).toStrictEqual([2, ''])
    }
  })

  it('as pending tool arguments: the suspended ending is printed whole, the arguments cut to null at 512 levels', async () => {
    for (const format of ['auto', 'native']) {
      const r = await run('deep-arguments', format)
      const ending = r.runs[0]?.['ending'] as { kind: string; pending: Array<Record<string, unknown>> }
      expect([r.code, ending.kind, ending.pending.length, ending.pending[0]?.['id'], ending.pending[0]?.['toolName']]).toStrictEqual([
        1,
        'suspended',
        1,
        'p1',
        'Bash',
      ])
      let depth = 0
      let v: unknown = ending.pending[0]?.['arguments']
      while (Array.isArray(v)) {
        depth++
        v = v[0]
      }
      // 512 levels from the top of the result: result → ending → pending → [0] → arguments is 4 of them
      expect([depth, v]).toStrictEqual([508, null])
    }
  })

  it('as a reason kind: a protocol error at reason.kind; the message holds no input value', async () => {
    const r = await run('deep-kind', 'native')
    expect([r.code, r.error?.['kind'], r.error?.['path'], r.error?.['expected']]).toStrictEqual([3, 'turn-end', 'reason.kind', 'string'])
    expect(r.stderr.length).toBeLessThan(1000)
  })

  it('as a message body: ignored content; the run is answered', async () => {
    const r = await run('deep-message', 'auto')
    expect([r.code, r.runs[0]?.['ending'], r.runs[0]?.['response']]).toStrictEqual([0, { kind: 'answered' }, 'ok'])
  })

  it('in vendor formats (Codex text, Claude Code structured_output): no crash, a lenient reading', async () => {
    const c = await run('deep-codex', 'auto')
    expect([c.code, c.runs.length, c.runs[0]?.['format'], (c.runs[0]?.['ending'] as { kind: string }).kind]).toStrictEqual([0, 1, 'codex', 'answered'])
    const cc = await run('deep-claude', 'auto')
    expect([cc.code, cc.runs.length, cc.runs[0]?.['format'], cc.runs[0]?.['ending']]).toStrictEqual([0, 1, 'claude-code', { kind: 'answered' }])
  })

  it('the library: decode, fold and checkpoint a deep payload without throwing', () => {
    const lines = generated['deep-arguments']()
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown)
    const r = foldEvents(lines)
    expect(E.isRight(r) && r.right.ending.kind).toBe('suspended')
    const f = new NativeFolder()
    for (const l of lines) f.push(l)
    const back = decodeFoldState(encodeFoldState(f.state))
    expect(E.isRight(back) && back.right.run.ending?.kind).toBe('suspended')
    const bad = decodeEvent(JSON.parse(generated['deep-kind']().toString('utf8').trim().split('\n')[1] as string), 7)
    if (E.isRight(bad)) throw new Error('expected a protocol error')
    expect(JSON.stringify(bad.left.toJSON()).length).toBeLessThan(400)
  })
})

describe('50 MB single lines (built at test time)', () => {
  it('a 50 MB first line is read as a line, not mistaken for a JSON document (auto and native)', async () => {
    for (const format of ['auto', 'native']) {
      const r = await replay(generated['line-50mb-native'](), format)
      expect([r.code, r.runs.length, r.runs[0]?.['ending'], (r.runs[0]?.['response'] as string).length]).toStrictEqual([0, 1, { kind: 'answered' }, 50 * MB])
    }
  })

  it('a 50 MB line that is not JSON: a protocol error naming line 2, nothing echoed', async () => {
    for (const format of ['auto', 'native']) {
      const r = await replay(generated['line-50mb-garbage'](), format)
      expect([r.code, r.stdout, r.error?.['kind'], r.error?.['line'], r.error?.['index']]).toStrictEqual([3, '', 'json', 2, 1])
      expect(r.stderr.length).toBeLessThan(1000)
    }
  })

  it('a 50 MB answer in Codex exec --json', async () => {
    const r = await replay(generated['line-50mb-codex'](), 'auto')
    expect([r.code, r.runs[0]?.['format'], r.runs[0]?.['ending'], (r.runs[0]?.['response'] as string).length]).toStrictEqual([
      0,
      'codex',
      { kind: 'answered' },
      50 * MB,
    ])
  })

  it('the line splitter drops a line over its cap without keeping it, and reads on', () => {
    const seen: Array<[number, number]> = []
    const over: Array<[number, number]> = []
    const s = new LineSplitter(
      (text, n) => seen.push([n, text.length]),
      (n, bytes) => over.push([n, bytes]),
      1 * MB,
    )
    const big = Buffer.alloc(50 * MB, 0x61)
    s.push(Buffer.from('{"a":1}\n'))
    for (let i = 0; i < big.length; i += 256 * 1024) s.push(big.subarray(i, i + 256 * 1024))
    s.push(Buffer.from('\n{"b":2}\n'))
    s.end()
    expect([seen, over]).toStrictEqual([
      [
        [1, 7],
        [3, 7],
      ],
      [[2, 50 * MB]],
    ])
  })

  it('as real processes: bounded memory (peak RSS) with a 512 MB heap cap, same exit codes', async () => {
    const figures: Array<string> = []
    for (const [name, format, code] of [
      ['line-50mb-native', 'native', 0],
      ['line-50mb-native', 'auto', 0],
      ['line-50mb-garbage', 'native', 3],
      ['line-50mb-codex', 'auto', 0],
    ] as const) {
      const argv = ['replay', '--format', format, '-']
      const o = await runBinSettled(argv, generated[name](), ['--max-old-space-size=512', ...MAXRSS_PRELOAD])
      const { mib, stderr } = takeMaxRss(o.stderr)
      expect(judge({ ...o, stderr }, argv, true).problems).toStrictEqual([])
      expect([o.code, o.signal]).toStrictEqual([code, null])
      expect(mib).toBeLessThan(900)
      figures.push(`${name} (${format}) ${Math.round(mib)} MiB`)
    }
    figure(`hostile 50 MB lines, peak RSS of the CLI process: ${figures.join('; ')}`)
  })
})

describe('the corpus as real processes (dist/cli/bin.js)', () => {
  it('every hostile fixture and generated deep input: same exit code as in-process, no stack trace', async () => {
    const inputs: Array<[string, () => Buffer]> = [
      ...readdirSync(DIR)
        .filter((f) => !f.endsWith('.md'))
        .map((f): [string, () => Buffer] => [f, () => fixture(f)]),
      ...(['deep-array-line', 'deep-object-line', 'deep-arguments', 'deep-kind', 'deep-codex', 'deep-claude'] as const).map((n): [string, () => Buffer] => [
        n,
        generated[n],
      ]),
    ]
    let n = 0
    const fresh = distIsFresh()
    for (const [name, make] of inputs)
      for (const format of ['auto', 'native']) {
        const argv = ['replay', '--json', '--format', format, '-']
        const input = make()
        const [a, b] = await Promise.all([runBinSettled(argv, input), runMain(argv, input)])
        const v = judge(a, argv, true)
        // a dist/ older than src/ (a local tree edited since the last build; never in CI) may answer differently
        expect({ name, format, problems: v.problems, code: a.code }).toStrictEqual({ name, format, problems: [], code: fresh ? b.code : a.code })
        n++
      }
    figure(`hostile corpus: ${inputs.length} inputs × 2 formats = ${n} spawned CLI runs`)
  })
})
