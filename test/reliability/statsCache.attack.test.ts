/**
 * Attack on the result cache of `stats` (src/cli/stats/cache.ts), through the built CLI. The oracle: for any tree
 * and options, `stats --json ARGS` with the cache (cold, warm, and after the files change) prints exactly what
 * `stats --json --no-cache ARGS` prints over the same files at that moment — same stdout bytes, same stderr, same
 * exit status — and a cache that is damaged or in an odd place never crashes, hangs or touches files it did not
 * write. test/cli/statsCache.test.ts covers the basics (appended, touched and rewritten files, subagent files, a
 * `.project_root`, a damaged cache file, earlier days' files); this file covers what it does not.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const fixtures = new URL('../fixtures/', import.meta.url).pathname
const fixtureHome = join(fixtures, 'homes/basic')
const geminiA = join(fixtures, 'gemini-session/session-2025-10-29T10-40-359abdd0.json')
const geminiB = join(fixtures, 'gemini-session/session-2025-10-27T19-55-981c87cb.json')
const transcript = join(fixtures, 'claude-code-transcript/task_sdk.jsonl')

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface Opts {
  readonly env?: Record<string, string | undefined>
  readonly cwd?: string
  readonly timeout?: number
}

/** The environment of a run: the cache on (the test config turns it off), in `cache` unless `cache` is undefined. */
const envOf = (cache: string | undefined, extra: Record<string, string | undefined> = {}): Record<string, string> => {
  const env: Record<string, string | undefined> = { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), TZ: 'UTC', NO_COLOR: '1', ...extra }
  if (cache !== undefined) env['RUN_OUTCOME_CACHE_DIR'] = cache
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v
  return out
}

