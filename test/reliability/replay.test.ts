/** Replay leaves nothing behind: no pending timer keeps a CLI process (or a library caller) alive after it is done. */
import { describe, expect, it } from 'vitest'
import { replayStream } from '../../src/node/replay.js'

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('replayStream', () => {
  it('leaves no pending timer once it resolves (sniffing a live source races a pause timer)', async () => {
    const before = timers()
    for (const format of ['auto', 'native'] as const) {
      const runs: Array<unknown> = []
      await replayStream(
        (async function* () {
          yield Buffer.from('{"type":"turn/start","sessionId":"s","data":{}}\n')
          yield Buffer.from('{"type":"turn/end","sessionId":"s","data":{"reason":{"kind":"completed"}}}\n')
          yield Buffer.from('{"type":"session/status","sessionId":"s","data":{"status":"idle"}}\n')
        })(),
        (r) => runs.push(r),
        { format },
      )
      expect(runs).toHaveLength(1)
    }
    expect(timers()).toBe(before)
  })
})
