/**
 * `run-outcome stats [PATH|-]… [options]`: replay every log under the paths (in worker threads, one per core but one) —
 * or, with no path, under the usual places (`~/.claude/projects`, `~/.codex/sessions`, `~/.gemini/tmp`, …,
 * `node/homes.ts`) — and summarise how the runs ended and what they cost, grouped by ending, format, model, day,
 * week, month, session or project, in a table that fits the terminal.
 *
 * Costs the logs do not report are estimated per request from the bundled genai-prices data (and `--prices FILE`),
 * marked `~`; a run whose cost stays unknown is counted apart and never summed as $0.
 * @module
 */
import { statSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import cliProgress from 'cli-progress'
import { isEndingKind, type EndingKind } from '../core/RunEnding.js'
import { msFromIso } from '../core/time.js'
import { FORMAT_NAMES } from '../formats/names.js'
import { LINE_CAP_TEXT } from '../io/lines.js'
import { isReadWithNamedSession, listLogPaths, SKIPPED } from '../node/files.js'
import { findLogHomes, homeOf, tilde, type LogHome } from '../node/homes.js'
import { PRICE_DATA_VERSION, PRICE_PACKAGE, priceDataOf, type EstimateSettings } from '../prices/genaiPrices.js'
import { estimateSettings, SKIPPED_NAMED } from './estimates.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { EXIT, outputWidth, type CliIO } from './io.js'
import { escapeC1, forTerminal } from './sanitize.js'
import { GROUP_KEYS, NO_MODEL, NO_USAGE, StatsAggregate, type GroupBy, type GroupTotals, type ListingSkip, type RunRef } from './stats/aggregate.js'
import { buildKeyIn, cacheDirOf, openStatsCache } from './stats/cache.js'
import { runPool } from './stats/pool.js'
import type { FileOutcome, RecordJob, SkipReason } from './stats/records.js'
import { InOrder } from './stats/inOrder.js'
import { fileLabel, type UnitFile, unitsOf } from './stats/units.js'
import { type Cell, type Column, renderTable, tableWidths, textWidth, wrapParts } from './stats/table.js'
import { checkTimeZone, localTime, machineTimeZone, parseBound, rangeIsEmpty, type TimeBound } from './stats/time.js'
import { colorEnabled, makeStyle, type Style } from './style.js'
import { durationText, num, oneLine, shortDuration, shortNumber, usdText } from './summary.js'
import { fitHelp, helpWidth } from './helpText.js'
import { notThereLine } from './usualPlaces.js'

/** Help text of `stats`. @since 0.1.0 */
export const statsHelp = (): string => `Usage: run-outcome stats [PATH|-]... [options]

Replays every log under the paths (files or directories, .gz too; - for standard input)
using every core, and prints how the runs ended and what they cost: runs per ending,
success rate, tokens and cost per group, and the slowest and most expensive runs.
With no path it reads the usual places: ~/.claude/projects, ~/.config/claude/projects,
the projects folder of each directory in CLAUDE_CONFIG_DIR (comma-separated),
$CODEX_HOME/sessions and $CODEX_HOME/archived_sessions (CODEX_HOME: ~/.codex), and the
chats folders under ~/.gemini/tmp.
A line over the line cap (${LINE_CAP_TEXT}) is skipped with a
note naming its line and size, never parsed: memory stays bounded by the cap.
A file whose records hold no run (empty, or only metadata such as a Claude Code summary)
is counted as "with no run", not as an unfinished run ('replay' of that file alone
prints one unfinished run, as for any input without a run).

Cost: a cost the log reports is used as is. Every other model request is priced on its
own from the prices bundled with ${PRICE_PACKAGE} ${PRICE_DATA_VERSION} (offline; the
prices in force at the request's time, tiered per request) and marked ~ (estimated).
A model the data does not know, or a log that names no model (codex exec --json),
leaves the run's cost unknown: such runs are counted apart, by model, never as $0 (a +
after a cost: some runs of the row have no known cost and are not in it).

Options:
  --by KEY         group by ending (default), format, model, day, week, month,
                   session (one log file) or project (the working directory a
                   Claude Code or Codex session names, so a repository is one row for
                   both; else the Claude Code project folder; the Gemini project)
  --breakdown      a row per model inside each group
  --since WHEN     only runs that started at or after WHEN, and
  --until WHEN     at or before WHEN: a date (2025-09-24 or 20250924; the whole day),
                   a month (2025-09), a local time (2025-09-24T18:00) or an ISO time
                   with a zone (2025-09-24T18:00:00Z)
  --timezone ZONE  IANA time zone for days, weeks (Monday first), months and local
                   times (default: the machine's, from TZ; e.g. UTC, Europe/Paris)
  --order ORDER    asc (default: oldest or A first) or desc
  --compact        the narrow table even on a wide terminal (it is chosen by itself
                   when the wide one does not fit)
  --prices FILE    a JSON price table, USD per million tokens, whose models override
                   or add to the bundled prices; keys per model: input (uncached
                   input), output (output, reasoning included), cachedInput (cache
                   reads; default input), cacheWrite (cache writes; default input); a
                   name ending in * is a prefix:
    { "gpt-5-codex": { "input": 1.25, "cachedInput": 0.125,
                       "output": 10 },
      "my-model-*": { "input": 3, "cacheWrite": 3.75,
                      "output": 15 } }
  --no-estimate    no estimates: only the costs the logs report
  --format F       auto (default) or one of: ${FORMAT_NAMES.join(', ')}
  --accept KIND    also count this ending kind as success (repeatable)
  --jobs N         worker threads (default: one per core but one; 1 reads in
                   this thread)
  --no-cache       read every file; neither use nor write the result cache (earlier
                   reports' results, used for files that have not changed since; a
                   changed file is always read again): ~/.cache/run-outcome, or
                   $XDG_CACHE_HOME/run-outcome, or RUN_OUTCOME_CACHE_DIR
                   (RUN_OUTCOME_CACHE=0: the same as --no-cache)
  --json           one JSON document (the same groups, exact figures, the price data)
  --color, --no-color  force colours on or off (default: on a terminal, unless NO_COLOR)
  -h, --help       show this help

Exit status: 0 when the inputs could be read, 2 otherwise (a missing path, nothing
readable, a bad option).

Examples:
  run-outcome stats                                  # the usual places, by ending
  run-outcome stats --by day --since 2025-09-01 --timezone Europe/Paris
  run-outcome stats --by month --breakdown           # per model inside each month
  run-outcome stats --by session --order desc ~/.claude/projects
  run-outcome stats --by project --json > usage.json
  claude -p "fix it" --output-format stream-json --verbose | run-outcome stats -
`

/**
 * Worker threads when `--jobs` is not given: one per core but one, and none (every file read in this thread) on
 * two cores. Reading logs is bound by memory traffic more than by the CPU (the bytes are copied from the page
 * cache, then scanned): on the 2-core bench machine two workers read the bench trees no faster than one thread
 * (Codex 400 MB: 2.1 s wall, 3.9 s CPU against 1.55 s and 2.0 s; Claude Code 390 MB: 3.5 s, 6.3 s against 3.4 s,
 * 4.5 s), and the core left over serves this thread (the listing, the aggregate, the progress bar) and V8's
 * collector and compiler threads.
 */
const defaultJobs = (): number => Math.max(1, availableParallelism() - 1)

const ORDERS = ['asc', 'desc'] as const
type Order = (typeof ORDERS)[number]

interface Input {
  readonly label: string
  readonly files: ReadonlyArray<UnitFile>
}

const pct = (g: GroupTotals): string => (g.runs === 0 ? '—' : `${((g.successes / g.runs) * 100).toFixed(1)}%`)

/**
 * The worker script: the build's one-file bundle of it (`npm run build` makes `stats/worker.bundle.js` with
 * esbuild) when present — a thread then starts in ~45 ms instead of ~110 ms spent resolving and compiling some
 * hundred modules — and not older than the module, else the module itself.
 */
const workerUrl = (): URL => {
  const bundle = new URL('./stats/worker.bundle.js', import.meta.url)
  const plain = new URL('./stats/worker.js', import.meta.url)
  // a bundle older than the module (a build by `tsc` alone) would run old code
  const b = statSync(fileURLToPath(bundle), { throwIfNoEntry: false })
  const m = statSync(fileURLToPath(plain), { throwIfNoEntry: false })
  return b !== undefined && (m === undefined || b.mtimeMs >= m.mtimeMs) ? bundle : plain
}

/** A group's cost: `—` when no run has one; `~` when some of it is estimated; `+` when some run's cost is unknown. */
const costCell = (g: GroupTotals): string => {
  if (g.runsWithoutCost === g.runs) return '—'
  return `${g.runsWithEstimatedCost > 0 ? '~' : ''}${usdText(g.costUsd)}${g.runsWithoutCost > 0 ? '+' : ''}`
}

/** A model name without its date stamp (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`), for narrow tables. */
const shortModel = (m: string): string => m.replace(/-20\d{6}$/, '')

const modelName = (m: string): string => (m === NO_MODEL ? '(no model name)' : forTerminal(m))

interface Row {
  readonly key: Cell
  readonly keyShort: Cell
  readonly lastActivity: string
  readonly g: GroupTotals
  readonly model: boolean
}

/**
 * The group table, in the first layout that fits the width while its key column keeps up to 28 columns (else
 * the one that leaves the key the most room): wide (every bucket apart), narrow (cache read + write in one
 * column, success as a whole percentage), short (numbers as 18.5M), minimal (no success column); when none fits,
 * for `--by session` bare (no last-activity column either). Without a width the wide one (`--compact`: from the
 * narrow one on).
 */
const groupTable = (by: GroupBy, rows: ReadonlyArray<Row>, total: GroupTotals, style: Style, width: number | undefined, compact: boolean): string => {
  const totalRow: Row = { key: { text: 'total', paint: style.bold }, keyShort: { text: 'total', paint: style.bold }, lastActivity: '', g: total, model: false }
  const all = [...rows, totalRow]
  const text = (c: Cell): string => (typeof c === 'string' ? c : c.text)
  type Layout = 'wide' | 'narrow' | 'short' | 'minimal' | 'bare'
  const table = (layout: Layout): { cols: Array<Column>; cells: Array<Array<Cell>> } => {
    const key: Column = { head: by, align: 'left', shrink: 'middle', min: 10 }
    if (layout === 'wide') {
      const cols: Array<Column> = [key]
      if (by === 'session') cols.push({ head: 'last activity', align: 'left' })
      cols.push(
        { head: 'runs', align: 'right' },
        { head: 'success', align: 'right' },
        { head: 'input', align: 'right' },
        { head: 'cache read', align: 'right' },
        { head: 'cache write', align: 'right' },
        { head: 'output', align: 'right' },
        { head: 'cost', align: 'right' },
        { head: 'no cost', align: 'right' },
      )
      const cells = all.map((r) => {
        const c: Array<Cell> = [r.key]
        if (by === 'session') c.push(r.lastActivity)
        c.push(
          num(r.g.runs),
          r.model ? '' : pct(r.g),
          num(r.g.inputTokens),
          num(r.g.cacheReadTokens),
          num(r.g.cacheWriteTokens),
          num(r.g.outputTokens),
          costCell(r.g),
          num(r.g.runsWithoutCost),
        )
        return c
      })
      return { cols, cells }
    }
    const n = layout === 'narrow' ? num : shortNumber
    const ok = layout !== 'minimal' && layout !== 'bare'
    const cols: Array<Column> = [key]
    // the session view keeps its last-activity date (what `--order` sorts on; ccusage shows it too) until only
    // dropping it lets the table fit (`bare`)
    const last = by === 'session' && layout !== 'bare'
    if (last) cols.push({ head: 'last', align: 'left' })
    cols.push({ head: 'runs', align: 'right' })
    if (ok) cols.push({ head: 'ok', align: 'right' })
    cols.push({ head: 'input', align: 'right' }, { head: 'cache', align: 'right' }, { head: 'output', align: 'right' }, { head: 'cost', align: 'right' })
    const cells = all.map(
      (r): Array<Cell> => [
        r.keyShort,
        ...(last ? [r.lastActivity.slice(0, 10)] : []),
        num(r.g.runs),
        ...(ok ? [r.model || r.g.runs === 0 ? '' : `${Math.round((r.g.successes / r.g.runs) * 100)}%`] : []),
        n(r.g.inputTokens),
        n(r.g.cacheReadTokens + r.g.cacheWriteTokens),
        n(r.g.outputTokens),
        costCell(r.g),
      ],
    )
    return { cols, cells }
  }
  const layouts: ReadonlyArray<Layout> = compact ? ['narrow', 'short', 'minimal'] : ['wide', 'narrow', 'short', 'minimal']
  const opts = { style, ...(width !== undefined ? { maxWidth: width } : {}) }
  let best: { t: { cols: Array<Column>; cells: Array<Array<Cell>> }; key: number } | undefined
  for (const l of layouts) {
    const t = table(l)
    const w = tableWidths(t.cols, t.cells, opts)
    if (w === undefined) continue
    const want = Math.min(28, Math.max(...all.map((r) => textWidth(text(l === 'wide' ? r.key : r.keyShort)))))
    if ((w[0] as number) >= want) return renderTable(t.cols, t.cells, opts) as string
    if (best === undefined || (w[0] as number) > best.key) best = { t, key: w[0] as number }
  }
  if (best !== undefined) return renderTable(best.t.cols, best.t.cells, opts) as string
  // nothing fits: the session view without its last-activity column, else the narrowest layout at its own width
  // (the terminal wraps it)
  const narrowest = table(by === 'session' ? 'bare' : 'minimal')
  return (renderTable(narrowest.cols, narrowest.cells, opts) ?? renderTable(narrowest.cols, narrowest.cells, { style })) as string
}

const topTable = (title: string, refs: ReadonlyArray<RunRef>, style: Style, home: string, width: number | undefined): string => {
  if (refs.length === 0) return ''
  const cols: Array<Column> = [
    { head: title, align: 'left', shrink: 'label', min: 16 },
    { head: 'ending', align: 'left', shrink: 'end', min: 10, weight: 3 },
    { head: 'duration', align: 'right' },
    { head: 'cost', align: 'right' },
  ]
  const rows = refs.map(
    (r): Array<Cell> => [
      `${runName(r.file, r.project, home)} #${r.index}`,
      { text: oneLine(r.detail, 40), paint: (t) => style.ending(r.kind, t) },
      // under 80 columns the short form (`31m 05s`), so the run's label keeps the room
      width !== undefined && width < 80 ? shortDuration(r.durationMs) : durationText(r.durationMs),
      r.costUsd === null ? '—' : `${r.estimated ? '~' : ''}${usdText(r.costUsd)}`,
    ],
  )
  // without a terminal width, long paths are still cut to keep the table readable
  const max = width ?? 140
  let out = renderTable(cols, rows, { style, maxWidth: max })
  // too narrow even when cut: drop the ending column; narrower still (COLUMNS=30): the narrowest that can be
  // drawn, a few columns too wide, never the uncut table (wider than the one a wide terminal gets)
  const three = [cols[0] as Column, cols[2] as Column, cols[3] as Column]
  const threeRows = rows.map((r) => [r[0] as Cell, r[2] as Cell, r[3] as Cell])
  for (let w = max; out === undefined && w <= 140; w++) out = renderTable(three, threeRows, { style, maxWidth: w })
  return `${out ?? (renderTable(cols, rows, { style }) as string)}\n`
}

const skipWhy = (why: SkipReason | ListingSkip): string =>
  why === 'undetected'
    ? 'format not recognised'
    : why === 'too-large'
      ? 'a JSON document over 64 MB'
      : why === 'not-json'
        ? 'not valid JSON'
        : why === 'crashed'
          ? 'the reader crashed on it'
          : why === 'unreadable-folder'
            ? SKIPPED.unreadableFolder
            : why === 'broken-link'
              ? SKIPPED.brokenLink
              : why === 'folder-again'
                ? SKIPPED.folderAgain
                : why === 'not-regular'
                  ? SKIPPED.notRegular
                  : 'not readable'

/** Runs `stats`; returns the exit status. Never throws. @since 0.1.0 */
export const statsCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand(
    'stats',
    argv,
    {
      ...commonOptions,
      by: { type: 'string' as const, default: 'ending' },
      breakdown: { type: 'boolean' as const, default: false },
      since: { type: 'string' as const },
      until: { type: 'string' as const },
      timezone: { type: 'string' as const },
      order: { type: 'string' as const, default: 'asc' },
      compact: { type: 'boolean' as const, default: false },
      prices: { type: 'string' as const },
      estimate: { type: 'boolean' as const },
      jobs: { type: 'string' as const },
      cache: { type: 'boolean' as const },
    },
    io,
  )
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(fitHelp(statsHelp(), helpWidth(io.stdout, io.env)))
    return EXIT.ok
  }
  const usage = (message: string): number => {
    io.stderr.write(`run-outcome stats: ${message}\nTry 'run-outcome stats --help'.\n`)
    return EXIT.usage
  }
  const by = v.by as GroupBy
  if (!GROUP_KEYS.includes(by)) return usage(`--by takes one of ${GROUP_KEYS.join(', ')}, not "${forTerminal(String(v.by).slice(0, 40))}"`)
  const order = v.order as Order
  if (!ORDERS.includes(order)) return usage(`--order takes asc or desc, not "${forTerminal(String(v.order).slice(0, 40))}"`)
  const format = v.format ?? 'auto'
  if (!checkFormat('stats', format, io)) return EXIT.usage
  const accept = checkAccept('stats', v.accept, io)
  if (accept === undefined) return EXIT.usage
  const jobs = v.jobs !== undefined ? Number(v.jobs) : defaultJobs()
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) return usage('--jobs takes a whole number from 1 to 64')
  let timeZone = machineTimeZone(io.env)
  if (v.timezone !== undefined) {
    const z = checkTimeZone(v.timezone)
    if (z === undefined)
      return usage(`--timezone takes an IANA time zone such as UTC, Europe/Paris or America/New_York, not "${forTerminal(v.timezone.slice(0, 60))}"`)
    timeZone = z
  }
  const bound = (name: 'since' | 'until', text: string | undefined): TimeBound | undefined | null => {
    if (text === undefined) return undefined
    const b = parseBound(text)
    if (b === undefined) {
      usage(
        `--${name} takes a date (2025-09-24 or 20250924), a month (2025-09), a local time (2025-09-24T18:00) or an ISO time with a zone, not "${forTerminal(text.slice(0, 40))}"`,
      )
      return null
    }
    return b
  }
  const since = bound('since', v.since)
  if (since === null) return EXIT.usage
  const until = bound('until', v.until)
  if (until === null) return EXIT.usage
  if (since !== undefined && until !== undefined && rangeIsEmpty(since, until, timeZone))
    return usage(
      `--since ${forTerminal(since.text.slice(0, 40))} is after --until ${forTerminal(until.text.slice(0, 40))} (${timeZone}): no run can be in that range`,
    )
  const estimate = await estimateSettings('stats', v.prices, v.estimate, io)
  if (estimate === undefined) return EXIT.usage

  const home = homeOf(io.env)
  const errWidth = outputWidth(io.stderr, io.env)
  // a path the user has to act on is shown whole (the terminal wraps it): cut, two files could read the same
  const pathNote = (prefix: string, p: string, suffix: string): string => `${prefix}${forTerminal(tilde(p, home))}${suffix}\n`

  // 1. The inputs: the named paths (all must exist: a typo is an error, not an empty table), or the usual places.
  const agg = new StatsAggregate({
    by,
    breakdown: v.breakdown === true,
    timeZone,
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  })
  const inputs: Array<Input> = []
  const named = new Set<string>()
  let readStdin = false
  // what the folder listing met, under its own reason (a broken link is not an unreadable folder)
  const folderSkip = (p: string, why: string): void => {
    agg.addSkipped(
      p,
      why === SKIPPED.brokenLink
        ? 'broken-link'
        : why === SKIPPED.folderAgain
          ? 'folder-again'
          : why === SKIPPED.notRegular
            ? 'not-regular'
            : why === SKIPPED.unreadableFile || why === SKIPPED.notUtf8
              ? 'unreadable'
              : 'unreadable-folder',
    )
  }
  // files (`dev:ino`) listed so far: one reached again through another input (`d ./d`, a folder and its parent,
  // a second link) is read once; a name that is not valid UTF-8 is read by its bytes
  const seenFiles = new Set<string>()
  // `stats proj/*` names `s.jsonl` and `s/`: the subagent files in `s/` are read with `s.jsonl`, not on their own
  const given = parsed.positionals
  const list = async (dir: string): Promise<Array<UnitFile>> =>
    (await listLogPaths(dir, folderSkip, { seen: seenFiles, inputs: given })).map((f) =>
      typeof f.path === 'string' ? f.path : { path: f.path, label: f.label },
    )
  // with no path: what to say when the usual places hold no log at all
  let noLogsHint = ''
  if (parsed.positionals.length === 0) {
    const homes = await findLogHomes(io.env)
    const found = homes.filter((h) => h.folders.length > 0)
    if (found.length === 0) {
      io.stderr.write(
        `run-outcome stats: no path given, and none of the usual places exists:\n${homes.map((h) => `  ${forTerminal(tilde(h.path, home))}\n`).join('')}Give a log file or directory, e.g. run-outcome stats ./logs\n`,
      )
      return EXIT.usage
    }
    const lines: Array<string> = []
    for (const h of found) {
      const files: Array<UnitFile> = []
      for (const f of h.folders) files.push(...(await list(f)))
      inputs.push({ label: h.path, files })
      lines.push(placeLine(h, files.length, home))
    }
    io.stderr.write(`run-outcome stats: no path given; reading the usual places:\n${lines.join('')}`)
    // said at the end if they hold no log: the places that are not there, and what to do
    noLogsHint = `${notThereLine(homes, home)}Give a log file or directory, e.g. run-outcome stats ./logs\n`
  } else {
    let missing = false
    const kinds: Array<'dir' | 'file' | 'stdin' | 'again'> = []
    for (const p of parsed.positionals) {
      if (p === '-') {
        kinds.push('stdin')
        continue
      }
      try {
        const st = await stat(p)
        const id = `${st.dev}:${st.ino}`
        if (st.isDirectory()) kinds.push('dir')
        else if (seenFiles.has(id) || isReadWithNamedSession(p, given)) kinds.push('again')
        else {
          seenFiles.add(id)
          kinds.push('file')
        }
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        io.stderr.write(
          pathNote(
            'run-outcome stats: cannot read ',
            p,
            `: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : 'not readable'}`,
          ),
        )
        missing = true
        kinds.push('file')
      }
    }
    if (missing) return EXIT.usage
    for (let i = 0; i < parsed.positionals.length; i++) {
      const p = parsed.positionals[i] as string
      const kind = kinds[i]
      if (kind === 'stdin') readStdin = true
      else if (kind === 'dir') inputs.push({ label: p, files: await list(p) })
      else if (kind === 'again') continue
      else {
        inputs.push({ label: p, files: [p] })
        named.add(p)
      }
    }
  }
  const files = [...new Set(inputs.flatMap((i) => i.files))]

  // 2. Read them.
  const job: RecordJob = { format, accept, estimate }
  let code: number = EXIT.ok
  const showProgress = io.stderr.isTTY === true && files.length > 20
  const barSize = Math.max(10, Math.min(40, (errWidth ?? 100) - 60))
  const bar = showProgress
    ? new cliProgress.SingleBar(
        {
          stream: io.stderr as unknown as NodeJS.WritableStream,
          format: 'replaying {bar} {value}/{total} files · {runs} runs · {eta_formatted} left',
          barsize: barSize,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  bar?.start(files.length, 0, { runs: 0 })
  // outcomes arrive in the order the workers finish (and those from the cache first); they are added in the
  // files' order, so sums of costs come out to the same last digit on every run
  const position = new Map<string, number>()
  for (let i = 0; i < files.length; i++) position.set(fileLabel(files[i] as UnitFile), i)
  // each outcome is added once those of the files before it are (InOrder): memory holds only the ones that came
  // early, not every run of the report
  let runsSoFar = 0
  const addOutcome = (o: FileOutcome): void => {
    agg.addFile(o)
    if (!o.ok && named.has(o.file)) code = EXIT.usage
  }
  const inOrder = new InOrder<FileOutcome>(files.length, addOutcome)
  const onOutcome = (o: FileOutcome): void => {
    inOrder.put(position.get(o.file), o)
    if (o.ok) runsSoFar += o.runs.length
    bar?.increment(1, { runs: runsSoFar })
  }
  // the readers are loaded only when some file is read (a report answered from the cache reads none)
  const readers = (): Promise<typeof import('./stats/records.js')> => import('./stats/records.js')
  if (readStdin) addOutcome(await (await readers()).readStreamRecords(io.stdin, '-', job))
  // units: a folder's files together (copies between the files of a Claude Code project count once, K15)
  const fromSources = import.meta.url.endsWith('.ts')
  // the results of earlier reports for the units whose files have not changed (cache.ts); the rest are read
  const cacheDir = v.cache === false || fromSources ? undefined : cacheDirOf(io.env)
  const scope = JSON.stringify({ inputs: inputs.map((i) => i.label), stdin: readStdin })
  const cache =
    cacheDir === undefined ? undefined : openStatsCache(cacheDir, job, { scope, build: buildKeyIn(fileURLToPath(new URL('./stats/', import.meta.url))) })
  const units: Array<Array<UnitFile>> = []
  for (const u of unitsOf(files)) {
    const kept = cache?.lookup(u)
    if (kept === undefined) units.push(u)
    else for (const o of kept) onOutcome(o)
  }
  const onRead =
    cache === undefined
      ? onOutcome
      : (o: FileOutcome): void => {
          cache.record(o)
          onOutcome(o)
        }
  if (units.length === 0) {
    // every file answered from the cache
  } else if (fromSources || units.length < 2 || files.length < 4 || jobs <= 1) {
    const { readUnitRecords } = await readers()
    for (const u of units) await readUnitRecords(u, job, onRead)
  } else {
    const inProcess = async (u: ReadonlyArray<UnitFile>, on: (o: FileOutcome) => void, silent: number): Promise<void> =>
      (await readers()).readUnitRecords(u, job, on, { silent })
    const onReread = cache === undefined ? undefined : (fs: ReadonlyArray<UnitFile>): void => cache.spoil(fs)
    await runPool(units, { workerUrl: workerUrl(), workerData: job, jobs, inProcess, ...(onReread !== undefined ? { onReread } : {}) }, onRead)
  }
  cache?.save()
  bar?.stop()
  inOrder.end()

  if (agg.filesRead === 0) {
    // nothing could be read: an input error (as for replay), not an empty table
    reportSkipped(agg, io, pathNote)
    io.stderr.write(
      files.length === 0 && !readStdin
        ? `run-outcome stats: no log files under ${forTerminal(
            inputs
              .map((i) => tilde(i.label, home))
              .join(', ')
              .slice(0, 200),
          )} (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)\n${noLogsHint}`
        : `run-outcome stats: none of the ${files.length + (readStdin ? 1 : 0)} file(s) could be read as a log; name the format with --format if they are one\n`,
    )
    return EXIT.usage
  }

  // 3. Report.
  if (v.json) {
    io.stdout.write(`${escapeC1(JSON.stringify({ ...agg.toJSON(order), order, priceData: priceDataOf(estimate) }))}\n`)
  } else {
    const style = makeStyle(colorEnabled(io.stdout, io.env))
    const width = outputWidth(io.stdout, io.env)
    io.stdout.write(headline(agg, estimate, style, width, timeZone))
    const rows: Array<Row> = []
    for (const [key, g] of agg.rows(order)) {
      rows.push(groupRow(agg, by, key, g, style, home, timeZone))
      if (v.breakdown === true && by !== 'model') {
        for (const [m, mg] of agg.modelRows(key))
          rows.push({
            key: { text: `  └ ${modelName(m)}`, paint: style.dim },
            keyShort: { text: `  └ ${modelName(shortModel(m))}`, paint: style.dim },
            lastActivity: '',
            g: mg,
            model: true,
          })
      }
    }
    io.stdout.write(`${groupTable(by, rows, agg.total, style, width, v.compact === true)}\n`)
    const notes: Array<string> = []
    if (by === 'model') notes.push("a run of several models counts under each, with that model's tokens and cost")
    if (v.breakdown === true && by !== 'model') notes.push('└ rows: one model inside the group (its runs, tokens and cost)')
    const all = [agg.total, ...agg.groups.values()]
    if (all.some((g) => g.runsWithEstimatedCost > 0)) notes.push('~ estimated')
    if (all.some((g) => g.runsWithoutCost > 0 && g.runsWithoutCost < g.runs)) notes.push('+ more: some runs of the row have no known cost')
    if (all.some((g) => g.runsWithoutCost === g.runs && g.runs > 0)) notes.push('— unknown')
    if (notes.length > 0) io.stdout.write(`${style.dim(wrapParts(notes, width))}\n`)
    io.stdout.write('\n')
    const slow = topTable('slowest runs', agg.slowest, style, home, width)
    if (slow !== '') io.stdout.write(`${slow}\n`)
    const dear = topTable('most expensive runs', agg.mostExpensive, style, home, width)
    if (dear !== '') io.stdout.write(`${dear}\n`)
    for (const p of agg.protocolErrors.slice(0, SKIPPED_NAMED)) io.stderr.write(`run-outcome stats: protocol error: ${forTerminal(p.message)}\n`)
    if (agg.protocolErrorCount > SKIPPED_NAMED)
      io.stderr.write(`run-outcome stats: … and ${num(agg.protocolErrorCount - SKIPPED_NAMED)} more stopped at a protocol error (--json lists up to 100)\n`)
    reportNotes(agg, io, pathNote)
    reportSkipped(agg, io, pathNote)
  }
  return code
}

/** A project as the wide tables show it: a path with `~`, a Claude Code folder as named. */
const projectName = (project: string, home: string): string => tilde(project, home)

/**
 * A project as the narrow tables show it: a path's last folder; a Claude Code folder without its
 * `-Users-<name>-` / `-home-<name>-` start (`-Users-me-Dev-app` → `Dev-app`).
 */
const shortProject = (project: string, home: string): string => {
  if (/[\\/]/.test(project)) return basename(project) || tilde(project, home)
  return project.replace(/^-(?:Users|home)-[^-]+-(?=.)/, '')
}

/** A session file's name, short: a UUID to its first 8 digits, a Codex rollout to its start time. */
const shortSession = (name: string): string => {
  const rollout = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2})-\d{2}-[0-9a-f-]{36}$/i.exec(name)
  if (rollout !== null) return `rollout-${rollout[1] as string}`
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(name)) return name.slice(0, 8)
  return name
}

