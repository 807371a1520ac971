/** The format names the CLI's help and option checks spell without loading the translators (src/formats/names.ts). */
import { describe, expect, it } from 'vitest'
import { formats } from '../../src/formats/index.js'
import { FORMAT_NAMES } from '../../src/formats/names.js'

describe('FORMAT_NAMES', () => {
  it('is the list of formats, in their order', () => {
    expect(FORMAT_NAMES).toStrictEqual(formats.map((f) => f.name))
  })
})
