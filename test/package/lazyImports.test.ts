/**
 * Lazy imports (issue 15 item 5): the CLI and `replayFile` load only what the call needs. RxJS is loaded by the
 * operators alone, which neither the CLI nor `src/node/replay.ts` reaches; fp-ts only as `fp-ts/lib/Either.js`
 * and the few modules it needs (never the fp-ts index); each CLI command's module only when that command runs.
 *
 * Each case runs the built package (dist/) in a fresh `node` with test/package/recordLoads.mjs preloaded, which
 * writes down every module the process resolves (ESM, through a loader hook) or requires (CommonJS, from the
 * require cache). The assertions are about which modules were loaded — never how long it took (the import
 * times are measured by hand; see CHANGELOG.md).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/cli.js'

const recorder = fileURLToPath(new URL('./recordLoads.mjs', import.meta.url))
const dist = pathToFileURL(join(repoRoot, 'dist')).href
const bin = join(repoRoot, 'dist/cli/bin.js')
const tmp = mkdtempSync(join(tmpdir(), 'run-outcome-loads-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Loaded {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  /** The npm packages loaded (`rxjs`, `io-ts`, `@pydantic/genai-prices`…), sorted. */
  readonly packages: ReadonlyArray<string>
  /** The fp-ts modules loaded, as paths inside the package (`lib/Either.js`). */
  readonly fpTs: ReadonlyArray<string>
  /** The package's own modules loaded, as paths under dist/ (`cli/replayCommand.js`). */
  readonly own: ReadonlyArray<string>
}

let runs = 0
/** Runs `node <args>` with the recorder preloaded; what it printed and which modules it loaded. */
const loadsOf = (args: ReadonlyArray<string>): Loaded => {
  const out = join(tmp, `loads-${++runs}.txt`)
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(recorder).href, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    input: '',
    env: { ...process.env, RUN_OUTCOME_LOADS: out, NO_COLOR: '1' },
    timeout: 60_000,
  })
  const urls = [
    ...new Set(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:')),
    ),
  ]
  const packageOf = (u: string): string | undefined => {
    const i = u.lastIndexOf('/node_modules/')
    if (i < 0) return undefined
    const [scope = '', name = ''] = u.slice(i + '/node_modules/'.length).split('/')
    return scope.startsWith('@') ? `${scope}/${name}` : scope
  }
  const packages = [...new Set(urls.flatMap((u) => packageOf(u) ?? []))].sort()
  const fpTs = urls.flatMap((u) => (packageOf(u) === 'fp-ts' ? [u.slice(u.lastIndexOf('/node_modules/fp-ts/') + '/node_modules/fp-ts/'.length)] : [])).sort()
  const own = urls.flatMap((u) => (u.startsWith(`${dist}/`) ? [u.slice(dist.length + 1)] : [])).sort()
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, packages, fpTs, own }
}

const commandModules = (l: Loaded): Array<string> => l.own.filter((m) => /^cli\/\w+Command\.js$/.test(m))