/** A run's file as the top tables name it: `project/file` (the project short), else the path with `~`. */
const runName = (file: string, project: string | null, home: string): string =>
  project === null || file === '-' ? forTerminal(tilde(file, home)) : `${forTerminal(shortProject(project, home))}/${forTerminal(basename(file))}`

/** One line of the "reading the usual places" note. */
const placeLine = (h: LogHome, files: number, home: string): string => {
  const where =
    h.tool === 'gemini'
      ? `${forTerminal(tilde(h.path, home))} (${h.folders.length} chats folder${h.folders.length === 1 ? '' : 's'})`
      : forTerminal(tilde(h.path, home))
  return `  ${h.tool.padEnd(11)} ${where}: ${num(files)} file${files === 1 ? '' : 's'}\n`
}

/**
 * Prints the first {@link SKIPPED_NAMED} notes of the files read on stderr (as `replay` prints them: what was not
 * read of a file whose runs are counted), then counts the rest.
 */
const reportNotes = (agg: StatsAggregate, io: CliIO, pathNote: (prefix: string, p: string, suffix: string) => string): void => {
  for (const n of agg.notes.slice(0, SKIPPED_NAMED)) io.stderr.write(pathNote('run-outcome stats: ', n.file, `: ${forTerminal(n.message)}`))
  if (agg.noteCount > SKIPPED_NAMED) io.stderr.write(`run-outcome stats: … and ${num(agg.noteCount - SKIPPED_NAMED)} more notes (--json lists up to 100)\n`)
}

