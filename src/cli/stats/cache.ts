/**
 * The result cache of `stats`: the outcomes of each unit of work (one folder's files, or one file; `records.ts`
 * `unitsOf`) kept on disk, so a second report over the same folders reads only the files that changed.
 *
 * **What a unit's entry is keyed by** (all of it must be equal for the entry to be used):
 * - the job: every reading option (`RecordJob`: format, accepted endings, estimate settings with the `--prices`
 *   table's contents), the price data's version, the UTC day (the estimator's clock: a request without a time of
 *   its own, and the choice of a model's provider, take that day's prices), and the build (the size and time of
 *   the bundled worker and of `records.js`: a new build of the reader never reads an older build's entries);
 * - each file of the unit, in order: its name, and its `stat` (device, inode, size, modification and change times
 *   in nanoseconds), so an appended, rewritten, replaced or touched file is read again;
 * - what a file's reading looks at beside it: a Claude Code session's `<session>/subagents/*.jsonl` (each one's
 *   name and `stat`, and the folder's absence), and the Gemini `.project_root` that names a project.
 *
 * **What is never kept**: a unit with a file that could not be read or whose reader crashed (a passing fault),
 * and a unit with an estimate priced at the reading's clock rather than at the request's time (`undated`: it
 * depends on the hour, for prices by time of day). Standard input is never cached.
 *
 * **Where**: `RUN_OUTCOME_CACHE_DIR`, else `$XDG_CACHE_HOME/run-outcome`, else `$HOME/.cache/run-outcome`; one file
 * per job key (`stats-<hash>.json`), written whole to a temporary name and renamed (two reports at once: the last
 * one's file stays, each one whole). Entries unused for {@link STALE_MS} are dropped when it is written, and files of
earlier days (which no report can use again) are deleted. Any fault of
 * the cache (no folder, a read-only disk, a damaged or foreign file) is silent and only means the files are read:
 * it never changes a result. `--no-cache` (or `RUN_OUTCOME_CACHE=0`) neither reads nor writes it.
 * @module
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PRICE_DATA_VERSION } from '../../prices/genaiPrices.js'
import type { FileOutcome, RecordJob } from './records.js'
import { fileLabel, type UnitFile } from './units.js'

/** The layout of the cache file; a file of another layout is ignored. */
const LAYOUT = 1

/** Entries not used for this long (milliseconds: 30 days) are dropped when the cache is written. @since 0.2.0 */
export const STALE_MS = 30 * 86_400_000

/** How stale an entry's last-use time may be before a report that uses it writes the cache again (an hour). */
const USE_STAMP_MS = 3_600_000

/** Past this many entries the least recently used are dropped when the cache is written. */
const MAX_ENTRIES = 200_000

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
 * `$HOME/.cache/run-outcome`; `undefined` when `RUN_OUTCOME_CACHE=0` or no folder is named (no `HOME`).
 * @since 0.2.0
 */
