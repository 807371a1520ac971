/**
 * The executable users run is the bundle (`bin` → dist/cli/run-outcome.js, made by scripts/bundle.mjs); the other
 * CLI tests run dist/cli/bin.js, the modules as tsc wrote them. Here the two are held to the same bytes out, the
 * same stderr and the same exit status, over every fixture folder and the commands that find files relative to
 * their own module (the stats worker, the stats cache's build key, `--version`'s package.json); and the bundle is
 * checked to be one: it loads none of the modules it was made from, and no RxJS.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { binPath, repoRoot } from '../support/cli.js'

const bundle = join(repoRoot, 'dist/cli/run-outcome.js')
const tmp = mkdtempSync(join(tmpdir(), 'run-outcome-bundle-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (program: string, argv: ReadonlyArray<string>, env: Record<string, string> = {}, preload: ReadonlyArray<string> = []): Ran => {
  const r = spawnSync(process.execPath, [...preload, program, ...argv], {
    cwd: repoRoot,
    input: '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', RUN_OUTCOME_CACHE: '0', ...env },
    timeout: 120_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Runs `argv` with both programs: the same output and status is the assertion. */
const same = (argv: ReadonlyArray<string>, env: Record<string, string> = {}): Ran => {
  const a = run(binPath, argv, env)
  const b = run(bundle, argv, env)
  expect(b, argv.join(' ')).toStrictEqual(a)
  return b
}

const fixtureDirs = readdirSync(join(repoRoot, 'test/fixtures'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `test/fixtures/${d.name}`)

describe('the bundled executable', () => {
  it('package.json names it as the bin', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    expect(pkg.bin).toStrictEqual({ 'run-outcome': './dist/cli/run-outcome.js' })
  })

  it('prints what the modules print: version and help', () => {
    expect(same(['--version']).stdout).toMatch(/^\d+\.\d+\.\d+/)
    for (const help of [['--help'], ['replay', '--help'], ['stats', '--help'], ['events', '--help'], ['watch', '--help']]) {
      expect(same(help).status).toBe(0)
    }
  })

  it.each(fixtureDirs)('replay --json %s: the same runs, notes and exit status', (dir) => {
    const r = same(['replay', '--json', dir])
    // every folder holds logs (vocabularies/ holds tables, not logs: a note for each file, no run)
    if (dir.endsWith('/vocabularies')) expect(r.stderr).toContain('skipped')
    else expect(r.stdout.length).toBeGreaterThan(0)
  })

  it('replay without --json, events, and a usage error', () => {
    expect(same(['replay', 'examples/claude-code/claude.jsonl']).status).toBe(0)
    expect(same(['events', 'examples/native/session.jsonl']).stdout).toContain('"type":"turn/end"')
    expect(same(['replay', '--no-such-option']).status).toBe(2)
  })

  it('stats --json with worker threads (found beside the bundle) gives the modules’ report', () => {
    const r = same(['stats', '--json', '--jobs', '2', 'test/fixtures/claude-code-transcript', 'test/fixtures/codex-rollout'])
    expect(r.status).toBe(0)
    expect((JSON.parse(r.stdout) as { runs: number }).runs).toBeGreaterThan(10)
  })

  it('stats keeps its cache from the bundle too (the build key is found), and a second report is the same', () => {
    const env = { RUN_OUTCOME_CACHE: '1', RUN_OUTCOME_CACHE_DIR: join(tmp, 'cache') }
    const first = run(bundle, ['stats', '--json', 'test/fixtures/claude-code-transcript'], env)
    expect(first.status, first.stderr).toBe(0)
    expect(readdirSync(join(tmp, 'cache')).filter((f) => /^stats-[\w-]{24}\.json$/.test(f))).toHaveLength(1)
    const second = run(bundle, ['stats', '--json', 'test/fixtures/claude-code-transcript'], env)
    expect(second).toStrictEqual(first)
  })

  it('loads none of the modules it was made from, and no RxJS', () => {
    const out = join(tmp, 'loads.txt')
    const recorder = pathToFileURL(join(repoRoot, 'test/package/recordLoads.mjs')).href
    const r = run(bundle, ['replay', '--json', 'examples/native/session.jsonl'], { RUN_OUTCOME_LOADS: out }, ['--import', recorder])
    // the example's second run is cut off (max_tokens): exit 1
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['answered', 'cut_off'])
    expect(r.status, r.stderr).toBe(1)
    const dist = `${pathToFileURL(join(repoRoot, 'dist')).href}/`
    const loaded = [...new Set(readFileSync(out, 'utf8').split('\n'))].filter((u) => u.startsWith('file:'))
    const own = loaded.filter((u) => u.startsWith(dist)).map((u) => u.slice(dist.length))
    // beside the bundle's own chunks, at most the native skim kernel (an addon built from native/skim.c)
    expect(own.filter((m) => !/^cli\/(run-outcome|chunk-[A-Z0-9]+)\.js$/.test(m) && !/^native\/skim-[\w-]+\.node$/.test(m))).toStrictEqual([])
    expect(loaded.filter((u) => u.includes('/node_modules/rxjs/'))).toStrictEqual([])
  })
})
