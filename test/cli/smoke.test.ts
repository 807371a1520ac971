/** The built package under plain Node: catches native-ESM import traps that vitest's resolver hides. */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { repoRoot, spawnCli } from '../support/cli.js'

describe('built package under plain node', () => {
  it('imports run-outcome by name and folds three events', () => {
    const script = `
      import { foldEvents, reduceRun, replayFile, isSuccess } from 'run-outcome'
      import { from, lastValueFrom } from 'rxjs'
      const evs = [
        { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
        { type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text: 'hi' }] } } },
        { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } },
      ]
      const r = foldEvents(evs)
      const o = await lastValueFrom(from(evs).pipe(reduceRun()))
      const runs = await replayFile('examples/native/session.jsonl')
      console.log(JSON.stringify([r._tag, r.right.ending.kind, o.response, isSuccess(o.ending), runs.length]))
    `
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' })
    expect(out.stderr).toBe('')
    expect(JSON.parse(out.stdout)).toStrictEqual(['Right', 'answered', 'hi', true, 2])
  })

  it('the bin replays the bundled native example', () => {
    const r = spawnCli(['replay', '--json', 'examples/native/session.jsonl'])
    expect(r.code).toBe(1)
    const runs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(runs.map((x) => x.ending)).toStrictEqual([{ kind: 'answered' }, { kind: 'cut_off', finishReason: 'max_tokens' }])
    expect(runs[0].children).toStrictEqual([{ sessionId: 'child-1', ending: { kind: 'answered' }, finishReason: 'completed' }])
    expect(runs[0].usage).toMatchObject({ inputTokens: 1700, cacheReadTokens: 2100, outputTokens: 62 })
    expect(runs[0].cost).toStrictEqual({ totalUsd: 0.0019, complete: true, missing: 0 })
  })

  it('--help exits 0', () => {
    expect(spawnCli(['--help']).code).toBe(0)
  })

  it('a reader that closes the pipe early does not change the exit status (| head)', async () => {
    const { spawn } = await import('node:child_process')
    const { binPath } = await import('../support/cli.js')
    // the big rollout has runs stopped by the caller: not every run answered, so the status is 1
    const child = spawn(
      process.execPath,
      [binPath, 'replay', 'test/fixtures/codex-rollout/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)))
    expect(code).toBe(1)
  })

  it("the README's library example runs as written and prints what its comments say", async () => {
    const { readFileSync } = await import('node:fs')
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const start = readme.indexOf('```ts\nimport { foldEvents')
    expect(start).toBeGreaterThan(-1)
    const code = readme.slice(start + 6, readme.indexOf('```', start + 6))
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, encoding: 'utf8' })
    expect(out.stderr).toBe('')
    expect(out.stdout.trim().split('\n')).toStrictEqual([
      "{ kind: 'answered' } true",
      'answered Done.',
      "{ kind: 'answered' } 1048",
      "{ kind: 'cut_off', finishReason: 'max_tokens' }",
    ])
  })

  it("the README's live-stream example runs as written and prints what its comments say", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const start = readme.indexOf("```ts\nimport { readFileSync } from 'node:fs'")
    expect(start).toBeGreaterThan(-1)
    const code = readme.slice(start + 6, readme.indexOf('```', start + 6))
    // the printed values are the ones the snippet's comments give
    const comments = [...code.matchAll(/\/\/ (\{ kind[^\n]*)/g)].map((m) => m[1])
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, encoding: 'utf8' })
    expect(out.stderr).toBe('')
    expect(out.stdout.trim().split('\n')).toStrictEqual(comments)
  })
})
