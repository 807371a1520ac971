#!/usr/bin/env node
/**
 * `node bench/skim.mjs`: what the skim reader (src/formats/skim/skim.ts) saves, as ratios against the JSON.parse
 * floor F of the same tree in the same round.
 *
 * Builds two trees from the corpus copies in test/fixtures (written once to bench/data/): Claude Code transcripts
 * (`claude-code-transcript/*.jsonl`, one project folder per copy) and Codex rollouts (`codex-rollout/*.jsonl`),
 * each copy with fresh ids (every UUID's last group, and the `msg_` / `req_` / `toolu_` / `call_` ids, carry the copy
 * number), so no copy is a K15 duplicate of another. Then, per round and per tree, interleaved, each in a fresh
 * process: F (stream every file, split lines at the byte level, JSON.parse each), `replay --json TREE` with the skim
 * off (`RUN_OUTCOME_SKIM=0`, the default) and on (`RUN_OUTCOME_SKIM=1`), and `stats --json TREE` off and on. Prints
 * the medians of the paired ratios (wall and user+system CPU; `stats` runs a worker per core, so its wall ratio is
 * against a one-core floor) and checks that the skim changed no byte of either command's output (stats: but for the
 * order of the ties in its slowest / most expensive lists, which follows the workers).
 *
 * Usage: node bench/skim.mjs [--rounds N] [--mb N]   (defaults: 5 rounds, trees of ~60 MB; SKIM_BENCH_DIST=DIR runs
 *        a build other than dist/, e.g. one made with `tsc -p tsconfig.build.json --outDir DIR`)
 *        node bench/skim.mjs --child floor|replay|stats DIR   (one measurement; prints one JSON line)
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'

const args = process.argv.slice(2)
const walk = (d) =>
  readdirSync(d)
    .sort()
    .flatMap((n) => {
      const p = join(d, n)
      return statSync(p).isDirectory() ? walk(p) : /\.jsonl$/.test(p) ? [p] : []
    })

const measured = (o) => {
  const u = process.resourceUsage()
  console.log(JSON.stringify({ ...o, ms: Math.round(performance.now()), cpuMs: Math.round((u.userCPUTime + u.systemCPUTime) / 1000) }))
}

if (args[0] === '--child') {
  const [, task, dir] = args
  if (task === 'floor') {
    let n = 0
    for (const file of walk(dir)) {
      let carry = null
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
        const buf = carry ? Buffer.concat([carry, chunk]) : chunk
        let start = 0
        for (;;) {
          const nl = buf.indexOf(10, start)
          if (nl === -1) break
          if (nl > start) {
            JSON.parse(buf.toString('utf8', start, nl))
            n++
          }
          start = nl + 1
        }
        carry = start < buf.length ? buf.subarray(start) : null
      }
      if (carry !== null && carry.length > 0) {
        JSON.parse(carry.toString('utf8'))
        n++
      }
    }
    measured({ lines: n })
  } else {
    const { main } = await import(
      process.env['SKIM_BENCH_DIST'] ? join(process.env['SKIM_BENCH_DIST'], 'cli/main.js') : new URL('../dist/cli/main.js', import.meta.url)
    )
    let out = ''
    // stats without its result cache: every file is read in every round
    const code = await main(task === 'stats' ? [task, '--json', '--no-cache', dir] : [task, '--json', dir], {
      stdin: process.stdin,
      stdout: {
        write: (s) => {
          out += s
        },
      },
      stderr: { write: () => {} },
      env: process.env,
    })
    // stats lists its slowest and most expensive runs in the order the workers finish ties (identical copies): left
    // out of the comparison
    const text = task === 'stats' ? JSON.stringify(JSON.parse(out, (k, v) => (k === 'slowest' || k === 'mostExpensive' ? undefined : v))) : out
    measured({ code, outBytes: out.length, sha: createHash('sha256').update(text).digest('hex').slice(0, 16) })
  }
  process.exit(0)
}

const flag = (name, dflt) => {
  const i = args.indexOf(name)
  return i === -1 ? dflt : Number(args[i + 1])
}
const rounds = flag('--rounds', 5)
const targetMb = flag('--mb', 60)
const root = new URL('..', import.meta.url).pathname
const dataDir = join(root, 'bench/data')

/** Fresh ids for copy `k`: each UUID's last group and each prefixed id carry the copy number. */
const freshIds = (text, k) => {
  const tag = k.toString(16).padStart(4, '0')
  return text
    .replace(/\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}([0-9a-f]{8})\b/gi, `$1${tag}$2`)
    .replace(/\b(msg_|req_|toolu_|call_)([A-Za-z0-9]+)/g, `$1k${tag}$2`)
}