describe('what a call loads', () => {
  it('the recorder sees rxjs when it is loaded: importing the package root loads it (the operators)', () => {
    const l = loadsOf(['--input-type=module', '-e', `await import(${JSON.stringify(`${dist}/index.js`)})`])
    expect(l.stderr).toBe('')
    expect(l.packages).toContain('rxjs')
    expect(l.own).toContain('operators/runResults.js')
  })

  it('`replay --json` of a Claude Code transcript loads no rxjs, no fp-ts index, and only the replay command', () => {
    const l = loadsOf([bin, 'replay', '--json', 'test/fixtures/claude-code-transcript/1-continue-run-ls-tool.jsonl'])
    expect(l.status, l.stderr).toBe(0)
    expect(
      l.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).ending.kind),
    ).toStrictEqual(['answered', 'answered'])
    expect(l.packages).not.toContain('rxjs')
    expect(l.packages).toContain('io-ts')
    expect(l.fpTs).not.toContain('lib/index.js')
    expect(l.fpTs).toContain('lib/Either.js')
    expect(l.own.filter((m) => m.startsWith('operators/'))).toStrictEqual([])
    expect(commandModules(l)).toStrictEqual(['cli/replayCommand.js'])
  })

  it('`replay --json` of a native log loads no rxjs', () => {
    const l = loadsOf([bin, 'replay', '--json', 'examples/native/session.jsonl'])
    expect(
      l.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).format),
    ).toContain('native')
    expect(l.packages).not.toContain('rxjs')
    expect(commandModules(l)).toStrictEqual(['cli/replayCommand.js'])
  })

  it('`events` and `stats --json` load no rxjs either, each only its own command', () => {
    const events = loadsOf([bin, 'events', 'examples/native/session.jsonl'])
    expect(events.status, events.stderr).toBe(0)
    expect(events.stdout.split('\n')[0]).toContain('"type"')
    expect(events.packages).not.toContain('rxjs')
    expect(commandModules(events)).toStrictEqual(['cli/eventsCommand.js'])
    const stats = loadsOf([bin, 'stats', '--json', 'test/fixtures/claude-code-transcript/1-continue-run-ls-tool.jsonl'])
    expect(stats.status, stats.stderr).toBe(0)
    expect(stats.packages).not.toContain('rxjs')
    expect(commandModules(stats)).toStrictEqual(['cli/statsCommand.js'])
  })

  it('`--version` loads no command, no format and no dependency', () => {
    const l = loadsOf([bin, '--version'])
    expect(l.status).toBe(0)
    expect(l.stdout).toMatch(/^\d+\.\d+\.\d+/)
    expect(l.packages).toStrictEqual([])
    expect(commandModules(l)).toStrictEqual([])
    expect(l.own.filter((m) => m.startsWith('formats/'))).toStrictEqual([])
  })

  it('`replayFile` (src/node/replay.ts) loads no rxjs and no fp-ts index', () => {
    const script = `const { replayFile } = await import(${JSON.stringify(`${dist}/node/replay.js`)})
const runs = await replayFile('test/fixtures/claude-code-transcript/1-continue-run-ls-tool.jsonl')
console.log(JSON.stringify(runs.map((r) => r.ending.kind)))`
    const l = loadsOf(['--input-type=module', '-e', script])
    expect(l.stderr).toBe('')
    expect(JSON.parse(l.stdout)).toStrictEqual(['answered', 'answered'])
    expect(l.packages).not.toContain('rxjs')
    expect(l.fpTs).not.toContain('lib/index.js')
  })

  it('the `run-outcome/replay` entry (by its package name) loads no rxjs and no operator, and replays', () => {
    const script = `const { replayFile, isSuccess } = await import('run-outcome/replay')
const runs = await replayFile('test/fixtures/claude-code-transcript/1-continue-run-ls-tool.jsonl')
console.log(JSON.stringify(runs.map((r) => [r.ending.kind, isSuccess(r.ending)])))`
    const l = loadsOf(['--input-type=module', '-e', script])
    expect(l.stderr).toBe('')
    expect(JSON.parse(l.stdout)).toStrictEqual([
      ['answered', true],
      ['answered', true],
    ])
    expect(l.packages).not.toContain('rxjs')
    expect(l.fpTs).not.toContain('lib/index.js')
    // the package's exports name the bundle (scripts/bundle.mjs): its replay entry and chunks, no module of dist/
    // outside it, no other entry (the native skim kernel, an addon built from native/skim.c, may load beside it)
    expect(l.own).toContain('bundle/replay.js')
    expect(l.own.filter((m) => !/^bundle\/(replay|chunk-[A-Z0-9]+)\.js$/.test(m) && !/^native\/skim-[\w-]+\.node$/.test(m))).toStrictEqual([])
  })

  it('the root entry (by its package name) loads the bundle only, rxjs with it', () => {
    const l = loadsOf(['--input-type=module', '-e', "const { reduceRun } = await import('run-outcome'); console.log(typeof reduceRun)"])
    expect(l.stderr).toBe('')
    expect(l.stdout.trim()).toBe('function')
    expect(l.packages).toContain('rxjs')
    expect(l.own).toContain('bundle/index.js')
    expect(l.own.filter((m) => !/^bundle\/(index|chunk-[A-Z0-9]+)\.js$/.test(m))).toStrictEqual([])
  })
})
