/**
 * The public surface, listed: the exact runtime exports of the four entries (`run-outcome`, `run-outcome/core`,
 * `run-outcome/replay`, `run-outcome/jetstream`, as built in dist/) and the type-only exports of the first three. A change to any list is
 * a change to the API: make it on purpose, and say it in CHANGELOG.md. Every export of the root and of
 * `run-outcome/core`, types included, carries a `@category` tag in its declaration's docstring (issue 16 item 5).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dist = fileURLToPath(new URL('../../dist/', import.meta.url))

/** The runtime exports both the root and `run-outcome/core` have. */
const CORE_VALUES = [
  'EqRunEnding',
  'FoldStateCodec',
  'FormatError',
  'MAX_DIAGNOSTICS',
  'ModelPrice',
  'NO_MODEL',
  'PROTOCOL_VERSION',
  'Pipeline',
  'PriceTable',
  'ProtocolError',
  'QUIET_MS',
  'RecordFolder',
  'RunEndingCodec',
  'SNIFF_RECORDS',
  'acpStopReasons',
  'currentResult',
  'dataCodecs',
  'decodeEvent',
  'decodeEvents',
  'decodeFoldState',
  'decodePriceTable',
  'detectDocument',
  'detectLines',
  'encodeFoldState',
  'endingFrom',
  'endingFromEither',
  'endingFromTurnEndReason',
  'endingKinds',
  'endingTo',
  'estimateCost',
  'eventsOf',
  'foldEvents',
  'foldRecords',
  'foldRuns',
  'formatByName',
  'formats',
  'hasOpenRun',
  'initialState',
  'isEndingKind',
  'isKnownEventType',
  'isProtocolError',
  'isSuccess',
  'isVocabularySystem',
  'matchEnding',
  'pipelineStateCodec',
  'priceOf',
  'priceTableEstimator',
  'reasonCodecs',
  'reduceRun',
  'resumeFold',
  'runResults',
  'runsFrom',
  'scanRun',
  'step',
  'structuredOutputFrom',
  'toSessionEvents',
  'vocabularySystems',
]

/** What only the root adds: the Replay category (Node: files and streams). */
const REPLAY_VALUES = [
  'MAX_DOCUMENT_BYTES',
  'ReplayError',
  'SEEN_CAP',
  'SeenRecords',
  'bundledEstimator',
  'isLogFileName',
  'listLogFiles',
  'replayFile',
  'replayRuns',
  'replayStream',
]

/** The type-only exports, the same in both entries. */
const CORE_TYPES = [
  'AcpStopReason',
  'Answered',
  'Blocked',
  'ChildResult',
  'Cost',
  'CostEstimator',
  'CutOff',
  'DeputyStop',
  'Diagnostic',
  'DshAbortReason',
  'DshOtherReason',
  'DshPendingItem',
  'DshTurnEndReason',
  'Emit',
  'EndingError',
  'EndingHandlers',
  'EndingKind',
  'EventEnvelope',
  'Failed',
  'FoldOptions',
  'FoldState',
  'FormatModule',
  'FormatName',
  'IgnoredEvent',
  'KnownEventType',
  'Limit',
  'LineReader',
  'Llm4sPendingInterrupt',
  'Llm4sStatus',
  'ModelUsage',
  'NativeUsage',
  'PendingItem',
  'PermissionDenial',
  'PipelineOptions',
  'PipelineState',
  'ProtocolErrorFields',
  'ProtocolErrorJSON',
  'ProtocolErrorKind',
  'ReaderFactory',
  'ReaderOptions',
  'RecordOptions',
  'RunEnding',
  'RunOperatorOptions',
  'RunResult',
  'RunSource',
  'SessionEvent',
  'Stopped',
  'StoppedBy',
  'SuccessPolicy',
  'Suspended',
  'SwiftideOtherVariant',
  'SwiftideStopReason',
  'SwiftideToolCall',
  'Translator',
  'TranslatorOptions',
  'Unfinished',
  'Usage',
  'UsageBuckets',
  'VocabularySystem',
  'VocabularyValues',
]
const REPLAY_TYPES = ['BundledEstimatorOptions', 'ReplayErrorCode', 'ReplayOptions', 'ReplayOutcome', 'ReplayRunsOptions']

