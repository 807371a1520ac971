/**
 * The one gzip decoder (`src/node/decodedBytes.ts`): every member of a gzip stream, decompressed in full, and each
 * fault of the bytes said in a note while what they held is read. A hostile-input trial found that bytes after the
 * gzip data that were no gzip (which `gzip -d` ignores) failed the whole log, and dropped up to 16 KiB of it that
 * had been decompressed already: Node's gunzip reset on them and lost the output of the write that held them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crc32, deflateRawSync, gunzipSync, gzipSync } from 'node:zlib'
import { decodedBytes } from '../../src/node/decodedBytes.js'
import { FC_RUNS } from '../reliability/support/runs.js'

const text = Buffer.from(
  Array.from({ length: 3000 }, (_, i) => JSON.stringify({ type: 'turn/start', sessionId: `s${i % 7}`, seq: i, data: { n: i * 7919 } })).join('\n'),
)
const other = Buffer.from('{"a":1}\n{"b":"two"}\n')

/** `bytes` as a source of chunks of the given sizes (cycled), then the rest. */
async function* chunked(bytes: Buffer, sizes: ReadonlyArray<number> = [bytes.length]): AsyncGenerator<Buffer> {
  let at = 0
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length] as number)
    yield bytes.subarray(at, at + n)
    at += n
  }
}

/** What `bytes` decode to, delivered in chunks of `sizes`: the output as text (compared whole), and the notes. */
const decode = async (bytes: Buffer, sizes?: ReadonlyArray<number>): Promise<{ out: string; notes: Array<string> }> => {
  const notes: Array<string> = []
  const parts: Array<Buffer> = []
  for await (const c of decodedBytes(chunked(bytes, sizes), (n) => notes.push(n))) parts.push(Buffer.from(c))
  return { out: Buffer.concat(parts).toString('latin1'), notes }
}
const str = (b: Buffer): string => b.toString('latin1')

const CUT = 'the gzip stream ended before its end marker (cut off); read what it held'
const TRAILING = 'bytes after the gzip data are no gzip data (as gzip -d, the data was read and they were left out)'
const FAILS_CHECK = 'the gzip data fails its check (its length or CRC-32 differs); read as it decompressed'
const DAMAGED = 'the gzip data is damaged; read what came before the damage'
const HEADER_FAILS_CHECK = 'a gzip member header fails its CRC-16 check; its data was read as it decompressed'

/**
 * A gzip member written by hand, with every optional header field (RFC 1952 §2.3); its header CRC-16 is the right
 * one, or `headerCrc` when given.
 */
const fullHeaderMember = (data: Buffer, headerCrc?: number): Buffer => {
  const extra = Buffer.from([0x41, 0x42, 2, 0, 7, 7])
  const fields = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3]),
    Buffer.from([extra.length, 0]),
    extra,
    Buffer.from('log.jsonl\0', 'latin1'),
    Buffer.from('a comment\0', 'latin1'),
  ])
  const crc16 = Buffer.alloc(2)
  crc16.writeUInt16LE(headerCrc ?? crc32(fields) & 0xffff)
  const header = Buffer.concat([fields, crc16])
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(crc32(data), 0)
  trailer.writeUInt32LE(data.length, 4)
  return Buffer.concat([header, deflateRawSync(data), trailer])
}

