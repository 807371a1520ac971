#!/usr/bin/env node
/**
 * `npm run bench:ccusage`: `run-outcome stats --json` against ccusage 20.0.24 on the same trees, paired and
 * interleaved, wall and CPU time, and whether the two agree on the token totals.
 *
 * ccusage is a bench-only install (`npm install --prefix bench/.ccusage ccusage@20.0.24`, gitignored; 20.0.24
 * because newer releases ship no linux-x64 binary); this script installs it when missing and skips with a message
 * when it cannot. It builds two trees under bench/data/ from the corpus copied into test/fixtures/:
 *   - Claude Code: the transcripts (claude-code-transcript, and the homes' .claude/projects with their subagent
 *     files) copied until the tree holds `--claude-mb` MB (default 390), as CLAUDE_CONFIG_DIR/projects/…;
 *   - Codex: the rollouts (codex-rollout, the homes' .codex) copied until `--codex-mb` MB (default 400), as
 *     CODEX_HOME/sessions/YYYY/MM/DD/….
 * Each copy gets fresh ids (every UUID, `msg_…` and `req_…` id rewritten consistently within the copy, the
 * file names too), so neither tool drops a copy as a duplicate of another (Claude Code resumed sessions repeat
 * records, and both tools de-duplicate them by id).
 *
 * Commands compared (HOME points at an empty folder, so neither finds anything else):
 *   run-outcome stats --json [--no-cache] TREE   vs   CLAUDE_CONFIG_DIR=TREE ccusage daily --json --offline
 *   run-outcome stats --json [--no-cache] TREE   vs   CODEX_HOME=TREE ccusage codex daily --json --offline
 * Each tree twice: cold (`--no-cache`: every file read) and warm (the files unchanged since the report before,
 * answered by stats' result cache; ccusage has none and reads every file both times).
 * Each round runs both, in alternating order; ratios are ours / ccusage within a round, medians over rounds.
 * CPU time is user + system of the child and everything it waited for (its workers), read from /proc/self/stat.
 *
 * Usage: node bench/ccusage.mjs [--rounds N] [--claude-mb MB] [--codex-mb MB] [--rebuild] [--build-only]
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { basename, dirname, join, relative } from 'node:path'

const args = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = args.indexOf(name)
  return i === -1 ? dflt : Number(args[i + 1])
}
const rounds = flag('--rounds', 5)
const claudeMB = flag('--claude-mb', 390)
const codexMB = flag('--codex-mb', 400)
const rebuild = args.includes('--rebuild')
const here = new URL('.', import.meta.url).pathname
const repo = join(here, '..')
const fixtures = join(repo, 'test', 'fixtures')
const dataDir = join(here, 'data')
const cacheDir = join(here, '.ccusage')
const VERSION = '20.0.24'
const bin = join(cacheDir, 'node_modules', '.bin', 'ccusage')
const cli = join(repo, 'dist', 'cli', 'run-outcome.js') // the executable users run (the bundle)

// --- ccusage, installed on demand ---
const installedVersion = () => {
  try {
    return JSON.parse(readFileSync(join(cacheDir, 'node_modules', 'ccusage', 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}
if (installedVersion() !== VERSION) {
  process.stderr.write(`installing ccusage@${VERSION} into ${relative(repo, cacheDir)} … `)
  const r = spawnSync('npm', ['install', '--prefix', cacheDir, '--no-audit', '--no-fund', '--no-save', `ccusage@${VERSION}`], { encoding: 'utf8' })
  if (r.status !== 0 || installedVersion() !== VERSION) {
    console.log(`skipped: ccusage@${VERSION} could not be installed (${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)})`)
    process.exit(0)
  }
  process.stderr.write('done\n')
}
if (!existsSync(cli)) {
  console.log('skipped: dist/cli/run-outcome.js is missing; run `npm run build` first')
  process.exit(0)
}

// --- the trees ---
const filesUnder = (dir) => {
  if (!existsSync(dir)) return []
  const out = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...filesUnder(p))
    else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p)
  }
  return out.sort()
}
/**
 * Distinct files of the corpus (by content, and by name: a session is in one place only, as in a real home), each
 * with the path it takes inside a tree.
 */
