/**
 * The run operators take any format's records (SPEC §6): for every line-based fixture, its parsed records piped
 * through `runResults({ format })` — objects, as a live SDK stream yields them, with non-JSON lines as strings —
 * give the runs `replayFile` gives, but for what only a file has (`source`, the lines of diagnostics). The same
 * through `toSessionEvents(format)` then the native `runResults()`, and through the RxJS-free `runsFrom`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { from, lastValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import type { RunResult } from '../../src/core/RunResult.js'
import { runsFrom } from '../../src/formats/records.js'
import { replayFile } from '../../src/node/replay.js'
import { reduceRun, runResults, toSessionEvents } from '../../src/operators/index.js'

const fixtures = new URL('../fixtures/', import.meta.url).pathname
const FORMAT_OF: Readonly<Record<string, string>> = {
  'claude-code-stream-json': 'claude-code',
  'claude-code-transcript': 'claude-code',
  'codex-exec-json': 'codex',
  'codex-rollout': 'codex',
  'gemini-stream-json': 'gemini',
  'ai-sdk-provider-chunks': 'ai-sdk',
  'ai-sdk-fullstream': 'ai-sdk',
  'openai-agents-stream': 'openai-agents',
  acp: 'acp',
}

/** The line-based fixtures: every non-empty line is a record (documents spread over lines are left out). */
const cases: Array<[string, string]> = []
for (const dir of Object.keys(FORMAT_OF)) {
  for (const name of readdirSync(join(fixtures, dir)).sort()) {
    const path = join(fixtures, dir, name)
    if (!statSync(path).isFile() || /\.(md|json)$/.test(name)) continue
    cases.push([`${dir}/${name}`, FORMAT_OF[dir] as string])
  }
}

const recordsOf = (path: string): Array<unknown> =>
  readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as unknown
      } catch {
        return l
      }
    })

/** A result without what only a file gives it: its source, and its diagnostics' lines. */
const comparable = (r: RunResult): unknown => ({
  ...r,
  source: null,
  diagnostics: r.diagnostics.map((d) => d.message),
})

describe('runResults({ format }) over parsed records ≡ replayFile', () => {
  it.each(cases)('%s (%s)', async (file, format) => {
    const path = join(fixtures, file)
    const want = (await replayFile(path, { format })).map(comparable)
    const records = recordsOf(path)
    const live = await lastValueFrom(from(records).pipe(runResults({ format }), toArray()))
    expect(live.map(comparable)).toStrictEqual(want)
    const viaEvents = await lastValueFrom(from(records).pipe(toSessionEvents(format), runResults(), toArray()))
    expect(viaEvents.map((r) => comparable({ ...r, format }))).toStrictEqual(want)
    const plain: Array<RunResult> = []
    for await (const r of runsFrom(records, { format })) plain.push(r)
    expect(plain.map(comparable)).toStrictEqual(want)
    const last = await lastValueFrom(from(records).pipe(reduceRun({ format })))
    expect(comparable(last)).toStrictEqual(want.at(-1))
  })

  it('auto detects the format from the first records', async () => {
    const path = join(fixtures, 'claude-code-stream-json/claude.jsonl')
    const want = (await replayFile(path)).map(comparable)
    const got = await lastValueFrom(from(recordsOf(path)).pipe(runResults({ format: 'auto' }), toArray()))
    expect(got.map(comparable)).toStrictEqual(want)
  })
})