export const cacheDirOf = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  if (env['RUN_OUTCOME_CACHE'] === '0') return undefined
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
  const s = statSync(path, { bigint: true, throwIfNoEntry: false })
  return s === undefined ? '-' : `${s.isDirectory() ? 'd' : 'f'}${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
}

/** The build of the reader: the bundled worker and the record reader, by size and time (`-` for one absent). */
const buildKey = (): string | undefined => {
  const here = dirname(fileURLToPath(import.meta.url))
  const bundle = statKey(join(here, 'worker.bundle.js'))
  // without the bundle there is no single file that changes with every build of the reader: no cache
  if (bundle === '-') return undefined
  return `${bundle}|${statKey(join(here, 'records.js'))}`
}

/**
 * What a file's reading looks at besides the file (see the module doc), as stat keys. `roots` remembers the
 * `.project_root` of each folder for one report (many files share a folder).
 */
const besideKey = (file: UnitFile, roots: Map<string, string>): string => {
  if (typeof file !== 'string') return ''
  const dir = dirname(file)
  let out = ''
  // a Claude Code session's folder of subagent files (`replay` and `stats` attach them)
  if (SESSION_FILE.test(file)) {
    const sub = join(dir, basename(file).replace(SESSION_FILE, ''), 'subagents')
    const k = statKey(sub)
    out = k
    if (k !== '-') {
      try {
        for (const name of readdirSync(sub).sort()) out += `,${name}=${statKey(join(sub, name))}`
      } catch {
        out += ',?'
      }
    }
  }
  // the Gemini project root beside a chat file
  const projectDir = basename(dir) === 'chats' ? dirname(dir) : dir
  let root = roots.get(projectDir)
  if (root === undefined) {
    root = statKey(join(projectDir, '.project_root'))
    roots.set(projectDir, root)
  }
  return `${out};${root}`
}

const SESSION_FILE = /\.jsonl(?:\.gz)?$/

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

/** Whether a kept outcome has the shape of one, for `file` (a cache file is read back, never trusted blindly). */
const wellFormed = (o: FileOutcome | null | undefined, file: UnitFile): boolean =>
  typeof o === 'object' &&
  o !== null &&
  o.file === fileLabel(file) &&
  (o.ok === true ? typeof o.format === 'string' && Array.isArray(o.runs) : o.ok === false && typeof o.why === 'string' && typeof o.message === 'string')

/** Whether a unit's outcomes may be kept: every file read, no estimate on the reading's clock. */
const keepable = (outcomes: ReadonlyArray<FileOutcome>): boolean =>
  outcomes.every((o) => (o.ok ? o.undated !== true : o.why !== 'crashed' && o.why !== 'unreadable'))

/**
 * Deletes the cache files written before today (UTC: the day is part of their key, so none can be used again) and
 * temporary files an hour old (left by a report killed while it wrote).
 */
const dropStale = (dir: string, keep: string, now: number): void => {
  const midnight = now - (now % 86_400_000)
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const cacheFile = /^stats-[\w-]+\.json$/.test(name)
      if (path === keep || !(cacheFile || /^stats-[\w-]+\.json\.\d+\.\d+\.tmp$/.test(name))) continue
      const s = statSync(path, { throwIfNoEntry: false })
      if (s !== undefined && s.mtimeMs < (cacheFile ? midnight : now - 3_600_000)) unlinkSync(path)
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
  /** Writes the entries used and made by this report (and the others' entries still fresh). */
  save(): void
  /** Units answered from the cache, and units read (work counts for tests). */
  readonly counts: { hits: number; misses: number }
}

/**
 * Opens the cache of `job` under `dir` (see the module doc), or `undefined` when this build has no bundled worker
 * to key entries by. `now` is the clock (epoch milliseconds).
 * @since 0.2.0
 */
export const openStatsCache = (dir: string, job: RecordJob, now: number = Date.now()): StatsCache | undefined => {
  const build = buildKey()
  if (build === undefined) return undefined
  const day = new Date(now).toISOString().slice(0, 10)
  const jobText = JSON.stringify({ job, prices: PRICE_DATA_VERSION, day, build })
  const file = join(dir, `stats-${createHash('sha256').update(jobText).digest('base64url').slice(0, 24)}.json`)
  let old: Record<string, Entry> = Object.create(null) as Record<string, Entry>
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile> | null
    if (parsed !== null && parsed.layout === LAYOUT && parsed.job === jobText && typeof parsed.entries === 'object' && parsed.entries !== null)
      old = Object.assign(Object.create(null) as Record<string, Entry>, parsed.entries)
  } catch {
    // no cache yet, or one that cannot be read: every unit is read
  }
  const used: Record<string, Entry> = Object.create(null) as Record<string, Entry>
  // the units being read: their key, the outcomes so far, and how many files they have
  const pending = new Map<string, { readonly name: string; readonly key: string; readonly size: number; readonly outcomes: Array<FileOutcome> }>()
  const counts = { hits: 0, misses: 0 }
  const roots = new Map<string, string>()
  // units looked up and not found as they are: read again, so their old entries go
  const missed = new Set<string>()
  let changed = false
  return {
    counts,
    lookup(files) {
      let name: string
      let key: string
      try {
        name = unitName(files)
        key = unitKey(files, roots)
      } catch {
        counts.misses++
        return undefined
      }
      const e = old[name]
      if (
        e !== undefined &&
        e.key === key &&
        Array.isArray(e.outcomes) &&
        e.outcomes.length === files.length &&
        e.outcomes.every((o, i) => wellFormed(o, files[i] as UnitFile))
      ) {
        counts.hits++
        // a use is written down at most once an hour: a report over unchanged files writes nothing
        if (typeof e.used === 'number' && now - e.used <= USE_STAMP_MS) used[name] = e
        else {
          used[name] = { key, used: now, outcomes: e.outcomes }
          changed = true
        }
        return e.outcomes
      }
      counts.misses++
      missed.add(name)
      const p = { name, key, size: files.length, outcomes: [] }
      for (const f of files) pending.set(fileLabel(f), p)
      return undefined
    },
    record(outcome) {
      const p = pending.get(outcome.file)
      if (p === undefined) return
      pending.delete(outcome.file)
      p.outcomes.push(outcome)
      if (p.outcomes.length < p.size) return
      // a unit's outcomes arrive in its files' order (one reader per unit); kept in that order
      if (keepable(p.outcomes)) {
        used[p.name] = { key: p.key, used: now, outcomes: p.outcomes }
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
        const e = old[k] as Entry
        if (!missed.has(k) && typeof e.used === 'number' && now - e.used < STALE_MS) others.push(k)
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
        writeFileSync(tmp, JSON.stringify({ layout: LAYOUT, job: jobText, entries } satisfies CacheFile), { mode: 0o600 })
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
