/**
 * `run-outcome/core` (src/browser.ts) is browser-safe: esbuild bundles it with `--platform=browser` and no Node
 * module is pulled in, and the bundle runs — the fold, every line format's translator, the operators — in a
 * context that has a browser's globals and none of Node's (`process`, `Buffer`, `require`).
 */
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { build, type Metafile } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'
import * as core from '../../src/browser.js'
import * as root from '../../src/index.js'
import { foldRecords } from '../../src/formats/records.js'
import { repoRoot } from '../support/cli.js'

const NODE_BUILTINS = new Set(builtinModules)
const isNodeModule = (path: string): boolean => path.startsWith('node:') || NODE_BUILTINS.has(path) || NODE_BUILTINS.has(path.split('/')[0] ?? '')

interface Bundle {
  readonly code: string
  readonly metafile: Metafile
  /** Every Node module some bundled file tried to import, with the importer. */
  readonly nodeImports: ReadonlyArray<readonly [string, string]>
}

/** Bundles src/browser.ts (plus rxjs's `from`/`lastValueFrom`, to drive the operators) for the browser. */
const bundle = async (format: 'esm' | 'iife'): Promise<Bundle> => {
  const nodeImports: Array<readonly [string, string]> = []
  const r = await build({
    stdin: {
      contents: "export * from './src/browser.ts'\nexport { from, lastValueFrom, toArray } from 'rxjs'\n",
      resolveDir: repoRoot,
      loader: 'ts',
      sourcefile: 'entry.ts',
    },
    bundle: true,
    platform: 'browser',
    format,
    ...(format === 'iife' ? { globalName: 'RunOutcome' } : {}),
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'no-node-modules',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (a) => {
            if (!isNodeModule(a.path)) return undefined
            nodeImports.push([a.path, a.importer])
            return { path: a.path, external: true }
          })
        },
      },
    ],
  })
  return { code: r.outputFiles[0]?.text ?? '', metafile: r.metafile, nodeImports }
}

/** The globals a browser (or a worker) has; Node's own (`process`, `Buffer`, `require`, `global`) are absent. */
const browserGlobals = (): Record<string, unknown> => ({
  console,
  setTimeout,
  clearTimeout,
  queueMicrotask,
  structuredClone,
  TextEncoder,
  TextDecoder,
  URL,
  AbortController,
})

const README_EVENTS = [
  { type: 'turn/start', sessionId: 's1', data: { turn: 1 } },
  { type: 'assistant/message', sessionId: 's1', data: { message: { content: [{ type: 'text', text: 'Done.' }] } } },
  { type: 'turn/end', sessionId: 's1', data: { turn: 1, reason: { kind: 'completed' } } },
  { type: 'session/status', sessionId: 's1', data: { status: 'idle' } },
]

/** One real or synthetic log per line format, with the format `auto` must find and the last run's ending. */
const FIXTURES: ReadonlyArray<readonly [string, string, string]> = [
  ['claude-code-stream-json/claude-error.jsonl', 'claude-code', 'failed'],
  ['claude-code-transcript/1-continue-run-ls-tool.jsonl', 'claude-code', 'answered'],
  ['codex-exec-json/codex.jsonl', 'codex', 'answered'],
  ['gemini-stream-json/gemini.jsonl', 'gemini', 'answered'],
  ['acp/synthetic-end-turn.jsonl', 'acp', 'answered'],
]

