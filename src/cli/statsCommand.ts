/**
 * `run-outcome stats [PATH]… [--format F] [--json] [--by ending|format|model|day] [--prices FILE]`:
 * replay every log under the paths (in worker threads, one per core) and summarise how the runs ended and
 * what they cost.
 * @module
 */
import { readFile, stat } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import cliProgress from 'cli-progress'
import Table from 'cli-table3'
import * as E from 'fp-ts/lib/Either.js'
import { endingKinds, isEndingKind, type EndingKind } from '../core/RunEnding.js'
import { decodePriceTable, type PriceTable } from '../core/prices.js'
import { formats } from '../formats/index.js'
import { listLogFiles } from '../node/files.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { EXIT, type CliIO } from './io.js'
import { StatsAggregate, type GroupBy, type GroupTotals, type RunRef } from './stats/aggregate.js'
import { readFileRecords, type FileOutcome } from './stats/records.js'
import { colorEnabled, makeStyle, type Style } from './style.js'
import { durationText, num, oneLine } from './summary.js'

/** Help text of `stats`. @since 0.1.0 */
export const statsHelp = (): string => `Usage: run-outcome stats PATH... [options]

Replays every log under the paths (files or directories, .gz too) using every core, and
prints how the runs ended and what they cost: runs per ending, success rate, tokens and
cost totals (with how many runs had no cost), and the slowest and most expensive runs.

Options:
  --format F       auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  --by KEY         group the table by ending (default), format, model or day
  --prices FILE    JSON price table (USD per million tokens) to estimate missing costs:
                   { "gpt-5-codex": { "input": 1.25, "cachedInput": 0.125, "output": 10 },
                     "gemini-2.5-*": { "input": 0.3, "output": 2.5 } }
  --accept KIND    also count this ending kind as success (repeatable)
  --jobs N         worker threads (default: one per core)
  --json           print one JSON document instead of tables
  -h, --help       show this help

Exit status: 0 when the inputs could be read, 2 otherwise.

Examples:
  run-outcome stats ~/.claude/projects ~/.codex/sessions
  run-outcome stats --by model --prices prices.json ~/.codex/sessions
  run-outcome stats --json --by day ./logs > summary.json
`

const GROUPS: ReadonlyArray<GroupBy> = ['ending', 'format', 'model', 'day']

interface Job {
  readonly format: string
  readonly accept: ReadonlyArray<EndingKind>
  readonly prices?: PriceTable
}

/** Runs the files through worker threads (or in-process for small jobs / when running from sources). */
const runFiles = async (files: ReadonlyArray<string>, job: Job, jobs: number, onOutcome: (o: FileOutcome) => void): Promise<void> => {
  const workerUrl = new URL('./stats/worker.js', import.meta.url)
  const fromSources = import.meta.url.endsWith('.ts')
  if (fromSources || files.length < 4 || jobs <= 1) {
    for (const f of files) onOutcome(await readFileRecords(f, job.format, job.accept, job.prices))
    return
  }
  let next = 0
  const n = Math.min(jobs, files.length)
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve) => {
        const worker = new Worker(workerUrl, { workerData: job })
        let current: string | null = null
        const feed = (): void => {
          current = next < files.length ? (files[next++] as string) : null
          worker.postMessage(current)
          if (current === null) void worker.terminate().then(() => resolve())
        }
        worker.on('message', (o: FileOutcome) => {
          onOutcome(o)
          feed()
        })
        worker.on('error', () => {
          // a worker that dies takes only its current file with it
          if (current !== null) onOutcome({ file: current, ok: false, why: 'unreadable', message: 'the reader crashed' })
          resolve()
        })
        feed()
      }),
    ),
  )
}

const pct = (g: GroupTotals): string => (g.runs === 0 ? '—' : `${((g.successes / g.runs) * 100).toFixed(1)}%`)
// no run with a cost (also: no run at all) → unknown, never $0
const usd = (g: GroupTotals): string => (g.runsWithoutCost === g.runs ? '—' : `$${g.costUsd.toFixed(4)}${g.runsWithEstimatedCost > 0 ? '*' : ''}`)

