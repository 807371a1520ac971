/**
 * The published package, as a consumer gets it: `npm pack` (its `prepack` builds `dist/` from a copy of the
 * sources), installed into a fresh project with rxjs at another 7.x patch release than ours and the lowest fp-ts
 * and io-ts our peer ranges allow, then
 * - the README's library snippet and a `run-outcome/core` consumer type-check there with tsc (strict,
 *   skipLibCheck off): one rxjs, so `OperatorFunction` from the consumer's rxjs accepts our operators;
 * - the entries load and fold under plain Node (`run-outcome/replay` giving the root's own `replayFile`);
 * - the tarball has no install script, no reference to itself, source maps whose sources are in the tarball;
 * - publint and arethetypeswrong (`--profile esm-only`: ESM only is deliberate) find nothing.
 *
 * Needs the npm registry; when it is unreachable the tests skip and say so (CI has it).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest'
import { NATIVE_SKIM_FILE } from '../../src/node/nativeSkim.js'
import { repoRoot } from '../support/cli.js'

/** The consumer's rxjs: a 7.x patch release other than the one in our devDependencies. */
const CONSUMER_RXJS = '7.8.1'
/** The lowest releases our peer ranges admit (package.json `peerDependencies`). */
const CONSUMER_FP_TS = '2.16.0'
const CONSUMER_IO_TS = '2.2.20'
/** Checkers run through npx at pinned versions (no dev dependency needed). */
const PUBLINT = 'publint@0.3.25'
const ATTW = '@arethetypeswrong/cli@0.18.5'

const ours = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  readonly version: string
  readonly devDependencies: Record<string, string>
}

const run = (cmd: string, args: ReadonlyArray<string>, cwd: string, timeout = 300_000): SpawnSyncReturns<string> =>
  spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  })

const output = (r: SpawnSyncReturns<string>): string => `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`

/** Every file under `dir`, as paths relative to it with `/` separators. */
const filesUnder = (dir: string): Array<string> => {
  const out: Array<string> = []
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(relative(dir, p).split('\\').join('/'))
    }
  }
  walk(dir)
  return out.sort()
}

/** The first ```ts block of the README's "The library" section. */
const readmeLibrarySnippet = (): string => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## The library'))
  const m = /```ts\n([\s\S]*?)\n```/.exec(section)
  if (m?.[1] === undefined) throw new Error('README.md: no ```ts block under "## The library"')
  return m[1]
}

const CORE_CONSUMER = `// A consumer of run-outcome/core: the browser-safe entry, with the consumer's own rxjs.
import { from, type OperatorFunction } from 'rxjs'
import * as E from 'fp-ts/lib/Either.js'
import { foldEvents, matchEnding, reduceRun, runResults, type RunResult, type SessionEvent } from 'run-outcome/core'

const folded: E.Either<unknown, RunResult> = foldEvents([{ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } }])
const perRun: OperatorFunction<unknown, RunResult> = runResults()
const last: OperatorFunction<SessionEvent, RunResult> = reduceRun()
from([]).pipe(perRun).subscribe((r) => console.log(matchEnding(r.ending, {
  answered: () => 'ok', cut_off: () => 'cut', limit: () => 'limit', stopped: () => 'stopped',
  suspended: () => 'waiting', blocked: () => 'blocked', failed: () => 'failed', unfinished: () => 'open',
})))
void [folded, last]
`

const SMOKE = `import { foldEvents, replayFile } from 'run-outcome'
import * as core from 'run-outcome/core'
import * as light from 'run-outcome/replay'
const events = [
  { type: 'assistant/message', sessionId: 's1', data: { message: { content: [{ type: 'text', text: 'Done.' }] } } },
  { type: 'turn/end', sessionId: 's1', data: { reason: { kind: 'completed' } } },
]
const a = foldEvents(events)
const b = core.foldEvents(events)
console.log(JSON.stringify([a.right.ending, b.right.response, typeof replayFile, core.foldEvents === foldEvents, light.replayFile === replayFile]))
`

interface Setup {
  readonly skip?: string
  readonly tmp: string
  readonly tarball: string
  readonly consumer: string
  readonly installed: string
}

let setup: Setup | undefined
let failure: string | undefined

/** Skips when the registry was unreachable; fails when the setup itself failed. */
const ready = (ctx: TestContext): Setup => {
  if (failure !== undefined) throw new Error(failure)
  if (setup === undefined) throw new Error('consumer setup did not run')
  if (setup.skip !== undefined) ctx.skip(setup.skip)
  return setup
}

