#!/usr/bin/env node
/**
 * `npm run bench`: replay speed as ratios against the JSON.parse floor F, measured interleaved in one run, and
 * where each sits between the scan floor S (read the bytes and find the newlines, nothing else) and F.
 *
 * Each measurement runs in a fresh process (bench/child.mjs) and reports its time since process start and its
 * peak RSS. Rounds interleave floor and replay on the same file so host drift cancels out; the ratio of each
 * round is paired, and the median over rounds is printed. Absolute times on these machines drift ±15 %.
 *
 * Usage: node bench/run.mjs [--rounds N] [--events N] [--big N] [--small N] [--quick]
 *   --quick   1e4 events, 1 round: a sanity check (what CI runs), not a measurement
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { generate } from './generate.mjs'

const args = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = args.indexOf(name)
  return i === -1 ? dflt : Number(args[i + 1])
}
const quick = args.includes('--quick')
const N = quick ? 1e4 : flag('--events', 1e6)
const rounds = quick ? 1 : flag('--rounds', 5)
const big = quick ? 2e4 : flag('--big', 3e6)
const small = flag('--small', 1e5)
const dataDir = new URL('./data/', import.meta.url).pathname
mkdirSync(dataDir, { recursive: true })

const file = async (format, n) => {
  const p = `${dataDir}${format}-${n}.jsonl`
  if (!existsSync(p)) {
    process.stderr.write(`generating ${p} … `)
    await generate(format, n, p)
    process.stderr.write(`${Math.round(statSync(p).size / 1048576)} MB\n`)
  }
  return p
}

const child = (task, path, extra) => {
  const r = spawnSync(
    process.execPath,
    [...(task === 'operators' ? ['--expose-gc'] : []), new URL('./child.mjs', import.meta.url).pathname, task, path, ...(extra ? [String(extra)] : [])],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  )
  if (r.status !== 0 && task !== 'cli') throw new Error(`${task} failed: ${r.stderr.slice(0, 500)}`)
  const line = r.stdout.trim().split('\n').at(-1)
  return JSON.parse(line)
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const hasJq = (() => {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

const native = await file('native', N)
const claude = await file('claude-code', N)
const codex = await file('codex', N)
const nativeBig = await file('native', big)
// replayRuns' peak RSS at three sizes: flat in N is the target (the stream holds one run at a time)
const rssSizes = quick ? [1e3, 1e4, 2e4] : [small, N, big]
const rssFiles = []
for (const n of rssSizes) rssFiles.push(await file('native', n))

// wall (ms) and CPU (user + system, ms) of every task, per round; ratios are taken within a round (paired)
const wall = {}
const cpuMs = {}
const rss = {}
const importMs = {}
const put = (k, r) => {
  if (r.importMs !== undefined) (importMs[k] ??= []).push(r.importMs)
  ;(wall[k] ??= []).push(r.ms)
  ;(cpuMs[k] ??= []).push(r.cpuMs)
  ;(rss[k] ??= []).push(r.rssMB)
  return r
}
let events = 0
const jq = []
for (let round = 1; round <= rounds; round++) {
  process.stderr.write(`round ${round}/${rounds}\n`)
  // interleaved: each round measures every task once, in the same order, so drift hits all of them alike
  put('scan', child('scan', native))
  events = put('floor', child('floor', native)).events
  put('lib', child('lib', native))
  put('runs', child('runs', native))
  put('cli', child('cli', native))
  if (hasJq) {
    const t = process.hrtime.bigint()
    spawnSync('sh', ['-c', `jq -c 'select(.type=="turn/end")' '${native}' > /dev/null`])
    jq.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  put('scanCC', child('scan', claude))
  put('floorCC', child('floor', claude))
  put('libCC', child('lib', claude))
  put('importRoot', child('import', 'run-outcome'))
  put('importReplay', child('import', 'run-outcome/replay'))
  put('scanCodex', child('scan', codex))
  put('floorCodex', child('floor', codex))
  put('libCodex', child('lib', codex))
}
const ops = child('operators', native, quick ? 2 : 7)
const bigLib = child('lib', nativeBig)
const rssRuns = rssFiles.map((f) => child('runs', f))

const fmt = (x) => x.toFixed(2)
/** The median over rounds of task `k`'s ratio to task `f` in the same round, on wall or CPU time. */
const ratio = (k, f, on = wall) => median(on[k].map((x, i) => x / on[f][i]))
/** Where task `k` sits between the scan floor (0) and the JSON.parse floor (1), median over rounds, on CPU time. */
const between = (k, f, sc) => median(cpuMs[k].map((x, i) => (x - cpuMs[sc][i]) / (cpuMs[f][i] - cpuMs[sc][i])))
const both = (k, f = 'floor', sc = 'scan') => `${fmt(ratio(k, f))} wall · ${fmt(ratio(k, f, cpuMs))} CPU · ${fmt(between(k, f, sc))} of S→F`
const F = median(wall.floor)
const S = median(wall.scan)
const evps = (ms) => `${Math.round(events / (ms / 1000) / 1000)} k ev/s`
const load = (await import('node:os')).loadavg()
const table = [
  ['metric', 'measured', quick ? 'target (of a full run)' : 'target'],
  [`scan floor S (stream + find newlines), ${events} native lines`, `${Math.round(S)} ms · ${fmt(ratio('scan', 'floor'))} × F`, '—'],
  [`floor F (stream + split + JSON.parse), ${events} native events`, `${Math.round(F)} ms, ${evps(F)}`, '—'],
  ['library replay / F (native, replayStream from run-outcome/replay)', both('lib'), '≤ 1.2'],
  ['library replayRuns / F (native, for await, run-outcome/replay)', both('runs'), '≤ 1.2'],
  [
    'import time: run-outcome (root) / run-outcome/replay',
    `${median(importMs.importRoot).toFixed(0)} / ${median(importMs.importReplay).toFixed(0)} ms · RSS ${median(rss.importRoot)} / ${median(rss.importReplay)} MB`,
    'only what the call needs',
  ],
  ['CLI replay --json / F (start-up included)', both('cli'), '≤ 1.3'],
  ['reduceRun() / foldEvents (same events, warm)', fmt(ops.ratio), '≤ 1.15'],
  [`peak RSS, replayStream at ${events} / ${big} events`, `${median(rss.lib)} / ${bigLib.rssMB} MB`, '≤ 120 MB, flat in N'],
  [
    `peak RSS, replayRuns at ${rssSizes.join(' / ')} events`,
    `${rssRuns.map((r) => r.rssMB).join(' / ')} MB (the floor F itself: ${median(rss.floor)} MB)`,
    '≤ 100 MB, flat in N',
  ],
  [`claude-code: S / F (F ${Math.round(median(wall.floorCC))} ms)`, `${fmt(ratio('scanCC', 'floorCC'))}`, '—'],
  ['claude-code reader / F (its own log)', both('libCC', 'floorCC', 'scanCC'), '≤ 1.5'],
  [`codex: S / F (F ${Math.round(median(wall.floorCodex))} ms)`, `${fmt(ratio('scanCodex', 'floorCodex'))}`, '—'],
  ['codex reader / F (its own log)', both('libCodex', 'floorCodex', 'scanCodex'), '≤ 1.5'],
  ...(hasJq
    ? [['jq -c \'select(.type=="turn/end")\' / F', `${fmt(median(jq.map((x, i) => x / wall.floor[i])))} wall`, '(reference)']]
    : [['jq', 'not installed', '(reference)']]),
]
const w = [0, 1, 2].map((i) => Math.max(...table.map((r) => r[i].length)))
const lines = table.map((r) => `| ${r.map((c, i) => c.padEnd(w[i])).join(' | ')} |`)
lines.splice(1, 0, `|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`)
// a quick run reads 1e4 events, where start-up is most of every row: its ratios say the bench works, not where we stand
const quickNote = quick
  ? 'QUICK RUN (--quick: 1e4 events, one round): start-up is most of each row here, so these ratios cannot be compared with the targets, which are those of a full run (`npm run bench`). A sanity check, not a measurement.\n\n'
  : ''
const report = `${quickNote}${lines.join('\n')}\n\n${rounds} interleaved round(s), medians of paired ratios (wall time, and user+system CPU time); "of S→F": where the CPU time sits between the scan floor S (0) and the JSON.parse floor F (1); load average ${load.map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end; node ${process.version}, ${new Date().toISOString()}\nThe comparison with ccusage on Claude Code and Codex trees: \`npm run bench:ccusage\`.\n`
console.log(report)
writeFileSync(`${dataDir}last-report.md`, report)
