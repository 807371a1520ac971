/**
 * What a consumer imports is the bundle: package.json's `exports` name dist/bundle/*.js (made by scripts/bundle.mjs
 * from the modules tsc wrote) as `default`, beside tsc's .d.ts. The other tests run the modules; here the bundled
 * entries are held to them — the same exported names, the same values shared between entries (one class, one codec,
 * wherever two entries export it), the same results for every fixture log — and checked to load what their entry
 * needs: no RxJS behind `run-outcome/replay`, no `node:` module behind `run-outcome/core`, none of the modules the
 * bundle was made from.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../support/cli.js'

interface Entry {
  readonly types: string
  readonly default: string
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, Entry | string> }
const entries = Object.entries(manifest.exports).flatMap(([name, e]) => (typeof e === 'string' ? [] : [[name, e] as const]))

/** The module tsc wrote for an entry: its types' file, `.d.ts` → `.js`. */
const moduleOf = (e: Entry): string => e.types.replace(/\.d\.ts$/, '.js')

/** Runs an ES module script under plain Node in the repository (so `run-outcome/…` is the package itself). */
const node = (script: string): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The specifiers a bundled file imports statically (`from "…"`, `import "…"`). */
const importsOf = (file: string): Array<string> => [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|^\s*import\s*)"([^"]+)"/gm)].map((m) => m[1] as string)

/** Every file an entry's static imports reach (the entry included), and the packages and builtins they import. */
const reach = (entryFile: string): { files: Array<string>; external: Array<string> } => {
  const files = new Set<string>()
  const external = new Set<string>()
  const visit = (f: string): void => {
    if (files.has(f)) return
    files.add(f)
    for (const s of importsOf(f)) {
      if (s.startsWith('.')) visit(join(dirname(f), s))
      else external.add(s)
    }
  }
  visit(entryFile)
  return { files: [...files].map((f) => relative(repoRoot, f)).sort(), external: [...external].sort() }
}

const NODE_BUILTINS = new Set(builtinModules)
const isBuiltin = (s: string): boolean => s.startsWith('node:') || NODE_BUILTINS.has(s.split('/')[0] ?? '')

describe('the bundled library entries', () => {
  it('package.json points every entry at dist/bundle, its types at the module tsc wrote', () => {
    expect(entries.map(([name, e]) => [name, e.default, e.types])).toStrictEqual([
      ['.', './dist/bundle/index.js', './dist/index.d.ts'],
      ['./core', './dist/bundle/browser.js', './dist/browser.d.ts'],
      ['./replay', './dist/bundle/replay.js', './dist/replay.d.ts'],
      ['./jetstream', './dist/bundle/jetstream/index.js', './dist/jetstream/index.d.ts'],
    ])
    for (const [, e] of entries) {
      const bundled = join(repoRoot, e.default)
      expect(existsSync(bundled), `${e.default} is missing: run npm run build`).toBe(true)
      // a bundle older than its module is left from an earlier build
      expect(statSync(bundled).mtimeMs, `${e.default} is older than ${moduleOf(e)}: run npm run build`).toBeGreaterThanOrEqual(
        statSync(join(repoRoot, moduleOf(e))).mtimeMs - 1000,
      )
    }
  })

  it('each entry exports the names its module exports, and two entries share each value they both export', () => {
    const script = `
const names = {}
const values = {}
for (const [name, bundled, module] of ${JSON.stringify(entries.map(([name, e]) => [name, `run-outcome${name.slice(1)}`, pathToFileURL(join(repoRoot, moduleOf(e))).href]))}) {
  const b = await import(bundled)
  const m = await import(module)
  names[name] = [Object.keys(b).sort(), Object.keys(m).sort()]
  values[name] = b
}
const shared = []
const differ = []
const keys = Object.keys(values)
for (const a of keys) for (const b of keys) {
  if (a >= b) continue
  for (const k of Object.keys(values[a])) if (k in values[b]) (values[a][k] === values[b][k] ? shared : differ).push(a + ' ' + b + ' ' + k)
}
console.log(JSON.stringify({ names, shared: shared.length, differ }))`
    const r = node(script)
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout) as { names: Record<string, [Array<string>, Array<string>]>; shared: number; differ: Array<string> }
    for (const [name, [bundled, module]] of Object.entries(out.names)) {
      expect(bundled, name).toStrictEqual(module)
      expect(bundled.length, name).toBeGreaterThan(10)
    }
    // the replay entry's 14 names and the core entry's 55 are all the root's own values
    expect(out.shared).toBeGreaterThanOrEqual(14 + 55)
    expect(out.differ).toStrictEqual([])
  })

  it('replays every fixture log to the results the modules give', () => {
    const logs: Array<string> = []
    const walk = (dir: string): void => {
      for (const d of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, d.name)
        if (d.isDirectory()) walk(p)
        else if (/\.(jsonl|json|gz)$/.test(d.name)) logs.push(p)
      }
    }
    walk(join(repoRoot, 'test/fixtures'))
    expect(logs.length).toBeGreaterThan(50)
    const script = `
const bundled = await import('run-outcome/replay')
const modules = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/replay.js')).href)})
const read = async (lib, file) => {
  try {
    return JSON.stringify(await lib.replayFile(file))
  } catch (e) {
    return 'error ' + e.name + ' ' + e.code + ' ' + e.message
  }
}
let runs = 0
const differ = []
for (const file of ${JSON.stringify(logs)}) {
  const a = await read(bundled, file)
  const b = await read(modules, file)
  if (a !== b) differ.push(file)
  if (!a.startsWith('error')) runs += JSON.parse(a).length
}
console.log(JSON.stringify({ runs, differ }))`
    const r = node(script)
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout) as { runs: number; differ: Array<string> }
    expect(out.differ).toStrictEqual([])
    expect(out.runs).toBeGreaterThan(100)
  })

  it('an entry reaches only bundled files and the packages it needs', () => {
    const bundled = Object.fromEntries(entries.map(([name, e]) => [name, reach(join(repoRoot, e.default))]))
    for (const [name, r] of Object.entries(bundled)) {
      // none of the modules the bundle was made from
      expect(
        r.files.filter((f) => !f.startsWith('dist/bundle/')),
        name,
      ).toStrictEqual([])
    }
    const replay = bundled['./replay']
    const core = bundled['./core']
    const root = bundled['.']
    expect(replay?.external.filter((s) => !isBuiltin(s))).toStrictEqual(['fp-ts/lib/Either.js', 'io-ts'])
    expect(core?.external.filter(isBuiltin)).toStrictEqual([])
    expect(core?.external).toContain('rxjs')
    expect(root?.external).toContain('rxjs')
    expect(root?.external).toContain('node:fs')
  })
})
