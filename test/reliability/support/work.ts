/**
 * Work counted, not timed: how much of the library's own code a call runs, from V8's precise block coverage
 * (`Profiler.startPreciseCoverage` with `callCount` and `detailed`), summed over every block of every script
 * under `src/`, plus the elements the built-in scans and copies touch when the library calls them
 * (`Array.prototype.includes` / `indexOf` / `lastIndexOf` up to where they find, `slice` / `concat` their result,
 * `splice` what it removes, inserts and moves, `join` its array, `Object.keys` / `values` / `entries` /
 * `fromEntries` their entries): a loop over a growing list, or a growing list scanned
 * with `includes`, shows up as work that grows faster than the input. Deterministic: the same call counts the
 * same on any machine, loaded or not. (V8 reports a nested block only where its count differs from the block
 * around it, so the sum is a measure of work, not the number of blocks run; it grows as they do.)
 */
import { Session } from 'node:inspector/promises'
import { setFlagsFromString } from 'node:v8'

// Counts are exact only in code that is not optimised (an inlined call bumps no invocation counter): a test
// file that counts work runs its library code in the interpreter and baseline compiler (this worker only).
setFlagsFromString('--no-opt')
setFlagsFromString('--no-maglev')

interface Coverage {
  readonly result: ReadonlyArray<{ readonly url: string; readonly functions: ReadonlyArray<{ readonly ranges: ReadonlyArray<{ readonly count: number }> }> }>
}

let session: Session | undefined

const start = async (): Promise<Session> => {
  if (session !== undefined) return session
  const s = new Session()
  s.connect()
  await s.post('Profiler.enable')
  await s.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true })
  session = s
  return s
}

const blocks = (c: Coverage): number => {
  let n = 0
  for (const script of c.result) {
    if (!script.url.includes('/src/')) continue
    for (const f of script.functions) for (const r of f.ranges) n += r.count
  }
  return n
}

let touched = 0

const lengthOf = (x: unknown): number =>
  x !== null && typeof x === 'object' && typeof (x as { length?: unknown }).length === 'number' ? (x as { length: number }).length : 0

const origIndexOf = Array.prototype.indexOf

/** What one call of a built-in costs, in elements touched (a scan stops where it finds; a splice moves the tail). */
const COSTS: ReadonlyArray<readonly [object, string, (self: unknown, args: ReadonlyArray<unknown>, r: unknown) => number]> = [
  [
    Array.prototype,
    'includes',
    (self, args) => {
      const i = origIndexOf.call(self as Array<unknown>, args[0])
      return i >= 0 ? i + 1 : lengthOf(self)
    },
  ],
  [Array.prototype, 'indexOf', (self, _a, r) => ((r as number) >= 0 ? (r as number) + 1 : lengthOf(self))],
  [Array.prototype, 'lastIndexOf', (self, _a, r) => ((r as number) >= 0 ? lengthOf(self) - (r as number) : lengthOf(self))],
  [Array.prototype, 'slice', (_s, _a, r) => lengthOf(r)],
  [
    Array.prototype,
    'splice',
    (self, args, r) => {
      const removed = lengthOf(r)
      const inserted = Math.max(0, args.length - 2)
      const before = lengthOf(self) - inserted + removed
      const at = Math.min(before, Math.max(0, (args[0] as number) < 0 ? before + (args[0] as number) : (args[0] as number)))
      return removed + inserted + (removed === inserted ? 0 : before - at - removed)
    },
  ],
  [Array.prototype, 'concat', (_s, _a, r) => lengthOf(r)],
  [Array.prototype, 'join', (self) => lengthOf(self)],
  [Object, 'keys', (_s, _a, r) => lengthOf(r)],
  [Object, 'values', (_s, _a, r) => lengthOf(r)],
  [Object, 'entries', (_s, _a, r) => lengthOf(r)],
  [Object, 'fromEntries', (_s, args) => lengthOf(args[0])],
]

const patch = (): (() => void) => {
  const undo: Array<() => void> = []
  for (const [owner, name, cost] of COSTS) {
    const o = owner as Record<string, unknown>
    const orig = o[name] as (...a: Array<unknown>) => unknown
    o[name] = function (this: unknown, ...args: Array<unknown>): unknown {
      const r = orig.apply(this, args)
      touched += cost(this, args, r)
      return r
    }
    undo.push(() => {
      o[name] = orig
    })
  }
  return () => {
    for (const u of undo) u()
  }
}

/** The work `fn` does (see the module doc). `fn` may be async; nothing else should run meanwhile. */
export const countWork = async (fn: () => unknown): Promise<number> => {
  const s = await start()
  await s.post('Profiler.takePreciseCoverage')
  touched = 0
  const unpatch = patch()
  try {
    await fn()
  } finally {
    unpatch()
  }
  const c = (await s.post('Profiler.takePreciseCoverage')) as unknown as Coverage
  return blocks(c) + touched
}

/**
 * The work of `run(n)` and of `run(10 × n)`, and their ratio: linear work gives ≈ 10 (the acceptance bound is
 * 12). Each size runs once first to warm up (module loading and first-call compilation are not the input's work).
 */
export const growth = async (n: number, run: (n: number) => unknown): Promise<{ readonly small: number; readonly big: number; readonly ratio: number }> => {
  await run(Math.max(1, Math.floor(n / 10)))
  const small = await countWork(() => run(n))
  const big = await countWork(() => run(10 * n))
  return { small, big, ratio: big / small }
}
