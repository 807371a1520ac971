#!/usr/bin/env node
/**
 * `npm run bench`: replay speed as ratios against the JSON.parse floor F, measured interleaved in one run.
 *
 * Each measurement runs in a fresh process (bench/child.mjs) and reports its time since process start and its
 * peak RSS. Rounds interleave floor and replay on the same file so host drift cancels out; the ratio of each
 * round is paired, and the median over rounds is printed. Absolute times on these machines drift ±15 %.
 *
 * Usage: node bench/run.mjs [--rounds N] [--events N] [--quick]
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

const rows = { floor: [], lib: [], cli: [], jq: [], floorCC: [], libCC: [], floorCodex: [], libCodex: [] }
// the same ratios on CPU time (user + system), which a loaded machine disturbs less than wall time
const cpu = { lib: [], cli: [], libCC: [], libCodex: [] }
const rss = { lib: [], cli: [], libCC: [], libCodex: [] }
let events = 0
for (let round = 1; round <= rounds; round++) {
  process.stderr.write(`round ${round}/${rounds}\n`)
  const f = child('floor', native)
  events = f.events
  const l = child('lib', native)
  const c = child('cli', native)
  rows.floor.push(f.ms)
  rows.lib.push(l.ms / f.ms)
  rows.cli.push(c.ms / f.ms)
  cpu.lib.push(l.cpuMs / f.cpuMs)
  cpu.cli.push(c.cpuMs / f.cpuMs)
  rss.lib.push(l.rssMB)
  rss.cli.push(c.rssMB)
  if (hasJq) {
    const t = process.hrtime.bigint()
    spawnSync('sh', ['-c', `jq -c 'select(.type=="turn/end")' '${native}' > /dev/null`])
    rows.jq.push(Number(process.hrtime.bigint() - t) / 1e6 / f.ms)
  }
  const fc = child('floor', claude)
  const lc = child('lib', claude)
  rows.floorCC.push(fc.ms)
  rows.libCC.push(lc.ms / fc.ms)
  cpu.libCC.push(lc.cpuMs / fc.cpuMs)
  rss.libCC.push(lc.rssMB)
  const fx = child('floor', codex)
  const lx = child('lib', codex)
  rows.floorCodex.push(fx.ms)
  rows.libCodex.push(lx.ms / fx.ms)
  cpu.libCodex.push(lx.cpuMs / fx.cpuMs)
  rss.libCodex.push(lx.rssMB)
}
const ops = child('operators', native, quick ? 2 : 7)
const bigLib = child('lib', nativeBig)

const F = median(rows.floor)
const evps = (ms) => `${Math.round(events / (ms / 1000) / 1000)} k ev/s`
const fmt = (x) => x.toFixed(2)
const both = (k) => `${fmt(median(rows[k]))} wall · ${fmt(median(cpu[k]))} CPU`
const load = (await import('node:os')).loadavg()[0]
const table = [
  ['metric', 'measured', 'target'],
  [`floor F (stream + split + JSON.parse), ${events} native events`, `${Math.round(F)} ms, ${evps(F)}`, '—'],
  ['library replay / F (native)', both('lib'), '≤ 1.3'],
  ['CLI replay --json / F (start-up included)', both('cli'), '≤ 1.4'],
  ['reduceRun() / foldEvents (same events, warm)', fmt(ops.ratio), '≤ 1.15'],
  [`peak RSS, library replay at ${events} events`, `${median(rss.lib)} MB`, '≤ 120 MB'],
  [`peak RSS, library replay at ${big} events`, `${bigLib.rssMB} MB`, '≤ 120 MB, flat in N'],
  ['claude-code reader / F (its own log)', both('libCC'), '≤ 1.5'],
  ['codex reader / F (its own log)', both('libCodex'), '≤ 1.5'],
  ...(hasJq ? [['jq -c \'select(.type=="turn/end")\' / F', `${fmt(median(rows.jq))} wall`, '(reference)']] : [['jq', 'not installed', '(reference)']]),
]
const w = [0, 1, 2].map((i) => Math.max(...table.map((r) => r[i].length)))
const lines = table.map((r) => `| ${r.map((c, i) => c.padEnd(w[i])).join(' | ')} |`)
lines.splice(1, 0, `|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`)
const report = `${lines.join('\n')}\n\n${rounds} interleaved round(s), medians of paired ratios (wall time, and user+system CPU time); load average ${load.toFixed(1)} at the end; node ${process.version}, ${new Date().toISOString()}\n`
console.log(report)
writeFileSync(`${dataDir}last-report.md`, report)
