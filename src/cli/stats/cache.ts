/**
 * The result cache of `stats`: the outcomes of each unit of work (one folder's files, or one file; `records.ts`
 * `unitsOf`) kept on disk, so a second report over the same folders reads only the files that changed.
 *
 * **What a unit's entry is keyed by** (all of it must be equal for the entry to be used):
 * - the job: every reading option (`RecordJob`: format, accepted endings, estimate settings with the `--prices`
 *   table's contents), the price data's version, the time zone (a log's time without a zone is read as a local
 *   time), the report's inputs (each set of inputs keeps its own file), and the build (the size and time of the
 *   bundled worker and of `records.js`: a new build of the reader never reads an older build's entries, and
 *   overwrites them). Not the day: an estimate is priced at its request's time, provider and prices alike
 *   (`bundledEstimator`), so a kept result does not depend on when it was read — but for requests without a time,
 *   which are never kept;
 * - each file of the unit, in order: its name, and its `stat` (device, inode, size, modification and change times
 *   in nanoseconds), so an appended, rewritten, replaced or touched file is read again;
 * - what a file's reading looks at beside it: a Claude Code session's `<session>/subagents/*.jsonl` (each one's
 *   name and `stat`, and the folder's absence), and the Gemini `.project_root` that names a project.
 *
 * **What is never kept**: a unit with a file that could not be read or whose reader crashed (a passing fault),
 * a unit read again without the records its earlier files claim (after a worker death: {@link StatsCache.spoil}),
 * two units with files shown under one label, and a unit with an estimate priced at the reading's clock rather
 * than at the request's time (`undated`: it depends on the hour, for prices by time of day). Standard input is
 * never cached. An entry read back is used only when every outcome and run has the shape `toRecord` gives, field
 * by field; a cache file that is not a regular file, or is over 256 MiB, is not read.
 *
 * **Where**: `RUN_OUTCOME_CACHE_DIR`, else `$XDG_CACHE_HOME/run-outcome`, else `$HOME/.cache/run-outcome`; one file
 * per set of inputs and reading options (`stats-<hash>.json`; a new build overwrites it), written whole to a
 * temporary name and renamed (two reports at once: the last one's file stays, each one whole). Entries unused for
 * {@link STALE_MS} are dropped when it is written, and so are cache files no report has written for that long and
 * temporary files an hour old (only the names it writes). Any fault of
 * the cache (no folder, a read-only disk, a damaged or foreign file) is silent and only means the files are read:
 * it never changes a result. `--no-cache` (or `RUN_OUTCOME_CACHE=0`) neither reads nor writes it.
 * @module
 */
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { isEndingKind } from '../../core/RunEnding.js'
import { PRICE_DATA_VERSION } from '../../prices/genaiPrices.js'
import type { FileOutcome, RecordJob } from './records.js'
import { subagentDirOf, subagentFilesOfSync } from '../../node/claudeSubagentFiles.js'
import { fileLabel, projectRootFileOf, type UnitFile } from './units.js'

/** The layout of the cache file; a file of another layout is ignored. */
const LAYOUT = 1

/** Entries not used for this long (milliseconds: 30 days) are dropped when the cache is written. @since 0.2.0 */
export const STALE_MS = 30 * 86_400_000

/** How stale an entry's last-use time may be before a report that uses it writes the cache again (an hour). */
const USE_STAMP_MS = 3_600_000

/** Past this many entries the least recently used are dropped when the cache is written. */
const MAX_ENTRIES = 50_000

/** A unit's entry, under the unit's name (its files' names): one per unit, replaced when its files change. */
interface Entry {
  /** The key of the files as they were read (see {@link unitKey}). */
  readonly key: string
  /** When the entry was last used (epoch milliseconds). */
  readonly used: number
  readonly outcomes: ReadonlyArray<FileOutcome>
}

interface CacheFile {
  readonly layout: number
  readonly job: string
  readonly entries: Record<string, Entry>
}

/**
 * Where the cache lives for an environment: `RUN_OUTCOME_CACHE_DIR`, else `$XDG_CACHE_HOME/run-outcome`, else
 * `$HOME/.cache/run-outcome`; `undefined` when `RUN_OUTCOME_CACHE` is `0`, `false`, `no` or `off`, or no folder is
 * named (no `HOME`).
 * @since 0.2.0
 */