const distinct = (entries) => {
  const seen = new Set()
  return entries.filter(({ path }) => {
    const h = createHash('sha1').update(readFileSync(path)).digest('hex')
    const name = `name:${basename(path)}`
    if (seen.has(h) || seen.has(name)) return false
    seen.add(h)
    seen.add(name)
    return true
  })
}
const homes = join(fixtures, 'homes')
const homeDirs = existsSync(homes) ? readdirSync(homes).filter((d) => statSync(join(homes, d)).isDirectory()) : []
// the homes first: a transcript that is also in a home is taken there, beside its subagent files
const claudeCorpus = distinct([
  ...homeDirs.flatMap((h) => {
    const projects = join(homes, h, '.claude', 'projects')
    return filesUnder(projects).map((path) => ({ path, rel: relative(projects, path) }))
  }),
  ...filesUnder(join(fixtures, 'claude-code-transcript')).map((path) => ({ path, rel: join('-bench-corpus', basename(path)) })),
])
const codexCorpus = distinct([
  ...filesUnder(join(fixtures, 'codex-rollout')).map((path) => ({ path, rel: basename(path) })),
  ...homeDirs.flatMap((h) =>
    ['sessions', 'archived_sessions'].flatMap((s) => filesUnder(join(homes, h, '.codex', s)).map((path) => ({ path, rel: basename(path) }))),
  ),
])

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const HAS_UUID = new RegExp(UUID.source, 'i')
const VENDOR_ID = /\b(msg|req|toolu|call|resp)_[0-9A-Za-z]+/g
/** Copy `k`'s version of a text: every UUID gets copy `k`'s own last group, every vendor id a `k` suffix. */
const ISO = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)"/g
const fresh = (text, k) => {
  return (
    text
      // the last group (48 bits) from a hash of the copy and the id: synthetic fixtures that differ only in the
      // first group stay distinct, and two ids of the tree meet by chance with odds ~1e-8
      .replace(UUID, (u) => `${u.slice(0, 24)}${createHash('sha1').update(`${k}:${u.toLowerCase()}`).digest('hex').slice(0, 12)}`)
      .replace(VENDOR_ID, (id) => `${id}x${k}`)
      // ccusage de-duplicates Codex token counts by their timestamp too: copy k is k seconds later
      .replace(ISO, (m, iso) => {
        const t = Date.parse(iso)
        return Number.isFinite(t) ? `"${new Date(t + k * 1000).toISOString()}"` : m
      })
  )
}

const build = (name, corpus, targetMB, place) => {
  const root = join(dataDir, `ccusage-${name}-${targetMB}mb`)
  const stamp = join(root, '.built')
  if (!rebuild && existsSync(stamp)) return { root, ...JSON.parse(readFileSync(stamp, 'utf8')) }
  rmSync(root, { recursive: true, force: true })
  const texts = corpus.map(({ path, rel }) => ({ rel, text: readFileSync(path, 'utf8') }))
  const perCopy = texts.reduce((n, t) => n + Buffer.byteLength(t.text), 0)
  const copies = Math.max(1, Math.ceil((targetMB * 1048576) / perCopy))
  process.stderr.write(`building ${relative(repo, root)}: ${copies} copies of ${texts.length} files (${(perCopy / 1048576).toFixed(2)} MB each) … `)
  let bytes = 0
  let files = 0
  for (let k = 0; k < copies; k++) {
    for (const { rel, text } of texts) {
      const out = join(root, place(fresh(rel, k), k))
      mkdirSync(dirname(out), { recursive: true })
      const t = fresh(text, k)
      writeFileSync(out, t)
      bytes += Buffer.byteLength(t)
      files++
    }
  }
  const info = { files, bytes, copies }
  writeFileSync(stamp, JSON.stringify(info))
  process.stderr.write(`${files} files, ${Math.round(bytes / 1048576)} MB\n`)
  return { root, ...info }
}

// copy k of a project folder is the folder `<name>-<k>`: its sessions and their subagent folders stay together
const claudeTree = build('claude', claudeCorpus, claudeMB, (rel, k) => {
  const [project, ...rest] = rel.split('/')
  return join('projects', `${project}-${k}`, ...rest)
})
const codexTree = build('codex', codexCorpus, codexMB, (rel, k) =>
  // a name without an id (a fixture's own name) gets the copy's number, so no copy overwrites another
  join('sessions', '2025', String(1 + (k % 12)).padStart(2, '0'), String(1 + (k % 28)).padStart(2, '0'), HAS_UUID.test(rel) ? rel : `c${k}-${rel}`),
)

if (args.includes('--build-only')) process.exit(0)

// --- measuring ---
const TICK = 100 // USER_HZ: /proc reports children's CPU in clock ticks of 1/100 s
const childCpuMs = () => {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8')
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ')
    // fields after the name: state(0) … cutime(13) cstime(14)
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICK
  } catch {
    return Number.NaN
  }
}
const emptyHome = mkdtempSync(join(tmpdir(), 'bench-home-'))
const baseEnv = { PATH: process.env.PATH, HOME: emptyHome, TZ: 'UTC', NO_COLOR: '1', LANG: 'C.UTF-8' }
const run = (cmd, argv, env) => {
  const c0 = childCpuMs()
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, argv, { env: { ...baseEnv, ...env }, encoding: 'utf8', maxBuffer: 256 << 20 })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  const cpu = childCpuMs() - c0
  if (r.status !== 0 && r.status !== 1) throw new Error(`${basename(cmd)} ${argv.join(' ')} exited ${r.status}: ${(r.stderr ?? '').slice(0, 400)}`)
  return { ms, cpu, out: r.stdout }
}
// cold: every file read (`--no-cache`); warm: a second report over unchanged files, answered by the result cache
// of the report before it (src/cli/stats/cache.ts), in a cache folder of the bench's own
const benchCache = join(emptyHome, 'cache')
const ours = (tree, warm) => () =>
  warm
    ? run(process.execPath, [cli, 'stats', '--json', tree], { RUN_OUTCOME_CACHE_DIR: benchCache })
    : run(process.execPath, [cli, 'stats', '--json', '--no-cache', tree], {})