const groupTable = (title: string, rows: ReadonlyArray<[string, GroupTotals]>, total: GroupTotals, style: Style, colorKey: boolean): string => {
  const table = new Table({
    head: [title, 'runs', 'success', 'input', 'cache read', 'cache write', 'output', 'cost', 'no cost'].map((h) => style.bold(h)),
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    style: { head: [], border: style.enabled ? ['gray'] : [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  })
  const row = (key: string, g: GroupTotals, k: EndingKind | undefined) => [
    k !== undefined && colorKey ? style.ending(k, `${style.mark(k)} ${key}`) : key,
    num(g.runs),
    pct(g),
    num(g.inputTokens),
    num(g.cacheReadTokens),
    num(g.cacheWriteTokens),
    num(g.outputTokens),
    usd(g),
    num(g.runsWithoutCost),
  ]
  for (const [key, g] of rows) table.push(row(key, g, isEndingKind(key) ? key : undefined))
  table.push(row(style.bold('total'), total, undefined))
  return table.toString()
}

/** The end of a path, cut at the front to `max` characters. */
const shortPath = (p: string, max: number): string => (p.length <= max ? p : `…${p.slice(p.length - max + 1)}`)

const topTable = (title: string, refs: ReadonlyArray<RunRef>, style: Style): string => {
  if (refs.length === 0) return ''
  const table = new Table({
    head: [title, 'ending', 'duration', 'cost'].map((h) => style.bold(h)),
    colAligns: ['left', 'left', 'right', 'right'],
    style: { head: [], border: style.enabled ? ['gray'] : [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  })
  for (const r of refs) {
    table.push([`${shortPath(r.file, 44)} #${r.index}`, style.ending(r.kind, oneLine(r.detail, 34)), durationText(r.durationMs), r.costUsd === null ? '—' : `$${r.costUsd.toFixed(4)}`])
  }
  return `${table.toString()}\n`
}

/** Runs `stats`; returns the exit status. Never throws. @since 0.1.0 */
export const statsCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand('stats', argv, { ...commonOptions, by: { type: 'string' as const, default: 'ending' }, prices: { type: 'string' as const }, jobs: { type: 'string' as const } }, io)
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(statsHelp())
    return EXIT.ok
  }
  if (parsed.positionals.length === 0) {
    io.stderr.write(`run-outcome stats: give one or more log files or directories, e.g. run-outcome stats ~/.claude/projects\n`)
    return EXIT.usage
  }
  const by = v.by as GroupBy
  if (!GROUPS.includes(by)) {
    io.stderr.write(`run-outcome stats: --by takes one of ${GROUPS.join(', ')}\n`)
    return EXIT.usage
  }
  const format = v.format ?? 'auto'
  if (!checkFormat('stats', format, io)) return EXIT.usage
  const accept = checkAccept('stats', v.accept, io)
  if (accept === undefined) return EXIT.usage
  const jobs = v.jobs !== undefined ? Number(v.jobs) : availableParallelism()
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) {
    io.stderr.write('run-outcome stats: --jobs takes a whole number from 1 to 64\n')
    return EXIT.usage
  }
  let prices: PriceTable | undefined
  if (v.prices !== undefined) {
    let text: string
    try {
      text = await readFile(v.prices, 'utf8')
    } catch {
      io.stderr.write(`run-outcome stats: cannot read the price table ${v.prices}\n`)
      return EXIT.usage
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      io.stderr.write(`run-outcome stats: the price table ${v.prices} is not valid JSON\n`)
      return EXIT.usage
    }
    const decoded = decodePriceTable(json)
    if (E.isLeft(decoded)) {
      io.stderr.write(`run-outcome stats: ${v.prices}: ${decoded.left}\n`)
      return EXIT.usage
    }
    prices = decoded.right
  }

  let code: number = EXIT.ok
  const files: Array<string> = []
  const named = new Set<string>()
  for (const p of parsed.positionals) {
    try {
      if ((await stat(p)).isDirectory()) files.push(...(await listLogFiles(p)))
      else {
        files.push(p)
        named.add(p)
      }
    } catch {
      io.stderr.write(`run-outcome stats: cannot read ${p}: no such file or directory\n`)
      code = EXIT.usage
    }
  }

  const agg = new StatsAggregate(by)
  const showProgress = io.stderr.isTTY === true && files.length > 20
  const bar = showProgress
    ? new cliProgress.SingleBar(
        { stream: io.stderr as unknown as NodeJS.WritableStream, format: 'replaying {bar} {value}/{total} files · {runs} runs · {eta_formatted} left', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  bar?.start(files.length, 0, { runs: 0 })
  await runFiles(files, { format, accept, ...(prices !== undefined ? { prices } : {}) }, jobs, (o) => {
    agg.addFile(o)
    if (!o.ok && named.has(o.file)) code = EXIT.usage
    bar?.increment(1, { runs: agg.total.runs })
  })
  bar?.stop()

  if (v.json) {
    io.stdout.write(`${JSON.stringify(agg.toJSON())}\n`)
  } else {
    const style = makeStyle(colorEnabled(io.stdout, io.env))
    const t = agg.total
    const withCost = t.runs - t.runsWithoutCost
    io.stdout.write(
      `${style.bold(`${num(t.runs)} run${t.runs === 1 ? '' : 's'}`)} in ${num(agg.filesRead)} file${agg.filesRead === 1 ? '' : 's'}` +
        `${agg.skipped.length > 0 ? style.dim(` (${agg.skipped.length} skipped: format not recognised or unreadable)`) : ''}` +
        `${agg.protocolErrors.length > 0 ? style.dim(` (${agg.protocolErrors.length} stopped at a protocol error)`) : ''}` +
        ` · success ${pct(t)} · ${withCost === 0 ? 'cost unknown (no run reports one)' : `cost $${t.costUsd.toFixed(4)} over ${num(withCost)} run${withCost === 1 ? '' : 's'}`}` +
        `${t.runsWithoutCost > 0 ? ` (${num(t.runsWithoutCost)} without cost${prices === undefined ? '; --prices can estimate it' : ''})` : ''}` +
        `${t.runsWithEstimatedCost > 0 ? ' · * estimated' : ''}\n\n`,
    )
    const rows: Array<[string, GroupTotals]> =
      by === 'ending'
        ? endingKinds.filter((k) => agg.byEnding.has(k)).map((k) => [k, agg.byEnding.get(k) as GroupTotals])
        : [...agg.groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    io.stdout.write(`${groupTable(by, rows, t, style, by === 'ending')}\n`)
    if (by === 'model') io.stdout.write(style.dim('a run that used several models is counted under each, with that model\'s tokens and cost\n'))
    io.stdout.write('\n')
    const slow = topTable('slowest runs', agg.slowest, style)
    if (slow !== '') io.stdout.write(`${slow}\n`)
    const dear = topTable('most expensive runs', agg.mostExpensive, style)
    if (dear !== '') io.stdout.write(`${dear}\n`)
    for (const p of agg.protocolErrors.slice(0, 5)) io.stderr.write(`run-outcome stats: protocol error: ${p.message}\n`)
    for (const k of agg.skipped.slice(0, 5)) io.stderr.write(`run-outcome stats: skipped ${k.file}: ${k.why === 'undetected' ? 'format not recognised' : k.why === 'too-large' ? 'a JSON document over 64 MB' : k.why === 'not-json' ? 'not valid JSON' : 'not readable'}\n`)
    if (agg.skipped.length > 5) io.stderr.write(`run-outcome stats: … and ${agg.skipped.length - 5} more skipped (--json lists up to 100)\n`)
  }
  if (agg.filesRead === 0 && code === EXIT.ok) {
    // nothing could be read: an input error (as for replay), not an empty success
    io.stderr.write(
      files.length === 0
        ? `run-outcome stats: no log files under ${parsed.positionals.join(', ').slice(0, 200)} (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)\n`
        : `run-outcome stats: none of the ${files.length} file(s) could be read as a log; name the format with --format if they are one\n`,
    )
    return EXIT.usage
  }
  return code
}
