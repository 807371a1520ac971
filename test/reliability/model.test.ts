/**
 * Model-based tests (`fc.commands`) of the native protocol: valid traces generated from a deliberately simpler
 * model, the real fold's projections checked against it after every event; illegal moves checked to give a
 * `ProtocolError` of the right kind at the right index.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { currentResult, initialState, NativeFolder } from '../../src/core/fold.js'
import { expectSame } from './support/equal.js'
import { illegalCommands, newModel, type Model, type Real, sessionsArb, validCommands } from './support/model.js'
import { figure, FC_RUNS } from './support/runs.js'

figure(`model-based: ${FC_RUNS} command sequences per test (FC_NUM_RUNS)`)

const stats = { sequences: 0, commands: 0, illegal: 0, closedRuns: 0 }

const runModel = (withIllegal: boolean) =>
  fc.assert(
    fc.property(
      sessionsArb,
      fc.commands(withIllegal ? [...validCommands, ...illegalCommands] : [...validCommands], { maxCommands: 60, size: 'max' }),
      ([root, kids], cmds) => {
        let model: Model | undefined
        let real: Real | undefined
        fc.modelRun(() => {
          model = newModel(root, kids)
          real = { state: initialState(), log: [] }
          return { model, real }
        }, cmds)
        if (model === undefined || real === undefined) return
        // the fast path (one private mutable state) equals the pure `step`, state for state
        const folder = new NativeFolder()
        for (const e of real.log) if (folder.push(e) !== undefined) throw new Error('the fast path rejected a valid event')
        expectSame(folder.state, real.state, 'fast-path state')
        expectSame(currentResult(folder.state), currentResult(real.state), 'fast-path result')
        stats.sequences++
        stats.commands += real.log.length + model.illegal
        stats.illegal += model.illegal
        stats.closedRuns += model.closed.length
      },
    ),
    { numRuns: FC_RUNS },
  )

describe('native protocol model (fc.commands)', () => {
  it('valid traces: ending, finishReason, response, counts, usage and cost sums, children follow the model', () => {
    runModel(false)
    figure(`model-based valid: ${stats.sequences} sequences, ${stats.commands} events, ${stats.closedRuns} runs closed`)
    expect(stats.sequences).toBeGreaterThan(0)
  })

  it('illegal moves: each is a ProtocolError of the right kind, index and path; the valid prefix is unaffected', () => {
    const before = { ...stats }
    runModel(true)
    figure(
      `model-based with illegal moves: ${stats.sequences - before.sequences} sequences, ${stats.commands - before.commands} events, ${stats.illegal} illegal moves checked`,
    )
    expect(stats.illegal).toBeGreaterThan(0)
  })
})