/** Writes the tree (once): copies of the fixture files, ~`targetMb` MB, one folder per copy. */
const tree = (name, from, layout) => {
  const dir = join(dataDir, `skim-${name}-${targetMb}mb`)
  if (existsSync(join(dir, '.done'))) return dir
  const files = readdirSync(from)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => [n, readFileSync(join(from, n), 'utf8')])
  const size = files.reduce((a, [, t]) => a + Buffer.byteLength(t), 0)
  const copies = Math.max(1, Math.round((targetMb * 1048576) / size))
  process.stderr.write(`writing ${dir}: ${copies} copies of ${files.length} files … `)
  for (let k = 0; k < copies; k++) {
    const sub = join(dir, layout(k))
    mkdirSync(sub, { recursive: true })
    for (const [n, t] of files) writeFileSync(join(sub, freshIds(n, k)), freshIds(t, k))
  }
  writeFileSync(join(dir, '.done'), '')
  process.stderr.write('done\n')
  return dir
}

const claude = tree('claude', join(root, 'test/fixtures/claude-code-transcript'), (k) => `projects/-copy-${k}`)
const codex = tree('codex', join(root, 'test/fixtures/codex-rollout'), (k) => `sessions/2025/09/${String(k + 1).padStart(2, '0')}`)
const mb = (d) => walk(d).reduce((a, f) => a + statSync(f).size, 0) / 1048576

const child = (task, dir, skim) => {
  const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', task, dir], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, RUN_OUTCOME_SKIM: skim ? '1' : '0' },
  })
  const line = r.stdout.trim().split('\n').at(-1)
  if (r.status !== 0 || line === undefined) throw new Error(`${task} failed: ${r.stderr.slice(0, 500)}`)
  return JSON.parse(line)
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const rows = []
const sameOutput = []
for (const [name, dir] of [
  ['Claude Code transcripts', claude],
  ['Codex rollouts', codex],
]) {
  const r = { F: [], Fcpu: [] }
  const keys = ['replay off', 'replay on', 'stats off', 'stats on']
  for (const k of keys) r[k] = { wall: [], cpu: [] }
  const shas = {}
  for (let round = 1; round <= rounds; round++) {
    process.stderr.write(`${name}: round ${round}/${rounds}\n`)
    const f = child('floor', dir, false)
    r.F.push(f.ms)
    r.Fcpu.push(f.cpuMs)
    for (const k of keys) {
      const [task, mode] = k.split(' ')
      const m = child(task, dir, mode === 'on')
      r[k].wall.push(m.ms / f.ms)
      r[k].cpu.push(m.cpuMs / f.cpuMs)
      shas[k] = m.sha
    }
  }
  sameOutput.push(
    `${name}: replay output ${shas['replay off'] === shas['replay on'] ? 'identical' : 'DIFFERENT'}, stats output ${shas['stats off'] === shas['stats on'] ? 'identical' : 'DIFFERENT'}`,
  )
  rows.push([`${name}, ${mb(dir).toFixed(0)} MB: floor F`, `${Math.round(median(r.F))} ms wall · ${Math.round(median(r.Fcpu))} ms CPU`])
  for (const k of keys)
    rows.push([
      `  ${k.replace(' off', ', skim off').replace(' on', ', skim on')} / F`,
      `${median(r[k].wall).toFixed(2)} wall · ${median(r[k].cpu).toFixed(2)} CPU`,
    ])
}
const w = [0, 1].map((i) => Math.max(...rows.map((x) => x[i].length)))
const table = [
  `| ${'what'.padEnd(w[0])} | ${'measured'.padEnd(w[1])} |`,
  `|${'-'.repeat(w[0] + 2)}|${'-'.repeat(w[1] + 2)}|`,
  ...rows.map((x) => `| ${x[0].padEnd(w[0])} | ${x[1].padEnd(w[1])} |`),
]
const report = `${table.join('\n')}\n\n${sameOutput.join('; ')}\n${rounds} interleaved round(s), medians of paired ratios (start-up included; stats uses a worker per core); load average ${loadavg()[0].toFixed(1)} at the end; node ${process.version}, ${new Date().toISOString()}\n`
console.log(report)
writeFileSync(join(dataDir, 'skim-report.md'), report)
