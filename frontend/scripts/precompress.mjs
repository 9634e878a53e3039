// Writes brotli (.br) and gzip (.gz) siblings of every compressible file in
// dist/, which the gateway serves to clients that accept them (gzip_static
// style: compressed once at build time at the highest levels, never per
// request). A sibling is kept only when it is smaller than the file.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.webmanifest', '.txt', '.xml', '.map'])
// Below this the saving is smaller than the headers it costs.
const MIN_BYTES = 1024

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* files(path)
    else if (entry.isFile()) yield path
  }
}

const dist = process.argv[2] ?? join(import.meta.dirname, '..', 'dist')
let before = 0
let after = 0
for (const path of files(dist)) {
  if (!COMPRESSIBLE.has(extname(path)) || statSync(path).size < MIN_BYTES) continue
  const raw = readFileSync(path)
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  })
  const gz = gzipSync(raw, { level: 9 })
  if (br.length < raw.length) writeFileSync(`${path}.br`, br)
  if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz)
  before += raw.length
  after += Math.min(br.length, raw.length)
}
console.log(`precompressed: ${(before / 1000).toFixed(0)} kB → ${(after / 1000).toFixed(0)} kB brotli`)