export const cacheDirOf = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const off = env['RUN_OUTCOME_CACHE']?.trim().toLowerCase()
  if (off === '0' || off === 'false' || off === 'no' || off === 'off') return undefined
  const own = env['RUN_OUTCOME_CACHE_DIR']
  if (own !== undefined && own !== '') return own
  const xdg = env['XDG_CACHE_HOME']
  if (xdg?.startsWith('/')) return join(xdg, 'run-outcome')
  // no HOME (a bare environment): no cache rather than a guess
  const home = env['HOME']
  return home === undefined || !home.startsWith('/') ? undefined : join(home, '.cache', 'run-outcome')
}

/** `dev:ino:size:mtime:ctime` (nanoseconds) of a path, or `-` when there is nothing there. */
const statKey = (path: string | Buffer): string => {
  let s: ReturnType<typeof statSync> | undefined
  try {
    s = statSync(path, { bigint: true, throwIfNoEntry: false })
  } catch (e) {
    // a path through a plain file (`x/subagents` beside `x.jsonl`) names nothing, as a missing one; any other
    // fault makes the unit read
    if ((e as { code?: unknown }).code === 'ENOTDIR') return '-'
    throw e
  }
  return s === undefined ? '-' : `${s.isDirectory() ? 'd' : 'f'}${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
}

/**
 * The build of the reader whose files are in `statsDir` (dist/cli/stats): the bundled worker and the record reader,
 * by stat key, or `undefined` without the bundle (no single file then changes with every build of the reader: no
 * cache). The caller names the folder: inside the CLI's own bundle this module's URL is the bundle's, not its own.
 * @since 0.3.0
 */
export const buildKeyIn = (statsDir: string): string | undefined => {
  const bundle = statKey(join(statsDir, 'worker.bundle.js'))
  if (bundle === '-') return undefined
  return `${bundle}|${statKey(join(statsDir, 'records.js'))}`
}

/**
 * What a file's reading looks at besides the file (see the module doc), as stat keys: found by the same rules the
 * reader follows (`claudeSubagentFiles.ts`, `projectRootFileOf`). `roots` remembers the `.project_root` of each
 * folder for one report (many files share a folder).
 */
const besideKey = (file: UnitFile, roots: Map<string, string>): string => {
  let out = ''
  // a Claude Code session's folder of subagent files (`replay` and `stats` attach them; only beside string paths)
  const sub = typeof file === 'string' ? subagentDirOf(file) : undefined
  if (sub !== undefined) {
    out = statKey(sub)
    if (out !== '-') {
      try {
        for (const f of subagentFilesOfSync(file as string)) out += `,${basename(f)}=${statKey(f)}`
      } catch {
        out += ',?'
      }
    }
  }
  // the Gemini project root beside a chat file, named from the label as `projectOf` names it (the real folder
  // when only the file's own name is not UTF-8)
  const rootFile = projectRootFileOf(fileLabel(file))
  let root = roots.get(rootFile)
  if (root === undefined) {
    root = statKey(rootFile)
    roots.set(rootFile, root)
  }
  return `${out};${root}`
}

/** The name of a unit: its files' names, hashed. */
const unitName = (files: ReadonlyArray<UnitFile>): string => {
  const h = createHash('sha256')
  for (const f of files) h.update(`${fileLabel(f)}\n`)
  return h.digest('base64url')
}

/** The key of one unit's files as they are now. Throws when a file cannot be looked at (it is then read). */
const unitKey = (files: ReadonlyArray<UnitFile>, roots: Map<string, string>): string => {
  const h = createHash('sha256')
  for (const f of files) {
    const path = typeof f === 'string' ? f : Buffer.from(f.path.buffer, f.path.byteOffset, f.path.byteLength)
    h.update(fileLabel(f))
    h.update('\0')
    h.update(statKey(path))
    h.update('\0')
    h.update(besideKey(f, roots))
    h.update('\n')
  }
  return h.digest('base64url')
}

const isCount = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x)
const isCost = (x: unknown): boolean => x === null || isCount(x)
const isText = (x: unknown): boolean => x === null || typeof x === 'string'
const SKIP_REASONS: ReadonlySet<unknown> = new Set(['undetected', 'unreadable', 'too-large', 'not-json', 'crashed'])

/** Whether a record (a run's or a model row's) has the five token counts and a cost. */
const hasTokensAndCost = (x: Record<string, unknown>): boolean =>
  isCount(x['inputTokens']) &&
  isCount(x['cacheReadTokens']) &&
  isCount(x['cacheWriteTokens']) &&
  isCount(x['outputTokens']) &&
  isCount(x['reasoningTokens']) &&
  isCost(x['costUsd'])

/** Whether a kept model row has the shape `toRecord` gives. */
const wellFormedModel = (m: unknown): boolean =>
  typeof m === 'object' && m !== null && typeof (m as Record<string, unknown>)['model'] === 'string' && hasTokensAndCost(m as Record<string, unknown>)

/** Whether a kept run record has the shape `toRecord` gives, field by field. */
const wellFormedRun = (r: unknown, file: string): boolean => {
  if (typeof r !== 'object' || r === null) return false
  const x = r as Record<string, unknown>
  return (
    x['file'] === file &&
    isCount(x['index']) &&
    typeof x['format'] === 'string' &&
    isEndingKind(x['kind']) &&
    typeof x['detail'] === 'string' &&
    typeof x['success'] === 'boolean' &&
    isCount(x['turns']) &&
    isCount(x['toolCalls']) &&
    hasTokensAndCost(x) &&
    typeof x['estimated'] === 'boolean' &&
    isCost(x['durationMs']) &&
    isText(x['startedAt']) &&
    isText(x['endedAt']) &&
    isText(x['sessionId']) &&
    isText(x['project']) &&
    Array.isArray(x['models']) &&
    (x['models'] as Array<unknown>).every(wellFormedModel)
  )
}

/**
 * Whether a kept outcome has the shape of one, for `file`, down to each run's fields: a cache file is read back,
 * never trusted (a damaged or hand-edited one must not crash or change a report).
 */
const wellFormed = (o: unknown, file: UnitFile): boolean => {
  if (typeof o !== 'object' || o === null) return false
  const x = o as Record<string, unknown>
  const label = fileLabel(file)
  if (x['file'] !== label) return false
  if (x['ok'] === true)
    return (
      typeof x['format'] === 'string' &&
      (x['protocolError'] === undefined || typeof x['protocolError'] === 'string') &&
      (x['notes'] === undefined || (Array.isArray(x['notes']) && (x['notes'] as Array<unknown>).every((n) => typeof n === 'string'))) &&
      Array.isArray(x['runs']) &&
      (x['runs'] as Array<unknown>).every((r) => wellFormedRun(r, label))
    )
  return x['ok'] === false && SKIP_REASONS.has(x['why']) && typeof x['message'] === 'string'
}

/** Whether a unit's outcomes may be kept: every file read, no estimate on the reading's clock. */
const keepable = (outcomes: ReadonlyArray<FileOutcome>): boolean =>
  outcomes.every((o) => (o.ok ? o.undated !== true : o.why !== 'crashed' && o.why !== 'unreadable'))

/** The names of the cache files and of their temporary copies. */
const CACHE_NAME = /^stats-[A-Za-z0-9_-]{24}\.json$/
const TMP_NAME = /^stats-[A-Za-z0-9_-]{24}\.json\.\d+\.\d+\.tmp$/

/**
 * Deletes the cache files no report has written for {@link STALE_MS} (other inputs or options, not used since) and
 * temporary files an hour old (left by a report killed while it wrote).
 */
const dropStale = (dir: string, keep: string, now: number): void => {
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      // only the names this module writes (`stats-` and 24 characters of a hash): other files are left alone
      const cacheFile = CACHE_NAME.test(name)
      if (path === keep || !(cacheFile || TMP_NAME.test(name))) continue
      const s = statSync(path, { throwIfNoEntry: false })
      if (s !== undefined && s.mtimeMs < (cacheFile ? now - STALE_MS : now - 3_600_000)) unlinkSync(path)
    }
  } catch {
    // a folder that cannot be listed keeps its files
  }
}

/**
 * One report's use of the cache: {@link StatsCache.lookup} each unit before reading it, {@link StatsCache.record}
 * every outcome read, {@link StatsCache.save} at the end. Never throws.
 * @since 0.2.0
 */
export interface StatsCache {
  /** The unit's outcomes as kept, in its files' order, or `undefined` (then read it and record its outcomes). */
  lookup(files: ReadonlyArray<UnitFile>): ReadonlyArray<FileOutcome> | undefined
  /** Records the outcome of a file of a unit looked up and missed. */
  record(outcome: FileOutcome): void
  /** Marks the units of these files as not to be kept (read in a way that may differ from a proper reading). */
  spoil(files: ReadonlyArray<UnitFile>): void
  /** Writes the entries used and made by this report (and the others' entries still fresh). */
  save(): void
}

/** A cache file larger than this (bytes) is not read (nor written): 256 MiB. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024

/** The text of the cache file at `file`, when it is a regular file of a sane size; `undefined` otherwise. */
const readCacheText = (file: string): string | undefined => {
  let fd: number | undefined
  try {
    // opened without blocking and checked before reading: a FIFO or a device at the cache's path is no cache
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return undefined
    return readFileSync(fd, 'utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Options of {@link openStatsCache}. @since 0.2.0 */
export interface StatsCacheOptions {
  /**
   * What the report reads (its inputs, as text): a report keeps its own cache file, so a report over one folder
   * does not read the entries of every other.
   */
  readonly scope: string
  /** The reader's build ({@link buildKeyIn}); `undefined`: no cache. */
  readonly build: string | undefined
  /** The clock (epoch milliseconds; default now). */
  readonly now?: number
  /** The most run records held for new entries (default {@link MAX_CACHED_RUNS}, 500,000). */
  readonly maxRuns?: number
}

/** A unit being read: its name and key, and its outcomes so far; `spoiled` when they must not be kept. */
interface Pending {
  readonly name: string
  readonly key: string
  readonly size: number
  readonly outcomes: Array<FileOutcome>
  /** The outcomes recorded (held in `outcomes` unless spoiled) and the run records among them. */
  got: number
  runs: number
  spoiled: boolean
}

/**
 * The most run records one report holds to keep in the cache (about 350 bytes each in memory, more as JSON): past
 * it the file would pass {@link MAX_CACHE_BYTES} and not be written, so the later units are not held for it (a
 * report over millions of runs keeps its memory for the report). 500,000.
 */
const MAX_CACHED_RUNS = 500_000

/**
 * Opens the cache of `job` under `dir` (see the module doc), or `undefined` when this build has no bundled worker
 * to key entries by. Never throws.
 * @since 0.2.0
 */
export const openStatsCache = (dir: string, job: RecordJob, options: StatsCacheOptions): StatsCache | undefined => {
  const build = options.build
  if (build === undefined) return undefined
  const now = options.now ?? Date.now()
  const maxRuns = options.maxRuns ?? MAX_CACHED_RUNS
  // the time zone reads the logs' times that name none (Date.parse takes them as local times)
  const zone = `${Intl.DateTimeFormat().resolvedOptions().timeZone}|${process.env['TZ'] ?? ''}`
  const jobText = JSON.stringify({ job, prices: PRICE_DATA_VERSION, build, zone, scope: options.scope })
  // named without the build: a new build overwrites its predecessor's file instead of adding one
  const nameText = JSON.stringify({ job, zone, scope: options.scope })
  const file = join(dir, `stats-${createHash('sha256').update(nameText).digest('base64url').slice(0, 24)}.json`)
  let old: Record<string, Entry> = Object.create(null) as Record<string, Entry>
  try {
    const text = readCacheText(file)
    const parsed = text === undefined ? null : (JSON.parse(text) as Partial<CacheFile> | null)
    if (parsed !== null && parsed.layout === LAYOUT && parsed.job === jobText && typeof parsed.entries === 'object' && parsed.entries !== null)
      old = Object.assign(Object.create(null) as Record<string, Entry>, parsed.entries)
  } catch {
    // no cache yet, or one that cannot be read: every unit is read
  }
  const entryOf = (k: string): Entry | undefined => {
    const e = old[k] as Entry | null | undefined
    return typeof e === 'object' && e !== null ? e : undefined
  }
  const used: Record<string, Entry> = Object.create(null) as Record<string, Entry>
  // the units being read, by file label; labels already looked up (two files shown under one label cannot be told
  // apart by their outcomes: neither unit is kept)
  const pending = new Map<string, Pending>()
  const labels = new Set<string>()
  const roots = new Map<string, string>()
  // units looked up and not found as they are: read again, so their old entries go
  const missed = new Set<string>()
  let changed = false
  // the run records held for the entries made by this report (MAX_CACHED_RUNS)
  let keptRuns = 0
  return {
    lookup(files) {
      let clash = false
      for (const f of files) {
        const label = fileLabel(f)
        if (labels.has(label)) {
          clash = true
          const p = pending.get(label)
          if (p !== undefined) p.spoiled = true
        }
        labels.add(label)
      }
      if (clash) return undefined
      let name: string
      let key: string
      try {
        name = unitName(files)
        key = unitKey(files, roots)
      } catch {
        return undefined
      }
      const e = entryOf(name)
      if (
        e !== undefined &&
        e.key === key &&
        Array.isArray(e.outcomes) &&
        e.outcomes.length === files.length &&
        e.outcomes.every((o, i) => wellFormed(o, files[i] as UnitFile))
      ) {
        // a use is written down at most once an hour: a report over unchanged files writes nothing
        if (typeof e.used === 'number' && now - e.used <= USE_STAMP_MS) used[name] = e
        else {
          used[name] = { key, used: now, outcomes: e.outcomes }
          changed = true
        }
        return e.outcomes
      }
      missed.add(name)
      const p: Pending = { name, key, size: files.length, outcomes: [], got: 0, runs: 0, spoiled: false }
      for (const f of files) pending.set(fileLabel(f), p)
      return undefined
    },
    spoil(files) {
      for (const f of files) {
        const p = pending.get(fileLabel(f))
        if (p !== undefined) p.spoiled = true
      }
    },
    record(outcome) {
      const p = pending.get(outcome.file)
      if (p === undefined) return
      pending.delete(outcome.file)
      p.got++
      if (outcome.ok) p.runs += outcome.runs.length
      if (keptRuns + p.runs > maxRuns) p.spoiled = true
      // a unit that will not be kept holds none of its outcomes
      if (p.spoiled) p.outcomes.length = 0
      else p.outcomes.push(outcome)
      if (p.got < p.size) return
      // a unit's outcomes arrive in its files' order (one reader per unit); kept in that order
      if (!p.spoiled && keepable(p.outcomes)) {
        used[p.name] = { key: p.key, used: now, outcomes: p.outcomes }
        keptRuns += p.runs
        changed = true
      }
    },
    save() {
      const entries: Record<string, Entry> = Object.assign(Object.create(null) as Record<string, Entry>, used)
      let n = Object.keys(used).length
      // the other reports' entries (other folders), the most recently used first, while fresh and room is left; a
      // unit read again this time never keeps its old entry
      const others: Array<string> = []
      for (const k of Object.keys(old)) {
        if (k in used) continue
        const e = entryOf(k)
        if (e !== undefined && !missed.has(k) && typeof e.used === 'number' && now - e.used < STALE_MS) others.push(k)
        else changed = true
      }
      others.sort((a, b) => (old[b] as Entry).used - (old[a] as Entry).used)
      for (const k of others) {
        if (n >= MAX_ENTRIES) {
          changed = true
          break
        }
        entries[k] = old[k] as Entry
        n++
      }
      if (!changed) return
      dropStale(dir, file, now)
      const tmp = `${file}.${process.pid}.${Math.floor(Math.random() * 1e9)}.tmp`
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const text = JSON.stringify({ layout: LAYOUT, job: jobText, entries } satisfies CacheFile)
        // past the size a report would read back, nothing is written (the files are read next time)
        if (text.length > MAX_CACHE_BYTES) return
        writeFileSync(tmp, text, { mode: 0o600 })
        renameSync(tmp, file)
      } catch {
        // a cache that cannot be written only means the next report reads the files again
        try {
          unlinkSync(tmp)
        } catch {
          // nothing was written
        }
      }
    },
  }
}
