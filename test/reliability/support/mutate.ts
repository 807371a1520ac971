/**
 * A deterministic mutator of corpus logs: byte-, line- and JSON-level faults (hostile values, deep nesting,
 * out-of-range numbers, `__proto__` keys, other formats' records, cut and doubled lines, CRLF, BOM, invalid
 * UTF-8). Seeded, so every mutation can be rebuilt from (seed, index).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** mulberry32: a small, fast, seeded PRNG. */
export class Rng {
  private s: number
  constructor(seed: number) {
    this.s = seed >>> 0
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0
    let t = this.s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  pick<A>(xs: ReadonlyArray<A>): A {
    return xs[this.int(xs.length)] as A
  }
  chance(p: number): boolean {
    return this.next() < p
  }
}

export interface Seed {
  /** corpus directory and file name */
  readonly name: string
  /** the format the directory holds (a `--format` name) */
  readonly format: string
  readonly document: boolean
  readonly lines: ReadonlyArray<string>
  readonly text: string
}

const FORMAT_OF: Readonly<Record<string, string>> = {
  'claude-code-stream-json': 'claude-code',
  'claude-code-transcript': 'claude-code',
  'codex-exec-json': 'codex',
  'codex-rollout': 'codex',
  'gemini-session': 'gemini',
  'gemini-stream-json': 'gemini',
  'ai-sdk-provider-chunks': 'ai-sdk',
  'ai-sdk-ui-message-stream': 'ai-sdk',
  'ai-sdk-fullstream': 'ai-sdk',
  'openai-agents-runstate': 'openai-agents',
  'openai-agents-stream': 'openai-agents',
  acp: 'acp',
  hostile: 'native',
  native: 'native',
}

/** The corpus logs under test/fixtures/<dir>/ (and the bundled native example), read once. */
export const loadSeeds = (fixtures: string, extra: ReadonlyArray<[string, string]> = []): Array<Seed> => {
  const out: Array<Seed> = []
  const add = (name: string, format: string, path: string): void => {
    const text = readFileSync(path, 'utf8')
    const trimmed = text.trimStart()
    const document = path.endsWith('.json') && (trimmed.startsWith('{') || trimmed.startsWith('['))
    out.push({ name, format, document, text, lines: text.split('\n').filter((l) => l.trim() !== '') })
  }
  for (const dir of Object.keys(FORMAT_OF).sort()) {
    const d = join(fixtures, dir)
    let files: Array<string>
    try {
      files = readdirSync(d).sort()
    } catch {
      continue
    }
    for (const f of files) {
      const p = join(d, f)
      if (!statSync(p).isFile() || f.endsWith('.md') || f === 'expected.json' || f.endsWith('.mjs') || f.endsWith('.bin')) continue
      add(`${dir}/${f}`, FORMAT_OF[dir] as string, p)
    }
  }
  for (const [name, path] of extra) add(name, 'native', path)
  return out
}

const RAW = '\u0000RAW:'
const raw = (text: string): string => `${RAW}${text}\u0000`
/** JSON text in which `raw(...)` placeholders become raw JSON (so `1e999` and deep values can be written). */
const toText = (v: unknown, indent?: number): string => {
  const t = JSON.stringify(v, null, indent) ?? 'null'
  return t.includes('\\u0000RAW:') ? t.replace(/"\\u0000RAW:(.*?)\\u0000"/g, (_m, body: string) => JSON.parse(`"${body}"`) as string) : t
}

/** Words that name record types, kinds and statuses of the formats: swapped in to reach other branches. */
const WORDS = [
  'result',
  'success',
  'error',
  'error_max_turns',
  'error_during_execution',
  'assistant',
  'user',
  'system',
  'init',
  'tool_use',
  'tool_result',
  'text',
  'thinking',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'thread.started',
  'item.completed',
  'agent_message',
  'command_execution',
  'event_msg',
  'response_item',
  'task_complete',
  'turn_aborted',
  'token_count',
  'user_message',
  'interrupted',
  'budget_limited',
  'message',
  'gemini',
  'finish',
  'finish-step',
  'abort',
  'tool-approval-request',
  'text-delta',
  'start',
  'stop',
  'length',
  'content-filter',
  'tool-calls',
  'end_turn',
  'max_tokens',
  'refusal',
  'cancelled',
  'session/update',
  'session/prompt',
  'turn/end',
  'turn/start',
  'assistant/message',
  'session/status',
  'idle',
  'completed',
  'max-tokens',
  'aborted',
  'suspended',
  'limit',
  'blocked',
  'subagent/started',
  'next_step_interruption',
  'tool_approval_item',
  'currentStep',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '',
]

/** Hostile JSON values, as raw JSON text. */
const VALUES = [
  'null',
  'true',
  'false',
  '0',
  '-1',
  '-0',
  '1.5',
  '1e308',
  '1e999',
  '-1e999',
  '9007199254740993',
  '""',
  '"NaN"',
  '"Infinity"',
  '{}',
  '[]',
  '[[]]',
  '[null]',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '"\\ud800"',
  '"\\u0000"',
  '"\\u2028"',
  '"line\\r\\nbreak"',
]

const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`

type Json = unknown
const isObj = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Holders of every value in a JSON value (capped), for picking a node to mutate. */
const holders = (root: Json, cap = 4000): Array<[Record<string, unknown> | Array<unknown>, string | number]> => {
  const out: Array<[Record<string, unknown> | Array<unknown>, string | number]> = []
  const stack: Array<Json> = [root]
  while (stack.length > 0 && out.length < cap) {
    const v = stack.pop()
    if (Array.isArray(v))
      v.forEach((x, i) => {
        out.push([v, i])
        stack.push(x)
      })
    else if (isObj(v))
      for (const k of Object.keys(v)) {
        out.push([v, k])
        stack.push(v[k])
      }
  }
  return out
}

const setAt = (h: Record<string, unknown> | Array<unknown>, k: string | number, v: unknown): void => {
  if (Array.isArray(h)) h[k as number] = v
  else Object.defineProperty(h, k, { value: v, enumerable: true, writable: true, configurable: true })
}

/** One JSON-level mutation of a parsed value; returns a description. */
const mutateJson = (rng: Rng, root: { v: Json }, seeds: ReadonlyArray<Seed>): string => {
  const hs = holders(root.v)
  if (hs.length === 0) {
    root.v = raw(rng.pick(VALUES))
    return 'json:replace-root'
  }
  const [h, k] = rng.pick(hs)
  const old = (h as Record<string | number, unknown>)[k]
  const op = rng.int(10)
  switch (op) {
    case 0:
    case 1: {
      const depthRoll = rng.next()
      const value = depthRoll < 0.0005 ? deep(100_000) : depthRoll < 0.01 ? deep(rng.pick([600, 10_000])) : rng.pick(VALUES)
      setAt(h, k, raw(value))
      return `json:set-${value.length > 40 ? `deep${value.length / 2}` : value}`
    }
    case 2:
      if (!Array.isArray(h)) delete h[k as string]
      else h.splice(k as number, 1)
      return 'json:delete'
    case 3:
      if (!Array.isArray(h)) {
        const name = rng.pick(['__proto__', 'constructor', 'prototype', 'toString', 'type', 'kind', 'subtype', 'status', 'is_error'])
        delete h[k as string]
        setAt(h, name, old)
        return `json:rename-${name}`
      }
      h.push(old)
      return 'json:array-dup'
    case 4:
    case 5:
      setAt(h, k, rng.pick(WORDS))
      return 'json:word'
    case 6:
      setAt(
        h,
        k,
        typeof old === 'string'
          ? old.length > 0 && /^-?\d/.test(old)
            ? Number(old)
            : old.length
          : typeof old === 'number'
            ? String(old)
            : isObj(old)
              ? Object.values(old)
              : Array.isArray(old)
                ? { ...old }
                : String(old),
      )
      return 'json:retype'
    case 7:
      setAt(
        h,
        k,
        typeof old === 'number'
          ? rng.pick([-old, old * 1e300, old + 0.5, Number.MAX_SAFE_INTEGER + 2])
          : typeof old === 'string'
            ? old + 'x'.repeat(rng.chance(0.02) ? 200_000 : rng.int(20))
            : null,
      )
      return 'json:scale'
    case 8: {
      // a value from another log (likely another format) dropped in
      const s = rng.pick(seeds)
      const line = rng.pick(s.lines.length > 0 ? s.lines : ['{}'])
      try {
        setAt(h, k, JSON.parse(line))
      } catch {
        setAt(h, k, line)
      }
      return 'json:graft'
    }
    default:
      if (isObj(h)) {
        setAt(h, '__proto__', { polluted: 'yes', inputTokens: 1 })
        setAt(h, rng.pick(WORDS), rng.pick([1, 'x', null, {}]))
      }
      return 'json:add-keys'
  }
}

/** One mutation of the whole input; returns the new bytes and a description. */
const mutateOnce = (rng: Rng, input: Buffer, seeds: ReadonlyArray<Seed>, document: boolean): [Buffer, string] => {
  const kind = rng.next()
  if (kind < 0.45) {
    // JSON level: one line (or the whole document)
    if (document) {
      const text = input.toString('utf8')
      try {
        const root = { v: JSON.parse(text) as Json }
        const d = mutateJson(rng, root, seeds)
        return [Buffer.from(toText(root.v, rng.chance(0.5) ? 2 : undefined)), d]
      } catch {
        // no longer a document: fall through to a byte mutation
      }
    } else {
      const lines = input.toString('utf8').split('\n')
      const idx = lines.map((l, i) => [l, i] as const).filter(([l]) => l.trimStart().startsWith('{') || l.trimStart().startsWith('['))
      if (idx.length > 0) {
        const [line, i] = rng.pick(idx)
        try {
          const root = { v: JSON.parse(line) as Json }
          const d = mutateJson(rng, root, seeds)
          lines[i] = toText(root.v)
          return [Buffer.from(lines.join('\n')), d]
        } catch {
          // fall through
        }
      }
    }
  }
  if (kind < 0.75) {
    const lines = input.toString('latin1').split('\n')
    const n = lines.length
    const a = rng.int(n)
    const b = rng.int(n)
    switch (rng.int(9)) {
      case 0:
        lines.splice(a, 0, lines[b] as string)
        return [Buffer.from(lines.join('\n'), 'latin1'), 'line:dup']
      case 1:
        lines.splice(a, 1)
        return [Buffer.from(lines.join('\n'), 'latin1'), 'line:drop']
      case 2: {
        const t = lines[a] as string
        lines[a] = lines[b] as string
        lines[b] = t
        return [Buffer.from(lines.join('\n'), 'latin1'), 'line:swap']
      }
      case 3:
        return [Buffer.from(lines.reverse().join('\n'), 'latin1'), 'line:reverse']
      case 4: {
        const s = rng.pick(seeds)
        lines.splice(a, 0, Buffer.from(rng.pick(s.lines.length > 0 ? s.lines : ['{}'])).toString('latin1'))
        return [Buffer.from(lines.join('\n'), 'latin1'), `line:graft-${s.format}`]
      }
      case 5:
        return [Buffer.from(lines.join('\r\n'), 'latin1'), 'line:crlf']
      case 6:
        return [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), input]), 'line:bom']
      case 7:
        lines.splice(
          a,
          0,
          rng.pick(['', '   ', 'not json', '}', '{', '[', ']', 'data: {"type":"x"}', 'data: [DONE]', 'Reading additional input from stdin...', '\u0000\u0001']),
        )
        return [Buffer.from(lines.join('\n'), 'latin1'), 'line:noise']
      default:
        if (n > 1) lines.splice(a, 2, `${lines[a]}${lines[a + 1] ?? ''}`)
        return [Buffer.from(lines.join('\n'), 'latin1'), 'line:join']
    }
  }
  // byte level
  const len = input.length
  const at = rng.int(len + 1)
  switch (rng.int(6)) {
    case 0: {
      if (len === 0) return [Buffer.from([rng.int(256)]), 'byte:set']
      const b = Buffer.from(input)
      b[Math.min(at, len - 1)] = rng.int(256)
      return [b, 'byte:set']
    }
    case 1: {
      const token = rng.pick([
        Buffer.from('\r'),
        Buffer.from('\n'),
        Buffer.from('\r\n'),
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from([0xff]),
        Buffer.from([0xc3]),
        Buffer.from([0x80]),
        Buffer.from([0xf0, 0x9f]),
        Buffer.from([0]),
        Buffer.from('{'),
        Buffer.from('}'),
        Buffer.from('['),
        Buffer.from(']'),
        Buffer.from('"'),
        Buffer.from('\\'),
        Buffer.from(','),
        Buffer.from(':'),
        Buffer.from('1e999'),
        Buffer.from('🙂'),
        Buffer.from('\u2028'),
      ])
      return [Buffer.concat([input.subarray(0, at), token, input.subarray(at)]), 'byte:insert']
    }
    case 2: {
      const n = 1 + rng.int(64)
      return [Buffer.concat([input.subarray(0, at), input.subarray(at + n)]), 'byte:delete']
    }
    case 3:
      return [input.subarray(0, at), 'byte:truncate']
    case 4: {
      const from = rng.int(len + 1)
      const piece = input.subarray(from, from + 1 + rng.int(200))
      return [Buffer.concat([input.subarray(0, at), piece, input.subarray(at)]), 'byte:copy']
    }
    default: {
      const b = Buffer.from(input)
      for (let i = 0; i < 1 + rng.int(8); i++) if (b.length > 0) b[rng.int(b.length)] = rng.int(256)
      return [b, 'byte:noise']
    }
  }
}

export interface Mutation {
  readonly index: number
  readonly seed: string
  readonly format: string
  readonly ops: ReadonlyArray<string>
  readonly input: Buffer
  readonly argv: ReadonlyArray<string>
}

const MAX_WINDOW_BYTES = 48 * 1024

/** An excerpt of a seed: a window of up to 12 lines (capped in bytes), or the whole document. */
const excerpt = (rng: Rng, s: Seed): Buffer => {
  if (s.document) return Buffer.from(s.text)
  if (s.lines.length === 0) return Buffer.alloc(0)
  const len = 1 + rng.int(Math.min(12, s.lines.length))
  const start = rng.int(s.lines.length - len + 1)
  // keep the head of a log more often: detection and run starts live there
  const from = rng.chance(0.4) ? 0 : start
  const picked: Array<string> = []
  let bytes = 0
  for (let i = from; i < from + len && i < s.lines.length; i++) {
    const l = s.lines[i] as string
    if (bytes + l.length > MAX_WINDOW_BYTES && picked.length > 0) break
    picked.push(l.length > MAX_WINDOW_BYTES ? l.slice(0, MAX_WINDOW_BYTES) : l)
    bytes += l.length
  }
  return Buffer.from(`${picked.join('\n')}${rng.chance(0.9) ? '\n' : ''}`)
}

const FORMATS = ['native', 'claude-code', 'codex', 'gemini', 'ai-sdk', 'openai-agents', 'acp']

/** The `index`-th mutation of the stream seeded with `seed`. */
export const mutation = (seed: number, index: number, seeds: ReadonlyArray<Seed>): Mutation => {
  const rng = new Rng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)
  const s = rng.pick(seeds)
  let input = excerpt(rng, s)
  const ops: Array<string> = []
  const n = 1 + rng.int(4)
  for (let i = 0; i < n; i++) {
    const [next, d] = mutateOnce(rng, input, seeds, s.document && i === 0)
    input = next
    ops.push(d)
  }
  const roll = rng.next()
  const format = roll < 0.7 ? 'auto' : roll < 0.85 ? s.format : rng.pick(FORMATS)
  const argv = [
    'replay',
    ...(rng.chance(0.85) ? ['--json'] : []),
    '--format',
    format,
    ...(rng.chance(0.1) ? ['--accept', rng.pick(['cut_off', 'suspended', 'unfinished'])] : []),
    ...(rng.chance(0.03) ? ['--message-id', 'MSG'] : []),
    '-',
  ]
  return { index, seed: s.name, format: s.format, ops, input, argv }
}
