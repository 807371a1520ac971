/**
 * `watch` prices runs as `replay` and `stats` do (issue 13's gap): a cost the log does not report is estimated
 * from the bundled prices and marked `~`; `--prices FILE` overrides them, `--no-estimate` turns estimates off,
 * and `--json` says what an estimate was made with (`cost.priceData`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { watchOnTty } from '../support/watchTty.js'

// a Claude Code transcript of one run: a prompt, and an answer with usage but no cost (transcripts report none)
const rec = (type: string, uuid: string, message: object): string =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: '/tmp',
    sessionId: 's',
    version: '2.0.30',
    type,
    uuid,
    timestamp: '2025-10-30T12:00:00.000Z',
    message,
  })
const log = `${[
  rec('user', 'u1', { role: 'user', content: 'hi' }),
  rec('assistant', 'u2', {
    id: 'm1',
    model: 'claude-sonnet-4-20250514',
    role: 'assistant',
    content: [{ type: 'text', text: 'hello' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 1000, output_tokens: 100 },
  }),
].join('\n')}\n`

describe('watch estimates costs', () => {
  it('as replay does: the same estimated cost, marked ~, in the result', async () => {
    const replay = await runCli(['replay', '--json', '-'], log)
    const expected = JSON.parse(replay.stdout.split('\n')[0] as string).cost
    const w = await runCli(['watch', '--json'], log)
    const got = JSON.parse(w.stdout.split('\n')[0] as string).cost
    expect(got).toStrictEqual(expected)
    expect(got.estimated).toBe(true)
    // Sonnet 4: $3 per million input tokens, $15 per million output
    expect(got.totalUsd).toBeCloseTo(0.0045, 10)
    expect(w.code).toBe(0)
    expect(got.priceData.source).toBe('@pydantic/genai-prices')
    expect(got.priceData.file).toBeNull()
    const text = await runCli(['watch'], log)
    expect(text.stdout).toContain(`~$${got.totalUsd.toFixed(4)}`)
  })
  it('--no-estimate: only reported costs (none here), no priceData', async () => {
    const w = await runCli(['watch', '--json', '--no-estimate'], log)
    const cost = JSON.parse(w.stdout.split('\n')[0] as string).cost
    expect(cost.totalUsd).toBeNull()
    expect(cost.priceData).toBeUndefined()
    expect((await runCli(['watch', '--no-estimate'], log)).stdout).not.toContain('~$')
  })
  it('--prices FILE: the table prices the run; a bad table or both flags are usage errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-watch-prices-'))
    const replay = JSON.parse((await runCli(['replay', '--json', '-'], log)).stdout.split('\n')[0] as string)
    const model = Object.keys(replay.usage.byModel)[0] as string
    const file = join(dir, 'prices.json')
    writeFileSync(file, JSON.stringify({ [model]: { input: 1_000_000, output: 0, cachedInput: 0, cacheWrite: 0 } }))
    const w = await runCli(['watch', '--json', '--prices', file], log)
    const cost = JSON.parse(w.stdout.split('\n')[0] as string).cost
    // $1,000,000 per million uncached input tokens: $1 per token
    expect(replay.usage.inputTokens).toBe(1000)
    expect(cost.totalUsd).toBe(1000)
    expect(cost.priceData.file).toBe(file)
    const both = await runCli(['watch', '--prices', file, '--no-estimate'], log)
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--prices and --no-estimate contradict each other')
    writeFileSync(join(dir, 'bad.json'), '{')
    const bad = await runCli(['watch', '--prices', join(dir, 'bad.json')], log)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('is not valid JSON')
  })
  it('the status line shows the open run’s estimated cost with ~', async () => {
    // the input pauses on the open run (a transcript's run ends at the next prompt or the end): the status is drawn
    const { code, stderr } = await watchOnTty([], log, 300)
    expect(code, stderr).toBe(0)
    const w = JSON.parse((await runCli(['watch', '--json'], log)).stdout.split('\n')[0] as string)
    expect(stderr).toContain(`~$${w.cost.totalUsd.toFixed(4)}`)
    const off = await runCli(['watch', '--no-estimate'], log)
    expect(off.stderr).not.toContain('~$')
  })

  it('the help says so', async () => {
    const h = await runCli(['watch', '--help'])
    expect(h.stdout).toContain('--prices FILE')
    expect(h.stdout).toContain('--no-estimate')
    expect(h.stdout).toContain('marked ~ (estimated)')
  })
})