describe('the packed package in a fresh consumer', () => {
  beforeAll(() => {
    const tmp = mkdtempSync(join(tmpdir(), 'run-outcome-consumer-'))
    const base = { tmp, tarball: '', consumer: '', installed: '' }
    const ping = run('npm', ['view', `rxjs@${CONSUMER_RXJS}`, 'version'], tmp, 60_000)
    if (ping.status !== 0 || ping.stdout.trim() !== CONSUMER_RXJS) {
      const why = `skipped: the npm registry is unreachable (npm view rxjs@${CONSUMER_RXJS}: ${output(ping).trim().split('\n')[0] ?? 'no answer'})`
      console.warn(`test/package/consumer.test.ts ${why}`)
      setup = { ...base, skip: why }
      return
    }
    // A copy of what a clean clone has, so `prepack` builds dist/ from the sources alone (and leaves the
    // checkout's dist/, which other tests run, alone). node_modules is shared for the compiler.
    const pkg = join(tmp, 'pkg')
    for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'docs', 'src', 'scripts', 'native']) {
      if (existsSync(join(repoRoot, f))) cpSync(join(repoRoot, f), join(pkg, f), { recursive: true })
    }
    symlinkSync(join(repoRoot, 'node_modules'), join(pkg, 'node_modules'), 'dir')
    const packed = run('npm', ['pack', '--json', '--pack-destination', tmp], pkg)
    if (packed.status !== 0) {
      failure = `npm pack failed:\n${output(packed)}`
      return
    }
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>
    const tarball = join(tmp, info?.filename ?? 'missing.tgz')

    const consumer = join(tmp, 'consumer')
    cpSync(join(repoRoot, 'test/package/consumer-template'), consumer, { recursive: true })
    writeFileSync(join(consumer, 'readme.ts'), `// The README's library snippet, verbatim.\n${readmeLibrarySnippet()}\n`)
    writeFileSync(join(consumer, 'core.ts'), CORE_CONSUMER)
    writeFileSync(join(consumer, 'smoke.mjs'), SMOKE)
    const install = run(
      'npm',
      [
        'install',
        '--no-package-lock',
        tarball,
        `rxjs@${CONSUMER_RXJS}`,
        `fp-ts@${CONSUMER_FP_TS}`,
        `io-ts@${CONSUMER_IO_TS}`,
        `@types/node@${ours.devDependencies['@types/node'] ?? '20'}`,
      ],
      consumer,
    )
    if (install.status !== 0) {
      failure = `npm install in the consumer failed:\n${output(install)}`
      return
    }
    setup = { tmp, tarball, consumer, installed: join(consumer, 'node_modules', 'run-outcome') }
  }, 600_000)

  afterAll(() => {
    if (setup !== undefined) rmSync(setup.tmp, { recursive: true, force: true })
  })

  it('the consumer has one rxjs, its own 7.8.1, and the package brings no copy of rxjs, fp-ts or io-ts', (ctx) => {
    const s = ready(ctx)
    const version = (p: string): string =>
      (JSON.parse(readFileSync(join(s.consumer, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version
    expect([version('rxjs'), version('fp-ts'), version('io-ts'), version('run-outcome')]).toStrictEqual([
      CONSUMER_RXJS,
      CONSUMER_FP_TS,
      CONSUMER_IO_TS,
      ours.version,
    ])
    expect(existsSync(join(s.installed, 'node_modules'))).toBe(false)
  })

  it("the README's library snippet type-checks in the consumer (strict, skipLibCheck off)", (ctx) => {
    const s = ready(ctx)
    const tsc = run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], s.consumer)
    expect(output(tsc)).toBe('')
    expect(tsc.status).toBe(0)
  })

  it('the entries load under plain Node and fold', (ctx) => {
    const s = ready(ctx)
    const r = run(process.execPath, ['smoke.mjs'], s.consumer, 60_000)
    expect(output(r).trim()).toBe(JSON.stringify([{ kind: 'answered' }, 'Done.', 'function', true, true]))
  })

  it('the installed executable (the bundle) replays a log and reports its stats', (ctx) => {
    const s = ready(ctx)
    const log = join(repoRoot, 'test/fixtures/claude-code-transcript/1-continue-run-ls-tool.jsonl')
    const r = run(join(s.consumer, 'node_modules/.bin/run-outcome'), ['replay', '--json', log], s.consumer, 60_000)
    expect(r.status, output(r)).toBe(0)
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ending: { kind: string } }).ending.kind),
    ).toStrictEqual(['answered', 'answered'])
    const stats = run(join(s.consumer, 'node_modules/.bin/run-outcome'), ['stats', '--json', '--no-cache', log], s.consumer, 60_000)
    expect(stats.status, output(stats)).toBe(0)
    expect((JSON.parse(stats.stdout) as { runs: number }).runs).toBe(2)
  })

  it('the tarball has no install script and no reference to itself', (ctx) => {
    const s = ready(ctx)
    const manifest = JSON.parse(readFileSync(join(s.installed, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    const scripts = Object.keys(manifest['scripts'] ?? {})
    expect(scripts.filter((k) => ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare'].includes(k))).toStrictEqual([])
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies', 'bundleDependencies']) {
      expect(Object.keys(manifest[field] ?? {}), field).not.toContain('run-outcome')
    }
    // An import of the package's own name (outside comments: the docs show `import … from 'run-outcome/jetstream'`).
    const selfImport = /(?:from\s*|import\s*\(\s*)['"]run-outcome(?:\/[^'"]*)?['"]/
    const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
    const code = filesUnder(s.installed).filter((f) => /\.(js|d\.ts)$/.test(f) && !f.startsWith('src/'))
    expect(code.length).toBeGreaterThan(50)
    expect(code.filter((f) => selfImport.test(withoutComments(readFileSync(join(s.installed, f), 'utf8'))))).toStrictEqual([])
  })

  it('the tarball holds dist/, src/, docs/, the README, the licence and the changelog, and no tests', (ctx) => {
    const s = ready(ctx)
    const files = filesUnder(s.installed)
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/browser.js',
      'dist/browser.d.ts',
      'dist/jetstream/index.js',
      'dist/replay.js',
      'dist/replay.d.ts',
      'dist/cli/bin.js',
      'dist/cli/run-outcome.js',
      'dist/cli/stats/worker.bundle.js',
      'dist/bundle/index.js',
      'dist/bundle/browser.js',
      'dist/bundle/replay.js',
      'dist/bundle/jetstream/index.js',
      'src/index.ts',
      'src/browser.ts',
    ]) {
      expect(files).toContain(f)
    }
    if (existsSync(join(repoRoot, 'CHANGELOG.md'))) expect(files).toContain('CHANGELOG.md')
    // what the README links to, and what the CLI's messages point at (docs/scale-out.md), is in the package too
    const readme = readFileSync(join(s.installed, 'README.md'), 'utf8')
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => (m[1] as string).replace(/\/$/, ''))
    expect(linked.length).toBeGreaterThan(5)
    expect(linked.filter((l) => !files.some((f) => f === l || f.startsWith(`${l}/`)))).toStrictEqual([])
    expect(files).toContain('docs/scale-out.md')
    // the skim kernel's source, and its build for this platform where the checkout's build made one
    expect(files).toContain('native/skim.c')
    if (existsSync(join(repoRoot, 'dist/native', NATIVE_SKIM_FILE))) expect(files).toContain(`dist/native/${NATIVE_SKIM_FILE}`)
    expect(files.filter((f) => /(^|\/)test\/|\.test\.|\.tsbuildinfo$|^\.|\/\./.test(f))).toStrictEqual([])
  })

  it("every source map's sources are in the tarball", (ctx) => {
    const s = ready(ctx)
    const maps = filesUnder(s.installed).filter((f) => f.endsWith('.map'))
    expect(maps.length).toBeGreaterThan(50)
    const unresolved: Array<string> = []
    for (const m of maps) {
      const map = JSON.parse(readFileSync(join(s.installed, m), 'utf8')) as { sources: ReadonlyArray<string>; sourceRoot?: string }
      for (const src of map.sources) {
        const p = resolve(dirname(join(s.installed, m)), map.sourceRoot ?? '', src)
        if (!p.startsWith(s.installed) || !existsSync(p)) unresolved.push(`${m} → ${src}`)
      }
    }
    expect(unresolved).toStrictEqual([])
  })

  it('publint finds nothing', (ctx) => {
    const s = ready(ctx)
    const r = run('npx', ['--yes', PUBLINT, 'run', s.tarball], s.tmp)
    expect(r.status, output(r)).toBe(0)
    expect(output(r)).toContain('All good!')
  })

  it('arethetypeswrong finds no problem beyond ESM only', (ctx) => {
    const s = ready(ctx)
    const r = run('npx', ['--yes', ATTW, s.tarball, '--profile', 'esm-only', '--format', 'json'], s.tmp)
    // `problems` groups the problems by kind; node10 and node16-cjs are the resolutions an ESM-only package fails.
    type Problem = { readonly kind: string; readonly entrypoint?: string; readonly resolutionKind?: string }
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { problems?: Record<string, ReadonlyArray<Problem>> }
    const problems = Object.values(report.problems ?? {}).flat()
    const beyondEsmOnly = problems.filter((p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs')
    expect(beyondEsmOnly).toStrictEqual([])
    expect(r.status, output(r)).toBe(0)
  })
})