const linesOf = (fixture: string): Array<string> =>
  readFileSync(join(repoRoot, 'test/fixtures', fixture), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')

describe('run-outcome/core bundles for the browser', () => {
  let esm: Bundle
  let iife: Bundle
  beforeAll(async () => {
    ;[esm, iife] = await Promise.all([bundle('esm'), bundle('iife')])
  })

  it('esbuild --platform=browser pulls in no Node module', () => {
    expect(esm.nodeImports).toStrictEqual([])
    expect(iife.nodeImports).toStrictEqual([])
  })

  it('the bundle holds no module of src/node, src/cli, src/jetstream or src/io', () => {
    const ours = Object.keys(esm.metafile.inputs).filter((p) => p.startsWith('src/'))
    expect(ours.filter((p) => /^src\/(node|cli|jetstream|io)\//.test(p))).toStrictEqual([])
    // …and it does hold the fold, the pipeline, a translator of each format, the operators and the vocabularies.
    for (const p of [
      'src/core/fold.ts',
      'src/core/pipeline.ts',
      'src/formats/records.ts',
      'src/formats/codex.ts',
      'src/operators/runResults.ts',
      'src/vocabularies/index.ts',
    ]) {
      expect(ours).toContain(p)
    }
  })

  it('in a context without Node globals, the bundle folds the README events and reads another vocabulary', () => {
    const sandbox: Record<string, unknown> = { ...browserGlobals(), input: JSON.stringify(README_EVENTS) }
    runInNewContext(iife.code, sandbox)
    const out = runInNewContext(
      `(() => {
        const r = RunOutcome.foldEvents(JSON.parse(input))
        return JSON.stringify({
          tag: r._tag,
          ending: r.right.ending,
          response: r.right.response,
          success: RunOutcome.isSuccess(r.right.ending),
          acp: RunOutcome.endingFrom('acp', 'max_tokens'),
          hasProcess: typeof process !== 'undefined',
          hasBuffer: typeof Buffer !== 'undefined',
        })
      })()`,
      sandbox,
    ) as string
    expect(JSON.parse(out)).toStrictEqual({
      tag: 'Right',
      ending: { kind: 'answered' },
      response: 'Done.',
      success: true,
      acp: { kind: 'cut_off', finishReason: 'max_tokens' },
      hasProcess: false,
      hasBuffer: false,
    })
  })

  it('in that context, runResults() over an Observable emits the run', async () => {
    const sandbox: Record<string, unknown> = { ...browserGlobals(), input: JSON.stringify(README_EVENTS) }
    runInNewContext(iife.code, sandbox)
    const out = await (runInNewContext(
      `RunOutcome.lastValueFrom(RunOutcome.from(JSON.parse(input)).pipe(RunOutcome.runResults(), RunOutcome.toArray()))
        .then((runs) => JSON.stringify(runs.map((r) => [r.ending.kind, r.response])))`,
      sandbox,
    ) as Promise<string>)
    expect(JSON.parse(out)).toStrictEqual([['answered', 'Done.']])
  })

  it.each(FIXTURES)('in that context, foldRecords(format auto) reads %s as %s, as it does under Node', (fixture, format, lastEnding) => {
    const lines = linesOf(fixture)
    const sandbox: Record<string, unknown> = { ...browserGlobals(), input: JSON.stringify(lines) }
    runInNewContext(iife.code, sandbox)
    const inBrowser = JSON.parse(
      runInNewContext(
        `(() => { const r = RunOutcome.foldRecords(JSON.parse(input), { format: 'auto' }); return JSON.stringify(r._tag === 'Right' ? r.right : { left: String(r.left) }) })()`,
        sandbox,
      ) as string,
    ) as Array<{ format: string; ending: { kind: string } }>
    const underNode = foldRecords(lines, { format: 'auto' })
    expect(underNode._tag).toBe('Right')
    expect(inBrowser).toStrictEqual(JSON.parse(JSON.stringify(underNode._tag === 'Right' ? underNode.right : null)))
    expect(inBrowser.length).toBeGreaterThan(0)
    expect(inBrowser.at(-1)?.format).toBe(format)
    expect(inBrowser.at(-1)?.ending.kind).toBe(lastEnding)
  })
})

describe('the two entries share one vocabulary', () => {
  it('every export of run-outcome/core is exported by the package root as the same value', () => {
    const rootExports = root as Record<string, unknown>
    const missing = Object.keys(core).filter((k) => !(k in rootExports))
    const different = Object.keys(core).filter((k) => k in rootExports && rootExports[k] !== (core as Record<string, unknown>)[k])
    expect({ missing, different }).toStrictEqual({ missing: [], different: [] })
  })
})