describe('decodedBytes', () => {
  it('hands plain bytes on as they are', async () => {
    expect(await decode(text, [100])).toStrictEqual({ out: str(text), notes: [] })
  })

  it('gzip: one member, members one after another, zero padding between and after them, any header', async () => {
    expect(await decode(gzipSync(text))).toStrictEqual({ out: str(text), notes: [] })
    expect(await decode(Buffer.concat([gzipSync(text), gzipSync(other)]))).toStrictEqual({ out: str(Buffer.concat([text, other])), notes: [] })
    expect(await decode(Buffer.concat([gzipSync(text), Buffer.alloc(512), gzipSync(other), Buffer.alloc(3)]))).toStrictEqual({
      out: str(Buffer.concat([text, other])),
      notes: [],
    })
    expect(await decode(Buffer.concat([fullHeaderMember(text), fullHeaderMember(other)]), [5])).toStrictEqual({
      out: str(Buffer.concat([text, other])),
      notes: [],
    })
  })

  it('bytes after the gzip data that are no gzip: all the data, and a note', async () => {
    for (const tail of ['trailing garbage', 'x', '\u0000\u0000junk', '\u001f\u008bX'])
      expect(await decode(Buffer.concat([gzipSync(text), Buffer.from(tail, 'latin1')]))).toStrictEqual({ out: str(text), notes: [TRAILING] })
  })

  it('a stream cut anywhere: what it held, a prefix of the data, and the note of a cut', async () => {
    const gz = Buffer.concat([gzipSync(text), gzipSync(other)])
    const whole = Buffer.concat([text, other])
    for (const at of [2, 5, 9, 10, 11, 100, 5000, gz.length - gzipSync(other).length - 4, gz.length - 9, gz.length - 1]) {
      const { out, notes } = await decode(gz.subarray(0, at))
      expect(str(whole).startsWith(out)).toBe(true)
      expect(notes).toStrictEqual([CUT])
    }
  })

  it('a trailer that does not match the data: the data as it decompressed, and a note', async () => {
    const gz = gzipSync(text)
    gz[gz.length - 8] = (gz[gz.length - 8] as number) ^ 0xff
    expect(await decode(gz)).toStrictEqual({ out: str(text), notes: [FAILS_CHECK] })
  })

  it('a header that fails its CRC-16: the data as it decompressed, and a note; a right one passes zlib too', async () => {
    const right = fullHeaderMember(text)
    // zlib checks the header CRC as well: the hand-written member is a real one
    expect(str(gunzipSync(right))).toBe(str(text))
    const crc = right.readUInt16LE(right.indexOf('a comment\0', 0, 'latin1') + 10)
    const wrong = fullHeaderMember(text, crc ^ 0x0101)
    expect(() => gunzipSync(wrong)).toThrow()
    for (const sizes of [undefined, [1], [7, 3]]) {
      expect(await decode(Buffer.concat([wrong, gzipSync(other)]), sizes)).toStrictEqual({
        out: str(Buffer.concat([text, other])),
        notes: [HEADER_FAILS_CHECK],
      })
    }
  })

  it('string chunks: a surrogate pair split between two chunks is one character, as the whole string encodes (hostile trial)', async () => {
    const bytesOf = async (chunks: ReadonlyArray<string>): Promise<Buffer> => {
      const parts: Array<Buffer> = []
      const source = (async function* () {
        yield* chunks
      })()
      for await (const c of decodedBytes(source, () => {})) parts.push(Buffer.from(c))
      return Buffer.concat(parts)
    }
    const emoji = '{"text":"\u{1F600} ok"}\n'
    const cut = emoji.indexOf('\u{1F600}') + 1
    expect((await bytesOf([emoji.slice(0, cut), emoji.slice(cut)])).toString('utf8')).toBe(emoji)
    // any UTF-16 text (lone surrogates too), cut anywhere: the bytes of the whole string
    const unit = fc.oneof(
      fc.constantFrom('\ud83d', '\ude00', '\ud800', 'a', '\n', '\u00e9'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit, maxLength: 12 }), { maxLength: 6 }), async (chunks) => {
        // (a string never starts with the gzip magic once encoded: U+008B is two bytes, c2 8b)
        const text = chunks.join('')
        expect((await bytesOf(chunks)).equals(Buffer.from(text))).toBe(true)
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('damaged deflate data: no exception, what came before, and a note', async () => {
    const gz = gzipSync(text)
    const bad = Buffer.concat([gz.subarray(0, 10), Buffer.from([0xff, 0xff, 0xff, 0xff]), gz.subarray(14)])
    const { out, notes } = await decode(bad)
    expect(str(text).startsWith(out)).toBe(true)
    expect(notes).toStrictEqual([DAMAGED])
  })

  // a second trial: a header past 64 KiB was read when it came in one piece, and called damaged when it came in
  // smaller ones (the cap looked at the bytes held, not at the header)
  it('a long header is read, or refused, by its own length, whatever the chunks it comes in', async () => {
    const member = (fextra: number, name: number, data: Buffer): Buffer => {
      const trailer = Buffer.alloc(8)
      trailer.writeUInt32LE(crc32(data), 0)
      trailer.writeUInt32LE(data.length, 4)
      const xlen = Buffer.alloc(2)
      xlen.writeUInt16LE(fextra, 0)
      return Buffer.concat([
        Buffer.from([0x1f, 0x8b, 8, 4 | 8, 0, 0, 0, 0, 0, 3]),
        xlen,
        Buffer.alloc(fextra, 7),
        Buffer.alloc(name, 0x61),
        Buffer.from([0]),
        deflateRawSync(data),
        trailer,
      ])
    }
    const long = Buffer.concat([member(65535, 300_000, text), member(0, 5, other)])
    const tooLong = member(65535, 1024 * 1024, other)
    for (const sizes of [[long.length], [65536], [4096], [7]]) {
      expect(await decode(long, sizes)).toStrictEqual({ out: str(Buffer.concat([text, other])), notes: [] })
      expect(await decode(tooLong, sizes)).toStrictEqual({ out: '', notes: [DAMAGED] })
    }
  })

  it('the same bytes whatever the chunks a source delivers them in', async () => {
    const gz = Buffer.concat([gzipSync(text), gzipSync(other), Buffer.from('tail')])
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 12 }).filter((sizes) => sizes.some((n) => n >= 256)),
        async (sizes) => {
          expect(await decode(gz, sizes)).toStrictEqual({ out: str(Buffer.concat([text, other])), notes: [TRAILING] })
        },
      ),
      { numRuns: Math.min(FC_RUNS, 100) },
    )
  })
})