/** Names the first {@link SKIPPED_NAMED} skipped files on stderr, then counts the rest. */
const reportSkipped = (agg: StatsAggregate, io: CliIO, pathNote: (prefix: string, p: string, suffix: string) => string): void => {
  for (const k of agg.skipped.slice(0, SKIPPED_NAMED)) io.stderr.write(pathNote('run-outcome stats: skipped ', k.file, `: ${skipWhy(k.why)}`))
  if (agg.skippedCount > SKIPPED_NAMED)
    io.stderr.write(`run-outcome stats: … and ${num(agg.skippedCount - SKIPPED_NAMED)} more skipped (--json lists up to 100)\n`)
}

/** The key cell of a group row, wide and narrow. */
const groupRow = (agg: StatsAggregate, by: GroupBy, key: string, g: GroupTotals, style: Style, home: string, timeZone: string): Row => {
  let text = forTerminal(key)
  let shortText = text
  let lastActivity = ''
  if (by === 'ending' && isEndingKind(key)) {
    const k: EndingKind = key
    // the mark and the name in the ending's colour (the plain glyph, so the cell can be measured and cut)
    const c: Cell = { text: `${makeStyle(false).mark(k)} ${key}`, paint: (t: string) => style.ending(k, t) }
    return { key: c, keyShort: c, lastActivity, g, model: false }
  }
  if (by === 'model') {
    text = modelName(key)
    shortText = modelName(shortModel(key))
  } else if (by === 'session') {
    const s = agg.sessions.get(key)
    const project = s?.project ?? null
    const name = basename(key).replace(/\.(jsonl|ndjson|json|log|txt)(\.gz)?$/i, '')
    text = `${project === null ? '' : `${forTerminal(projectName(project, home))}/`}${forTerminal(name)}`
    shortText = `${project === null ? '' : `${forTerminal(shortProject(project, home))}/`}${forTerminal(shortSession(name))}`
    if (g.lastActivity !== null) lastActivity = localTime(msFromIso(g.lastActivity), timeZone).slice(0, 16).replace('T', ' ')
  } else if (by === 'project') {
    text = forTerminal(projectName(key, home))
    shortText = forTerminal(shortProject(key, home))
  }
  return { key: text, keyShort: shortText, lastActivity, g, model: false }
}