/** `run-outcome/replay`: the Replay category and what reading its results needs, the root's values (no operators). */
const REPLAY_ENTRY_VALUES = [...REPLAY_VALUES, 'ProtocolError', 'endingKinds', 'formatByName', 'isEndingKind', 'isProtocolError', 'isSuccess', 'matchEnding']
const REPLAY_ENTRY_TYPES = [
  ...REPLAY_TYPES,
  'Answered',
  'Blocked',
  'ChildResult',
  'Cost',
  'CostEstimator',
  'CutOff',
  'Diagnostic',
  'EndingError',
  'EndingHandlers',
  'EndingKind',
  'Failed',
  'FormatName',
  'Limit',
  'ModelUsage',
  'PendingItem',
  'PermissionDenial',
  'ProtocolErrorFields',
  'ProtocolErrorJSON',
  'ProtocolErrorKind',
  'RunEnding',
  'RunResult',
  'RunSource',
  'Stopped',
  'StoppedBy',
  'SuccessPolicy',
  'Suspended',
  'Unfinished',
  'Usage',
  'UsageBuckets',
]

const JETSTREAM_VALUES = [
  'ConsumeSetupError',
  'JETSTREAM_DEFAULTS',
  'MissingNatsClientsError',
  'NATS_PACKAGES',
  'NATS_VERSION_RANGE',
  'SessionFold',
  'SnapshotFencedError',
  'SnapshotWriter',
  'StalenessTracker',
  'configKey',
  'consumeFormats',
  'decodeCheckpoint',
  'isValidName',
  'leaseKey',
  'loadNatsClients',
  'parsePartitionedSubject',
  'partitionFilter',
  'partitionOf',
  'partitionedPattern',
  'partitionedSubjectFor',
  'readSnapshotHead',
  'readSnapshotLines',
  'rebalance',
  'resultKey',
  'serverMapping',
  'sessionCheckpointCodec',
  'sessionFromSubject',
  'sessionIdOfKey',
  'sessionKey',
  'sessionTokenIndex',
  'sliceText',
  'snapshotSubject',
  'startConsumer',
  'subjectForSession',
  'tenureConsumer',
  'workersKey',
]

/** The categories of the root's vocabulary (src/index.ts lists them). */
const CATEGORIES = ['Endings', 'Errors', 'Fold', 'Formats', 'Native protocol', 'Operators', 'Pipeline', 'Prices', 'Replay', 'Results', 'Vocabularies']

const sorted = (names: ReadonlyArray<string>): Array<string> => [...names].sort()
const runtimeExports = async (entry: string): Promise<Array<string>> => sorted(Object.keys(await import(join(dist, entry))))

interface Reexport {
  readonly name: string
  readonly typeOnly: boolean
  readonly from: string
}

/** The names a .d.ts file re-exports (`export { a, type B } from './x.js'`, `export type { C } from './y.js'`, `export * from './z.js'`). */
const reexportsOf = (file: string): Array<Reexport> => {
  const text = readFileSync(file, 'utf8')
  const out: Array<Reexport> = []
  for (const m of text.matchAll(/export \* from '([^']+)'/g)) out.push(...reexportsOf(join(dirname(file), (m[1] ?? '').replace(/\.js$/, '.d.ts'))))
  for (const m of text.matchAll(/export (type )?\{([^}]*)\} from '([^']+)'/g)) {
    for (const part of (m[2] ?? '').split(',')) {
      const spec = part.trim()
      if (spec === '') continue
      const typeOnly = m[1] !== undefined || spec.startsWith('type ')
      out.push({ name: spec.replace(/^type /, '').trim(), typeOnly, from: join(dirname(file), (m[3] ?? '').replace(/\.js$/, '.d.ts')) })
    }
  }
  return out
}

