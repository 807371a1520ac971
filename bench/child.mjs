/**
 * One benchmark measurement in a fresh process. Prints one JSON line:
 * { task, ms (since process start, start-up included), events, runs, rssMB (peak) }.
 *
 * Tasks: scan FILE | floor FILE | lib FILE | runs FILE | cli FILE | operators FILE REPEAT | import ENTRY
 * (`lib` and `runs` import the `run-outcome/replay` entry by the package's name, as a script that only reads logs
 * would, so they run what `exports` names: the bundled entries of dist/bundle; `import` times the import of one
 * entry, `run-outcome` or `run-outcome/replay`, and exits)
 */
import { createReadStream } from 'node:fs'

const [task, file, extra] = process.argv.slice(2)
const dist = new URL('../dist/', import.meta.url)
const out = (o) => {
  const u = process.resourceUsage()
  // ms: wall time since process start; cpuMs: user + system CPU time (less sensitive to a loaded machine)
  console.log(
    JSON.stringify({
      task,
      ...o,
      ms: Math.round(performance.now()),
      cpuMs: Math.round((u.userCPUTime + u.systemCPUTime) / 1000),
      rssMB: Math.round(u.maxRSS / 1024),
    }),
  )
}

if (task === 'scan') {
  // The scan floor S: stream the file and find the newlines (Buffer indexOf), nothing else: no decoding, no parse.
  let n = 0
  let last = 10
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(10, start)
      if (nl === -1) break
      // a line is non-blank when it holds a byte before its newline (the previous chunk may hold its start)
      if (nl > start || (start === 0 && last !== 10)) n++
      start = nl + 1
    }
    last = chunk[chunk.length - 1]
  }
  if (last !== 10) n++
  out({ events: n })
} else if (task === 'floor') {
  // The floor F: stream the file, split lines at the byte level, JSON.parse each, nothing else.
  let n = 0
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
  out({ events: n })
} else if (task === 'import') {
  const t = performance.now()
  await import(file)
  out({ importMs: Math.round((performance.now() - t) * 10) / 10 })
} else if (task === 'lib') {
  const { replayStream } = await import('run-outcome/replay')
  let runs = 0
  await replayStream(createReadStream(file, { highWaterMark: 256 * 1024 }), () => runs++, { file })
  out({ runs })
} else if (task === 'runs') {
  // The streaming library API as a caller uses it: `for await (const run of replayRuns(path))`, nothing kept.
  const { replayRuns } = await import('run-outcome/replay')
  let runs = 0
  let tokens = 0
  for await (const run of replayRuns(file)) {
    runs++
    tokens += run.usage.inputTokens + run.usage.outputTokens
  }
  out({ runs, tokens })
} else if (task === 'cli') {
  // The CLI as a user runs it: the executable (the bundle package.json names as bin) in its own process,
  // `run-outcome replay --json FILE > /dev/null`. Its wall time is the child's life (its start-up included, as
  // F's is); its CPU time is what the waited-for child used (/proc/self/stat cutime + cstime, in clock ticks).
  const { spawnSync } = await import('node:child_process')
  const { readFileSync } = await import('node:fs')
  const bin = new URL('cli/run-outcome.js', dist).pathname
  const t = performance.now()
  const r = spawnSync(process.execPath, [bin, 'replay', '--json', file], { stdio: ['ignore', 'ignore', 'inherit'] })
  const ms = performance.now() - t
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields after the command name start at field 3 (state): cutime is field 16, cstime 17; USER_HZ is 100 on Linux
  const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3])
  console.log(JSON.stringify({ task, code: r.status, ms: Math.round(ms), cpuMs: ticks * 10, rssMB: 0 }))
} else if (task === 'operators') {
  // reduceRun() vs foldEvents over the same in-memory events, alternated, warm.
  const { foldEvents, reduceRun } = await import('run-outcome')
  const { from, lastValueFrom } = await import('rxjs')
  const events = []
  let carry = null
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk
    let start = 0
    for (;;) {
      const nl = buf.indexOf(10, start)
      if (nl === -1) break
      if (nl > start) events.push(JSON.parse(buf.toString('utf8', start, nl)))
      start = nl + 1
    }
    carry = start < buf.length ? buf.subarray(start) : null
  }
  const repeat = Number(extra ?? 7)
  const fold = []
  const op = []
  const gc = globalThis.gc ?? (() => {})
  // one warm-up of each (JIT), then alternate, collecting garbage before every timed pass
  foldEvents(events)
  await lastValueFrom(from(events).pipe(reduceRun()))
  for (let i = 0; i < repeat; i++) {
    gc()
    let t = performance.now()
    foldEvents(events)
    fold.push(performance.now() - t)
    gc()
    t = performance.now()
    await lastValueFrom(from(events).pipe(reduceRun()))
    op.push(performance.now() - t)
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  out({ events: events.length, foldMs: Math.round(med(fold)), reduceRunMs: Math.round(med(op)), ratio: +(med(op) / med(fold)).toFixed(3) })
} else {
  console.error('task must be scan, floor, lib, runs, cli or operators')
  process.exit(2)
}