/** The summary lines above the table: runs, success, and cost split into reported, estimated and unknown. */
const headline = (agg: StatsAggregate, estimate: EstimateSettings, style: Style, width: number | undefined, timeZone: string): string => {
  const t = agg.total
  const notes = [
    ...(agg.skippedCount > 0 ? [`${num(agg.skippedCount)} skipped`] : []),
    ...(agg.filesWithoutRuns > 0 ? [`${num(agg.filesWithoutRuns)} with no run`] : []),
    ...(agg.protocolErrorCount > 0 ? [`${num(agg.protocolErrorCount)} stopped at a protocol error`] : []),
    ...(agg.filesWithNotes > 0 ? [`${num(agg.filesWithNotes)} with notes`] : []),
  ]
  const first: Array<string> = [
    `${style.bold(`${num(t.runs)} run${t.runs === 1 ? '' : 's'}`)} in ${num(agg.filesRead)} file${agg.filesRead === 1 ? '' : 's'}${notes.length > 0 ? style.dim(` (${notes.join('; ')})`) : ''}`,
  ]
  first.push(`success ${pct(t)}`)
  const cost: Array<string> = []
  const reportedRuns = t.runs - t.runsWithoutCost - t.runsWithEstimatedCost
  const unknown = t.runsWithoutCost
  const runsText = (n: number): string => `${num(n)} run${n === 1 ? '' : 's'}`
  const known: Array<string> = []
  if (reportedRuns > 0) known.push(`${usdText(t.reportedUsd)} reported (${runsText(reportedRuns)})`)
  if (t.runsWithEstimatedCost > 0) known.push(`~${usdText(t.estimatedUsd)} estimated (${runsText(t.runsWithEstimatedCost)})`)
  if (known.length === 2) cost.push(`cost ${known[0] as string}`, `+ ${known[1] as string}`, `= ~${usdText(t.costUsd)}`)
  else if (known.length === 1) cost.push(`cost ${known[0] as string}`)
  // a sum is never shown as the whole when some run's cost is unknown
  const costLine = wrapParts(cost, width, '  ', ' ')
  const unknownPart =
    unknown === 0
      ? []
      : [
          known.length > 0
            ? `${runsText(unknown)} of unknown cost, not in it${estimate.enabled ? '' : ' (--no-estimate)'}`
            : `cost unknown for ${runsText(unknown)}${estimate.enabled ? '' : ' (--no-estimate)'}`,
        ]
  const lines = [wrapParts(first, width), wrapParts(costLine === '' ? unknownPart : [costLine, ...unknownPart], width, '  ')]
  if (agg.unknownCost.size > 0) {
    const byModel = [...agg.unknownCost.entries()].sort(([, a], [, b]) => b - a)
    // six named, then a count of the rest; a seventh is named too (`1 more model` would take its place for nothing)
    const named = byModel.length === 7 ? 7 : 6
    const shown = byModel
      .slice(0, named)
      .map(([m, n]) =>
        m === NO_USAGE
          ? `${num(n)} recorded no usage`
          : m === NO_MODEL
            ? `${num(n)} named no model`
            : `${num(n)} used ${forTerminal(m)}${estimate.enabled ? ' (no price)' : ''}`,
      )
    if (byModel.length > named) shown.push(`${byModel.length - named} more models`)
    lines.push(style.dim(wrapParts([`unknown cost: ${shown[0] as string}`, ...shown.slice(1)], width, '  ')))
  }
  const o = agg.bounds
  if (o.since !== undefined || o.until !== undefined) {
    const range = `${o.since !== undefined ? `from ${forTerminal(o.since.text)} ` : ''}${o.until !== undefined ? `until ${forTerminal(o.until.text)} ` : ''}(${timeZone})`
    const left = agg.excluded.outsideRange + agg.excluded.withoutTime
    lines.push(
      style.dim(
        wrapParts(
          [
            range,
            `${num(left)} run${left === 1 ? '' : 's'} left out${agg.excluded.withoutTime > 0 ? ` (${num(agg.excluded.withoutTime)} without a time)` : ''}`,
          ],
          width,
        ),
      ),
    )
  } else if (agg.by === 'day' || agg.by === 'week' || agg.by === 'month')
    lines.push(style.dim(`${agg.by === 'day' ? 'days' : agg.by === 'week' ? 'weeks' : 'months'} in ${timeZone}`))
  if (t.runsWithEstimatedCost > 0) {
    lines.push(
      style.dim(
        wrapParts(
          [
            `~ priced per request from ${PRICE_PACKAGE} ${PRICE_DATA_VERSION}${estimate.tableFile !== undefined ? ` and ${forTerminal(estimate.tableFile)}` : ''}`,
          ],
          width,
        ),
      ),
    )
  }
  return `${lines.join('\n')}\n\n`
}
