#!/usr/bin/env node
/**
 * `npm run fuzz [-- SECONDS [SEED]]`: fuzzes the native skim kernel (native/skim_core.h) for SECONDS (default 30)
 * under AddressSanitizer and UndefinedBehaviorSanitizer, with the checks of native/fuzz/harness.c, from seeds made of
 * the lines of every JSON Lines fixture in test/fixtures (real logs of every format) and edge cases of the grammar
 * and of UTF-8. Run by CI (.ci/run) after the tests.
 *
 * Exits 1 when a check or a sanitizer fails (the input is kept in fuzz-failure.bin; `fuzz -run FILE` replays it),
 * 0 when none did. Without a C compiler with the sanitizers it says so and exits 0: the kernel is optional, and a
 * machine that cannot build it with them has nothing to fuzz here.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const secondsText = process.argv[2] ?? process.env.FUZZ_SECONDS ?? '30'
// a plain decimal only (`Number` would take `0x2`, ` 2 ` and `1e3` too)
const seconds = /^\d+(?:\.\d+)?$/.test(secondsText) ? Number(secondsText) : Number.NaN
const seed = process.argv[3] ?? String(Date.now() % 1e9)
// a time the driver could not reach (NaN, Infinity) would fuzz forever
if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400 || !/^\d{1,18}$/.test(seed) || process.argv.length > 4) {
  process.stderr.write(
    'usage: npm run fuzz [-- SECONDS [SEED]]   (SECONDS: a decimal number more than 0, at most 86400; SEED: a whole number of at most 18 digits)\n',
  )
  process.exit(2)
}
const work = mkdtempSync(join(tmpdir(), 'run-outcome-fuzz-'))
const skip = (why) => {
  process.stdout.write(`note: the skim kernel was not fuzzed (${why})\n`)
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}
if (process.platform === 'win32') skip('no build recipe for Windows')

// 1. Build: the harness with coverage callbacks, the driver without (it defines the callback).
const cc = process.env.CC || 'cc'
const flags = ['-O1', '-g', '-std=c11', '-D_DEFAULT_SOURCE', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer']
const bin = join(work, 'fuzz')
const compile = (args) => spawnSync(cc, args, { encoding: 'utf8' })
const harnessObj = join(work, 'harness.o')
let r = compile([...flags, '-fsanitize-coverage=trace-pc', '-c', join(root, 'native', 'fuzz', 'harness.c'), '-o', harnessObj])
if (r.error !== undefined) skip(`${cc}: ${r.error.message}`)
if (r.status === 0) r = compile([...flags, join(root, 'native', 'fuzz', 'driver.c'), harnessObj, '-o', bin])
if (r.status !== 0) {
  // no sanitizer runtime (libasan, libubsan) is a machine without the tool; a compile error in our C is a failure
  if (/cannot find -l(asan|ubsan)|libasan|libubsan/.test(r.stderr)) skip(`${cc} has no sanitizer runtime`)
  process.stderr.write(r.stderr)
  process.stdout.write('the fuzzing harness did not build\n')
  process.exit(1)
}

// 2. Seeds: fixture lines (every fourth, cut at 4 KiB), runs of three lines, and edge cases.
const seeds = join(work, 'seeds')
mkdirSync(seeds)
let n = 0
const put = (bytes) => writeFileSync(join(seeds, `s${String(n++).padStart(5, '0')}`), bytes)
const lines = []
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else if (e.name.endsWith('.jsonl')) {
      const bytes = readFileSync(p)
      let start = 0
      for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, start)) {
        if (i > start) lines.push(bytes.subarray(start, Math.min(i, start + 4096)))
        start = i + 1
      }
    }
  }
}
walk(join(root, 'test', 'fixtures'))
for (let i = 0; i < lines.length; i += 4) put(lines[i])
for (let i = 0; i + 2 < lines.length; i += 97)
  put(Buffer.concat([lines[i], Buffer.from('\n'), lines[i + 1], Buffer.from('\r\n\n'), lines[i + 2], Buffer.from('\n')]))
const b = (s) => Buffer.from(s, 'latin1')
for (const e of [
  `{"a":${'['.repeat(600)}${']'.repeat(600)}}`,
  `{"b":${'['.repeat(520)}${']'.repeat(520)}}`,
  `{"x":${'{"y":'.repeat(600)}`,
  '{"a":"\xff"}',
  '{"a":"\xc0\xaf"}',
  '{"type":"\xe2\x82","a":"\xff\xc0"}',
  '{"\xff":1,"a":"\xe2\x82\xac\xf0\x9f\x98"}',
  '{"a":"\\u00e9\\ud83d\\ude00"}',
  '{"a":"\\u12"}',
  '{"\\u0061":1}',
  '{"c\\u0020":2,"a":true,"c":1}',
  '{"a":1,"a":2,"type":"t","type":"z","d":{"a":1},"d":{"a":2}}',
  '{"c":5,"a":"yes"}',
  '{"a":"y\\u0065s","c":1}',
  '{"type":"z","d":[{"a":1},{"a":[{"a":2}]}]}',
  '{"a":-0.5e+3,"b":{"a":0,"c":1E-9,"d":{"x":-0}}}',
  '{"a":01}',
  '{"a":"abc\\',
  `{"a":"${'\xff'.repeat(200)}"}\n{"a":1}\n`,
  '{"a":1}\r\n\r\n{"b":{"a":2}}\n\n{"type":"t","d":{"a":3}}\n{"c":4}\n{"a":5}\n',
  `{"a":"${'\xf0\x9f\x98\x80'.repeat(50)}"}\n{}\n`,
  '{"a":true}   \t\r\n',
  '{"a":tru}',
])
  put(b(e))

// 3. Run.
process.stdout.write(`fuzzing the skim kernel for ${seconds} s from seed ${seed} (npm run fuzz -- ${seconds} ${seed} runs it again)\n`)
const run = spawnSync(bin, [seeds, String(seconds), seed], { stdio: 'inherit', cwd: root })
rmSync(work, { recursive: true, force: true })
if (run.status !== 0) {
  process.stdout.write(`the skim kernel failed a fuzzing check (seed ${seed}); see fuzz-failure.bin\n`)
  process.exit(1)
}