/** `stats --json ARGS` of the built CLI, with the cache in `cache`. */
const stats = (cache: string | undefined, args: ReadonlyArray<string>, o: Opts = {}): Run => {
  const r = spawnSync(process.execPath, [binPath, 'stats', '--json', ...args], {
    cwd: o.cwd ?? repoRoot,
    encoding: 'utf8',
    env: envOf(cache, o.env),
    timeout: o.timeout ?? 30_000,
    killSignal: 'SIGKILL',
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The oracle: the same command without the cache, over the same files now. */
const truth = (args: ReadonlyArray<string>, o: Opts = {}): Run => stats(undefined, [...args, '--no-cache'], o)

const same = (r: Run): [number | null, string, string] => [r.code, r.stdout, r.stderr]

/** Asserts that the cached run of `args` prints what `--no-cache` prints, and returns the cached run. */
const agrees = (cache: string, args: ReadonlyArray<string>, o: Opts = {}): Run => {
  const t = truth(args, o)
  const c = stats(cache, args, o)
  expect(same(c)).toStrictEqual(same(t))
  return c
}

const scratch = (tag: string): string => mkdtempSync(join(tmpdir(), `ro-cache-attack-${tag}-`))

/** A copy of the fixture home, and a cache folder beside it (not yet made). */
const freshHome = (): { home: string; cache: string } => {
  const dir = scratch('home')
  const home = join(dir, 'home')
  cpSync(fixtureHome, home, { recursive: true })
  return { home, cache: join(dir, 'cache') }
}

const cacheFileOf = (cache: string): string => {
  const names = readdirSync(cache).filter((n) => /^stats-.*\.json$/.test(n))
  expect(names).toHaveLength(1)
  return join(cache, names[0] as string)
}

type Outcome = { file: string; ok: boolean; runs?: Array<unknown> }
type CacheDoc = { entries: Record<string, { key: string; used: number; outcomes: Array<Outcome> } | null> }

/** Rewrites the one cache file of `cache` with `edit`. */
const editCache = (cache: string, edit: (c: CacheDoc) => void): void => {
  const file = cacheFileOf(cache)
  const c = JSON.parse(readFileSync(file, 'utf8')) as CacheDoc
  edit(c)
  writeFileSync(file, JSON.stringify(c))
}

/** Every kept run record, to edit in place. */
const keptRuns = (c: CacheDoc): Array<Record<string, unknown>> =>
  Object.values(c.entries).flatMap((e) => (e === null ? [] : e.outcomes.flatMap((o) => (o.runs ?? []) as Array<Record<string, unknown>>)))

/** A Gemini project folder (`tmp/<hash>/chats`) under a fresh folder. */
const geminiProject = (): { root: string; project: string; chats: string; cache: string } => {
  const root = scratch('gemini')
  const project = join(root, 'tmp', 'abcdef0123456789abcdef')
  const chats = join(project, 'chats')
  mkdirSync(chats, { recursive: true })
  return { root: join(root, 'tmp'), project, chats, cache: join(root, 'cache') }
}

/** `dir` + `/` + the bytes of `name` with byte 0xff where `\xff` is written: a name that is not valid UTF-8. */
const bytePath = (dir: string, before: string, after: string): Buffer =>
  Buffer.concat([Buffer.from(`${dir}/${before}`), Buffer.from([0xff]), Buffer.from(after)])

/** The fault-injecting preload of the worker test (CommonJS, run in each worker thread). */
const PRELOAD = `const fs = require('node:fs')
const { isMainThread, MessagePort } = require('node:worker_threads')
const { syncBuiltinESMExports } = require('node:module')
if (!isMainThread) {
  const marks = process.env.ATTACK_MARKS
  const openSync = fs.openSync
  fs.openSync = function (p, ...rest) {
    const s = String(p)
    if (s.includes('SLOW')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
    if (s.includes('FLAKY')) {
      const m = \`\${marks}/flaky\`
      const n = fs.existsSync(m) ? Number(fs.readFileSync(m, 'utf8')) + 1 : 1
      fs.writeFileSync(m, String(n))
      if (n === 2) process.exit(7)
    }
    return openSync.call(this, p, ...rest)
  }
  const post = MessagePort.prototype.postMessage
  MessagePort.prototype.postMessage = function (m, ...rest) {
    if (m && m.done === true && Array.isArray(m.outcomes) && m.outcomes.some((o) => String(o.file).includes('POSTDIE'))) {
      const k = \`\${marks}/postdie\`
      if (!fs.existsSync(k)) {
        fs.writeFileSync(k, '1')
        process.exit(7)
      }
    }
    return post.call(this, m, ...rest)
  }
  syncBuiltinESMExports()
}
`

describe('stats cache under attack (defects found and fixed)', () => {
  it('a hand-edited cache with a null entry, a null run or a cost as a string does not crash the report', () => {
    const { home, cache } = freshHome()
    const t = truth([home])
    expect(t.code).toBe(0)
    const edits: ReadonlyArray<[string, (c: CacheDoc) => void]> = [
      [
        'entry null',
        (c) => {
          c.entries[Object.keys(c.entries)[0] as string] = null
        },
      ],
      [
        'runs [null]',
        (c) => {
          for (const e of Object.values(c.entries)) for (const o of e?.outcomes ?? []) if (o.ok) o.runs = [null]
        },
      ],
      [
        'costUsd "1"',
        (c) => {
          for (const r of keptRuns(c)) r['costUsd'] = '1'
        },
      ],
    ]
    for (const [what, edit] of edits) {
      rmSync(cache, { recursive: true, force: true })
      expect(stats(cache, [home]).stdout).toBe(t.stdout)
      editCache(cache, edit)
      const r = stats(cache, [home])
      expect({ what, stderr: r.stderr, code: r.code }).toStrictEqual({ what, stderr: t.stderr, code: t.code })
      expect(r.stdout).toBe(t.stdout)
    }
  })

  it('kept runs of the wrong shape (numbers as strings, a run that is a string, an unknown ending) are not used', () => {
    const { home, cache } = freshHome()
    const t = truth([home])
    const edits: ReadonlyArray<[string, (c: CacheDoc) => void]> = [
      ['tokens as strings', (c) => keptRuns(c).forEach((r) => (r['outputTokens'] = String(r['outputTokens'])))],
      [
        'a run that is a string',
        (c) => {
          for (const e of Object.values(c.entries)) for (const o of e?.outcomes ?? []) if (o.ok) o.runs = ['x']
        },
      ],
      ['an unknown ending', (c) => keptRuns(c).forEach((r) => (r['kind'] = 'nonsense'))],
      ['a start time as a number', (c) => keptRuns(c).forEach((r) => (r['startedAt'] = 12_345))],
    ]
    for (const [what, edit] of edits) {
      rmSync(cache, { recursive: true, force: true })
      stats(cache, [home])
      editCache(cache, edit)
      const r = stats(cache, [home])
      expect({ what, same: r.stdout === t.stdout, code: r.code }).toStrictEqual({ what, same: true, code: t.code })
    }
  })

  it('a Gemini chat file whose name is not UTF-8: a .project_root written later changes its project at once', () => {
    const g = geminiProject()
    writeFileSync(bytePath(g.chats, 'session-', '.json'), readFileSync(geminiA))
    const args = [g.root, '--by', 'project']
    const before = agrees(g.cache, args)
    expect(Object.keys((JSON.parse(before.stdout) as { groups: object }).groups)).toStrictEqual(['gemini:abcdef01'])
    writeFileSync(join(g.project, '.project_root'), '/work/gemini-app\n')
    const after = agrees(g.cache, args)
    expect(Object.keys((JSON.parse(after.stdout) as { groups: object }).groups)).toStrictEqual(['/work/gemini-app'])
  })

  it('two chat files shown under one label (a name holding the text \\xff, one holding the byte 0xff): every run agrees', () => {
    const g = geminiProject()
    writeFileSync(bytePath(g.chats, 'sess', '.json'), readFileSync(geminiA))
    writeFileSync(join(g.chats, 'sess\\xff.json'), readFileSync(geminiB))
    const runs = [agrees(g.cache, [g.root]), agrees(g.cache, [g.root]), agrees(g.cache, [g.root])]
    // the two sessions hold 1 and 3 runs
    for (const r of runs) expect((JSON.parse(r.stdout) as { runs: number }).runs).toBe(4)
  })

  it('a report never deletes files it did not write in RUN_OUTCOME_CACHE_DIR (a shared folder holding old stats-*.json)', () => {
    const { home } = freshHome()
    const shared = scratch('shared')
    const mine = join(shared, 'stats-2025-q3.json')
    writeFileSync(mine, '{"quarter":"Q3","sessions":1234}\n')
    const old = new Date('2025-10-01T00:00:00Z')
    utimesSync(mine, old, old)
    expect(stats(shared, [home]).code).toBe(0)
    expect(existsSync(mine)).toBe(true)
  })

  it('a worker that dies while re-reading a finished file (a passing fault): the unit read without K15 is not kept', () => {
    // a preload into every worker thread (Node runs `--require` preloads in workers): a worker reading a file named
    // SLOW takes 200 ms over it (so its outcome is posted in a batch before the unit ends); one about to post the
    // unit's last outcomes with a file named POSTDIE dies, once, before posting (every file done, none to blame:
    // the unit is queued again with the posted files to be re-read silently); one opening a file named FLAKY for
    // the second time dies (a death while re-reading a file whose outcome was given: the rest of the unit is read
    // without it, so its copies count twice, as pool.ts documents for that run alone)
    const dir = scratch('worker')
    const preload = join(dir, 'preload.cjs')
    writeFileSync(preload, PRELOAD)
    const marks = join(dir, 'marks')
    mkdirSync(marks)
    const logs = join(dir, 'logs')
    mkdirSync(join(logs, 'p'), { recursive: true })
    mkdirSync(join(logs, 'q'), { recursive: true })
    const cc = join(fixtures, 'claude-code-transcript')
    // a resumed session (K15): 2-resumed.jsonl repeats the first prompt and answer of 1-original.jsonl
    cpSync(join(cc, 'resumed-session/1-original.jsonl'), join(logs, 'p', 'a-FLAKY.jsonl'))
    cpSync(join(cc, 'small.jsonl'), join(logs, 'p', 'b-SLOW.jsonl'))
    cpSync(join(cc, 'resumed-session/2-resumed.jsonl'), join(logs, 'p', 'c-POSTDIE.jsonl'))
    cpSync(join(cc, 'task_sdk.jsonl'), join(logs, 'q', 'x.jsonl'))
    cpSync(join(cc, 'full-session-two.jsonl'), join(logs, 'q', 'y.jsonl'))
    const cache = join(dir, 'cache')
    const args = [logs, '--jobs', '2']
    const faulty = spawnSync(process.execPath, ['--require', preload, binPath, 'stats', '--json', ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: envOf(cache, { ATTACK_MARKS: marks }),
      timeout: 30_000,
    })
    expect(faulty.status).toBe(0)
    // both faults happened
    expect(readdirSync(marks).sort()).toStrictEqual(['flaky', 'postdie'])
    const runsOf = (r: Run): number => (JSON.parse(r.stdout) as { runs: number }).runs
    const t = truth(args)
    expect(runsOf(t)).toBe(14)
    // the next report, with no fault, is the report read from the files
    expect(runsOf(stats(cache, args))).toBe(14)
    expect(same(stats(cache, args))).toStrictEqual(same(t))
  })

  it('the machine time zone (TZ) reads a time without a zone: a report under another TZ is not the cached one', () => {
    // a transcript whose times name no zone (Date.parse takes them as local time), across the night Europe/Paris
    // moved its clocks from 02:00 to 03:00: 1 h 5 min in UTC, 5 min in Paris
    const dir = scratch('tz')
    mkdirSync(join(dir, 'logs', 'p'), { recursive: true })
    const text = readFileSync(transcript, 'utf8')
      .replace(/"2025-08-11T00:([\d:.]+)Z"/g, '"2025-03-30T01:$1"')
      .replace(/"2025-08-11T01:([\d:.]+)Z"/g, '"2025-03-30T03:$1"')
    writeFileSync(join(dir, 'logs', 'p', 'a.jsonl'), text)
    const cache = join(dir, 'cache')
    const args = [join(dir, 'logs')]
    const duration = (r: Run): number => (JSON.parse(r.stdout) as { durationMs: number }).durationMs
    expect(duration(agrees(cache, args, { env: { TZ: 'UTC' } }))).toBe(3_894_685)
    const paris = { env: { TZ: 'Europe/Paris' } }
    expect(duration(truth(args, paris))).toBe(294_685)
    agrees(cache, args, paris)
  })

  it('a session file with a plain file of its own name beside it (x.jsonl and x): its folder is still kept', () => {
    // `x/subagents` of a plain file `x` is ENOTDIR, which statSync throws even with throwIfNoEntry: false
    const dir = scratch('enotdir')
    const p = join(dir, 'logs', 'p')
    mkdirSync(p, { recursive: true })
    cpSync(transcript, join(p, 'x.jsonl'))
    cpSync(join(fixtures, 'claude-code-transcript/small.jsonl'), join(p, 'y.jsonl'))
    writeFileSync(join(p, 'x'), 'notes\n')
    const cache = join(dir, 'cache')
    agrees(cache, [join(dir, 'logs')])
    const kept = existsSync(cache) ? Object.values((JSON.parse(readFileSync(cacheFileOf(cache), 'utf8')) as CacheDoc).entries) : []
    expect(kept.flatMap((e) => (e === null ? [] : e.outcomes.map((o) => o.file))).sort()).toStrictEqual([join(p, 'x.jsonl'), join(p, 'y.jsonl')])
  })

  it('a FIFO where the cache file is: the report still ends, as --no-cache', () => {
    const { home, cache } = freshHome()
    const t = truth([home])
    stats(cache, [home])
    const file = cacheFileOf(cache)
    unlinkSync(file)
    const mk = spawnSync('mkfifo', [file])
    expect(mk.status).toBe(0)
    // a hang shows as a run killed at the timeout (status null)
    const r = stats(cache, [home], { timeout: 5_000 })
    expect(same(r)).toStrictEqual(same(t))
  })
})

describe('stats cache under attack (attacks that hold)', () => {
  it('a file replaced by another of the same size with the same times (mv over, cp -p, touch -d, a hard link, a symlink retargeted)', () => {
    const dir = scratch('same-size')
    const p = join(dir, 'logs', 'p')
    mkdirSync(p, { recursive: true })
    const cache = join(dir, 'cache')
    const text = readFileSync(transcript, 'utf8')
    const other = text.replace(/"output_tokens":\d/g, '"output_tokens":9')
    expect(other).not.toBe(text)
    expect(other.length).toBe(text.length)
    const v1 = join(dir, 'v1.jsonl')
    const v2 = join(dir, 'v2.jsonl')
    writeFileSync(v1, text)
    writeFileSync(v2, other)
    const when = new Date('2025-08-11T02:00:00Z')
    utimesSync(v1, when, when)
    utimesSync(v2, when, when)
    const a = join(p, 'a.jsonl')
    cpSync(v1, a, { preserveTimestamps: true })
    cpSync(join(fixtures, 'claude-code-transcript/small.jsonl'), join(p, 'b.jsonl'))
    const args = [join(dir, 'logs')]
    const tokens = (r: Run): number => (JSON.parse(r.stdout) as { tokens: { outputTokens: number } }).tokens.outputTokens
    const base = tokens(agrees(cache, args))
    // mv over it (the new file has the old one's times)
    cpSync(v2, join(p, '.next'), { preserveTimestamps: true })
    renameSync(join(p, '.next'), a)
    const alt = tokens(agrees(cache, args))
    expect(alt).not.toBe(base)
    // cp -p over it: the same inode, the old bytes, the old times
    cpSync(v1, a, { preserveTimestamps: true })
    expect(tokens(agrees(cache, args))).toBe(base)
    // edited, then its modification time set back
    const st = statSync(a)
    writeFileSync(a, other)
    utimesSync(a, st.atime, st.mtime)
    expect(tokens(agrees(cache, args))).toBe(alt)
    // a hard link to the first version
    unlinkSync(a)
    linkSync(v1, a)
    expect(tokens(agrees(cache, args))).toBe(base)
    // a symlink, then retargeted to the other version
    unlinkSync(a)
    symlinkSync(v1, a)
    expect(tokens(agrees(cache, args))).toBe(base)
    unlinkSync(a)
    symlinkSync(v2, a)
    expect(tokens(agrees(cache, args))).toBe(alt)
  })

  it('units that change: a file added, removed, moved to another folder, a folder renamed, a subagent file removed', () => {
    const { home, cache } = freshHome()
    const projects = join(home, '.claude/projects')
    agrees(cache, [home])
    const demo = join(projects, '-path-to-Demo')
    // a copy of a session into another project folder (K15 is per folder: it counts there too)
    cpSync(join(demo, '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), join(projects, '-Users-user-Develop-slopus-happy-cli', 'copy.jsonl'))
    agrees(cache, [home])
    // moved back into the folder it was copied from (a copy of its records there: counted once)
    renameSync(join(projects, '-Users-user-Develop-slopus-happy-cli', 'copy.jsonl'), join(demo, 'zz-copy.jsonl'))
    agrees(cache, [home])
    agrees(cache, [home, '--by', 'project'])
    unlinkSync(join(demo, 'zz-copy.jsonl'))
    agrees(cache, [home])
    // a project folder renamed
    renameSync(join(projects, '-Users-user-Develop-slopus-happy-cli'), join(projects, '-Users-user-Develop-renamed'))
    agrees(cache, [home, '--by', 'project'])
    // a subagent file removed, then the whole folder
    unlinkSync(join(demo, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7/subagents/agent-6340ddef.jsonl'))
    agrees(cache, [home])
    rmSync(join(demo, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'), { recursive: true })
    agrees(cache, [home])
  })

  it('reading options: --prices (then its prices edited), --no-estimate, --format, --accept, and the views applied after reading', () => {
    const { home, cache } = freshHome()
    const prices = join(home, 'prices.json')
    writeFileSync(prices, JSON.stringify({ 'claude-*': { input: 3, output: 4 }, 'gpt-5*': { input: 1, output: 2 } }))
    const cost = (r: Run): number => (JSON.parse(r.stdout) as { cost: { totalUsd: number } }).cost.totalUsd
    const first = cost(agrees(cache, [home, '--prices', prices]))
    writeFileSync(prices, JSON.stringify({ 'claude-*': { input: 3, output: 40 }, 'gpt-5*': { input: 1, output: 2 } }))
    expect(cost(agrees(cache, [home, '--prices', prices]))).toBeGreaterThan(first)
    agrees(cache, [home, '--no-estimate'])
    agrees(cache, [home, '--format', 'claude-code'])
    agrees(cache, [home, '--accept', 'stopped', '--accept', 'unfinished'])
    agrees(cache, [home, '--by', 'day', '--since', '2025-09-01', '--until', '2025-10-25', '--timezone', 'Asia/Tokyo'])
    // standard input beside paths, a file named twice, a folder and its parent
    const sdk = join(home, '.claude/projects/-Users-user-Develop-slopus-happy-cli/task_sdk.jsonl')
    const withStdin = (args: ReadonlyArray<string>, c: string | undefined): Run => {
      const r = spawnSync(process.execPath, [binPath, 'stats', '--json', ...args], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: envOf(c),
        input: readFileSync(join(fixtures, 'claude-code-stream-json/claude.jsonl')),
      })
      return { code: r.status, stdout: r.stdout, stderr: r.stderr }
    }
    expect(same(withStdin(['-', home], cache))).toStrictEqual(same(withStdin(['-', home, '--no-cache'], undefined)))
    agrees(cache, [sdk, sdk, home])
    agrees(cache, [join(home, '.claude/projects'), join(home, '.claude')])
  })

  it('five reports at once on one cache file: it stays whole JSON and a warm report is right', async () => {
    const root = scratch('parallel')
    const cache = join(root, 'cache')
    const h = join(root, 'h')
    cpSync(fixtureHome, h, { recursive: true })
    // the same inputs: the five write the same cache file (each set of inputs keeps a file of its own)
    const codes = await Promise.all(
      [1, 2, 3, 4, 5].map(
        () =>
          new Promise<number | null>((resolve) => {
            const c = spawn(process.execPath, [binPath, 'stats', '--json', h], { cwd: repoRoot, env: envOf(cache), stdio: 'ignore' })
            c.on('exit', (code) => resolve(code))
          }),
      ),
    )
    expect(codes).toStrictEqual([0, 0, 0, 0, 0])
    const doc = JSON.parse(readFileSync(cacheFileOf(cache), 'utf8')) as CacheDoc
    expect(Object.keys(doc.entries).length).toBeGreaterThan(0)
    expect(readdirSync(cache).filter((n) => n.endsWith('.tmp'))).toStrictEqual([])
    agrees(cache, [h])
  })

  it('odd places: no HOME, a relative XDG_CACHE_HOME, a cache folder under /proc: same report, nothing written in the working folder', () => {
    const { home } = freshHome()
    const cwd = scratch('cwd')
    const t = truth([home], { cwd })
    const bare = stats(undefined, [home], { cwd, env: { HOME: undefined } })
    expect(same(bare)).toStrictEqual(same(t))
    const rel = stats(undefined, [home], { cwd, env: { HOME: undefined, XDG_CACHE_HOME: 'rel-cache' } })
    expect(same(rel)).toStrictEqual(same(t))
    expect(readdirSync(cwd)).toStrictEqual([])
    const proc = stats('/proc/self', [home], { cwd })
    expect(same(proc)).toStrictEqual(same(t))
  })

  it.skipIf(!existsSync('/work/shared/corpus'))('the corpus with a name holding newlines: cold with 2 jobs, warm with 1, and every view', () => {
    const dir = scratch('corpus')
    const corpus = join(dir, 'corpus')
    cpSync('/work/shared/corpus', corpus, { recursive: true })
    mkdirSync(join(corpus, 'nl', 'x\ny'), { recursive: true })
    cpSync(join(fixtures, 'claude-code-transcript/small.jsonl'), join(corpus, 'nl', 'x\ny', 'a\nb.jsonl'))
    const cache = join(dir, 'cache')
    agrees(cache, [corpus, '--jobs', '2'])
    agrees(cache, [corpus, '--jobs', '1', '--by', 'session'])
    agrees(cache, [corpus, '--jobs', '2', '--by', 'project', '--breakdown'])
  })
})
