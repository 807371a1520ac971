/** A TestScheduler whose assertion normalises errors (ProtocolError → toJSON, others → name/message). */
import { TestScheduler } from 'rxjs/testing'
import { expect } from 'vitest'
import { isProtocolError } from '../../src/core/ProtocolError.js'

const normalise = (frames: unknown): unknown =>
  JSON.parse(
    JSON.stringify(frames, (_k, v: unknown) => {
      if (isProtocolError(v)) return v.toJSON()
      if (v instanceof Error) return { name: v.name, message: v.message }
      return v
    }),
  )

export const scheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(normalise(actual)).toStrictEqual(normalise(expected)))