/** The `@category` of the declaration `name` in `file` (following re-exports), or why there is none. */
const categoryOf = (file: string, name: string, depth = 0): string => {
  if (depth > 4 || !existsSync(file)) return `no file ${file}`
  const text = readFileSync(file, 'utf8')
  const decl = new RegExp(`^export (?:declare )?(?:abstract )?(?:const|let|function|class|interface|type|enum) ${name}\\b`, 'm').exec(text)
  if (decl === null) {
    const next = reexportsOf(file).find((r) => r.name === name)
    return next === undefined ? `no declaration in ${file}` : categoryOf(next.from, name, depth + 1)
  }
  const before = text.slice(0, decl.index).trimEnd()
  if (!before.endsWith('*/')) return 'no docstring'
  const doc = before.slice(before.lastIndexOf('/**'))
  return /@category ([A-Za-z][A-Za-z ]*?)\s*(?:\*\/|\n|@)/.exec(doc)?.[1] ?? 'no @category'
}

describe('the runtime exports of each entry', () => {
  it('run-outcome (dist/index.js): the core vocabulary and the Replay category', async () => {
    expect(await runtimeExports('index.js')).toStrictEqual(sorted([...CORE_VALUES, ...REPLAY_VALUES]))
  })

  it('run-outcome/core (dist/browser.js): the core vocabulary, nothing that needs Node', async () => {
    expect(await runtimeExports('browser.js')).toStrictEqual(sorted(CORE_VALUES))
  })

  it('run-outcome/replay (dist/replay.js): the Replay category and the result helpers, the same bindings as the root', async () => {
    expect(await runtimeExports('replay.js')).toStrictEqual(sorted(REPLAY_ENTRY_VALUES))
    const root = await import(join(dist, 'index.js'))
    const light = await import(join(dist, 'replay.js'))
    for (const name of REPLAY_ENTRY_VALUES) expect(light[name], name).toBe(root[name])
  })

  it('run-outcome/jetstream (dist/jetstream/index.js)', async () => {
    expect(await runtimeExports('jetstream/index.js')).toStrictEqual(sorted(JETSTREAM_VALUES))
  })
})

describe('the declared exports of the root and run-outcome/core', () => {
  it('type-only exports are listed too; the fold and per-format internals are not among them', () => {
    // a name reached through two `export *` (the root re-exports run-outcome/core and run-outcome/replay, which share
    // the result types) is one export
    const typesOf = (entry: string) => sorted([...new Set(reexportsOf(join(dist, entry)).flatMap((r) => (r.typeOnly ? [r.name] : [])))])
    expect(typesOf('index.d.ts')).toStrictEqual(sorted([...CORE_TYPES, ...REPLAY_TYPES]))
    expect(typesOf('browser.d.ts')).toStrictEqual(sorted(CORE_TYPES))
    expect(typesOf('replay.d.ts')).toStrictEqual(sorted(REPLAY_ENTRY_TYPES))
    const all = reexportsOf(join(dist, 'index.d.ts')).map((r) => r.name)
    for (const internal of [
      'RunDraftCodec',
      'SeqMemory',
      'NativeRunState',
      'SEQ_WINDOW',
      'createClaudeCodeReader',
      'sniffClaudeCodeLines',
      'acpEndingOfStopReason',
    ]) {
      expect(all).not.toContain(internal)
    }
  })

  it('every export carries a @category from the root’s list in its docstring', () => {
    for (const entry of ['index.d.ts', 'browser.d.ts', 'replay.d.ts']) {
      const categories = Object.fromEntries(reexportsOf(join(dist, entry)).map((r) => [r.name, categoryOf(r.from, r.name)]))
      const wrong = Object.entries(categories).filter(([, c]) => !CATEGORIES.includes(c))
      expect(wrong).toStrictEqual([])
      expect(categories.replayFile ?? categories.foldEvents).toBe(entry === 'browser.d.ts' ? 'Fold' : 'Replay')
      expect(categories.matchEnding).toBe('Endings')
    }
  })
})