const theirs = (env, sub) => () => run(bin, [...sub, 'daily', '--json', '--offline'], env)

/** Sums the token buckets of whatever JSON a tool printed: ours by its fields, ccusage's by its `totals`. */
const tokensOfOurs = (text) => {
  const j = JSON.parse(text)
  const t = j.totals ?? j.total ?? j
  const u = t.usage ?? t.tokens ?? t
  const n = (k) => Number(u[k] ?? 0)
  return { input: n('inputTokens'), output: n('outputTokens'), cacheRead: n('cacheReadTokens'), cacheWrite: n('cacheWriteTokens') }
}
const tokensOfCcusage = (text) => {
  const j = JSON.parse(text)
  const t = j.totals ?? {}
  const n = (...ks) => Number(ks.map((k) => t[k]).find((v) => v !== undefined) ?? 0)
  return {
    input: n('inputTokens'),
    output: n('outputTokens'),
    cacheRead: n('cacheReadTokens', 'cachedInputTokens'),
    cacheWrite: n('cacheCreationTokens', 'cacheWriteTokens'),
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const compare = (label, tree, a, b, mode = 'cold') => {
  const wall = []
  const cpu = []
  let outA = ''
  let outB = ''
  const abs = { a: [], b: [], ca: [], cb: [] }
  for (let i = 0; i < rounds; i++) {
    process.stderr.write(`${label} (${mode}): round ${i + 1}/${rounds}\n`)
    // alternate which goes first, so a warm page cache or a busy neighbour favours neither
    let x
    let y
    if (i % 2 === 0) {
      x = a()
      y = b()
    } else {
      y = b()
      x = a()
    }
    wall.push(x.ms / y.ms)
    cpu.push(x.cpu / y.cpu)
    abs.a.push(x.ms)
    abs.b.push(y.ms)
    abs.ca.push(x.cpu)
    abs.cb.push(y.cpu)
    outA = x.out
    outB = y.out
  }
  return {
    label,
    mode,
    tree,
    wall: median(wall),
    cpu: median(cpu),
    ms: median(abs.a),
    msB: median(abs.b),
    cpuA: median(abs.ca),
    cpuB: median(abs.cb),
    outA,
    outB,
  }
}

// the warm rows' cache is filled by one report over each tree first
ours(claudeTree.root, true)()
ours(codexTree.root, true)()
const results = [
  compare('claude', claudeTree, ours(claudeTree.root, false), theirs({ CLAUDE_CONFIG_DIR: claudeTree.root }, [])),
  compare('claude', claudeTree, ours(claudeTree.root, true), theirs({ CLAUDE_CONFIG_DIR: claudeTree.root }, []), 'warm'),
  compare('codex', codexTree, ours(codexTree.root, false), theirs({ CODEX_HOME: codexTree.root }, ['codex'])),
  compare('codex', codexTree, ours(codexTree.root, true), theirs({ CODEX_HOME: codexTree.root }, ['codex']), 'warm'),
]
rmSync(emptyHome, { recursive: true, force: true })

const fmt = (x) => x.toFixed(2)
const lines = [
  '| tree | ours (stats --json) | ccusage daily --json --offline | ours / ccusage | tokens (ours · ccusage) | target |',
  '|---|---|---|---|---|---|',
]
for (const r of results) {
  let tokens
  try {
    const a = tokensOfOurs(r.outA)
    const b = tokensOfCcusage(r.outB)
    const sum = (t) => t.input + t.output + t.cacheRead + t.cacheWrite
    const same = ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => a[k] === b[k])
    tokens = `${same ? 'agree' : 'DIFFER'}: ${sum(a).toLocaleString('en-US')} · ${sum(b).toLocaleString('en-US')}${same ? '' : ` (in ${a.input}/${b.input}, out ${a.output}/${b.output}, cache read ${a.cacheRead}/${b.cacheRead}, write ${a.cacheWrite}/${b.cacheWrite})`}`
  } catch (e) {
    tokens = `unreadable output (${e.message})`
  }
  lines.push(
    `| ${r.label}: ${r.tree.files} files, ${Math.round(r.tree.bytes / 1048576)} MB, ${r.mode === 'warm' ? 'warm (unchanged since the last report)' : 'cold (--no-cache)'} | ${Math.round(r.ms)} ms, ${Math.round(r.cpuA)} ms CPU | ${Math.round(r.msB)} ms, ${Math.round(r.cpuB)} ms CPU | ${fmt(r.wall)} wall · ${fmt(r.cpu)} CPU | ${tokens} | ≤ 1.0 |`,
  )
}
const load = loadavg()
const report = `${lines.join('\n')}\n\n${rounds} interleaved pairs per tree (order alternating), medians of the paired ratios; ccusage ${VERSION}; load average ${load.map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end; node ${process.version}, ${new Date().toISOString()}\n`
console.log(report)
mkdirSync(dataDir, { recursive: true })
writeFileSync(join(dataDir, 'last-ccusage-report.md'), report)
