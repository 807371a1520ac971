/**
 * The native skim kernel (native/skim.c, built by `npm run build` into dist/native): built wherever the machine
 * has a C compiler and Node's headers, loaded by every program that reads logs — the executable (`replay`, and
 * `stats` in its worker threads), the bundled `run-outcome/replay` entry — and kept out by
 * `RUN_OUTCOME_NATIVE=0`. Observed from outside: the shared objects the process had loaded when it exited
 * (`process.report`), over a real Codex rollout.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NATIVE_SKIM_FILE } from '../../src/node/nativeSkim.js'
import { repoRoot } from '../support/cli.js'

const built = join(repoRoot, 'dist/native', NATIVE_SKIM_FILE)
const headers = [process.env['npm_config_nodedir'], dirname(dirname(process.execPath))]
  .filter((d): d is string => typeof d === 'string' && d !== '')
  .some((d) => existsSync(join(d, 'include/node/node_api.h')))
const compiler = spawnSync(process.env['CC'] || 'cc', ['--version']).status === 0
const ROLLOUT = join(repoRoot, 'test/fixtures/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl')

/** A preload that prints, at exit, whether the kernel was among the process's shared objects. */
const probe = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'run-outcome-native-'))
  const file = join(dir, 'probe.mjs')
  const report = `process.on('exit', () => { const so = process.report.getReport().sharedObjects; process.stderr.write('kernel loaded: ' + so.some((f) => f.endsWith('/${NATIVE_SKIM_FILE}')) + '\\n') })\n`
  writeFileSync(file, report)
  return file
}

const loadedBy = (args: ReadonlyArray<string>, env: Record<string, string> = {}): { loaded: boolean; stdout: string } => {
  const r = spawnSync(process.execPath, ['--import', probe(), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'run-outcome-home-')), RUN_OUTCOME_CACHE: '0', ...env },
  })
  const m = /kernel loaded: (true|false)/.exec(r.stderr)
  if (m === null) throw new Error(`no probe line (exit ${r.status}): ${r.stderr.slice(0, 400)}`)
  return { loaded: m[1] === 'true', stdout: r.stdout }
}

describe.skipIf(!(compiler && headers))('the native skim kernel', () => {
  it('npm run build made it for this platform', () => {
    expect(existsSync(built)).toBe(true)
  })

  it('replay, stats (worker threads) and the run-outcome/replay bundle load it; RUN_OUTCOME_NATIVE=0 keeps it out, same results', () => {
    const cli = join(repoRoot, 'dist/cli/run-outcome.js')
    const on = loadedBy([cli, 'replay', '--json', ROLLOUT])
    const off = loadedBy([cli, 'replay', '--json', ROLLOUT], { RUN_OUTCOME_NATIVE: '0' })
    expect(on.loaded).toBe(true)
    expect(off.loaded).toBe(false)
    expect(on.stdout).toBe(off.stdout)
    expect(JSON.parse(on.stdout.trim().split('\n').at(-1) as string).ending.kind).toBe('answered')

    const stats = loadedBy([cli, 'stats', '--json', '--no-cache', '--jobs', '2', join(repoRoot, 'test/fixtures/codex-rollout')])
    const statsOff = loadedBy([cli, 'stats', '--json', '--no-cache', '--jobs', '2', join(repoRoot, 'test/fixtures/codex-rollout')], { RUN_OUTCOME_NATIVE: '0' })
    expect(stats.loaded).toBe(true)
    expect(statsOff.loaded).toBe(false)
    expect(stats.stdout).toBe(statsOff.stdout)

    const script = `const { replayFile } = await import(${JSON.stringify(join(repoRoot, 'dist/bundle/replay.js'))}); const runs = await replayFile(${JSON.stringify(ROLLOUT)}); console.log(runs.length)`
    const lib = loadedBy(['--input-type=module', '-e', script])
    expect(lib.loaded).toBe(true)
    expect(Number(lib.stdout.trim())).toBeGreaterThan(0)
  })
})
