// Measures the JavaScript the landing route (/home) needs before it can
// render: the entry chunk, the home page chunk and every chunk they import
// statically, gzip level 9. Lazily imported chunks (supabase-js, menus, other
// pages, the Kiswahili catalogue) are not counted. Run after `npm run build`.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

const dir = join(import.meta.dirname, '..', 'dist', 'assets')
const files = readdirSync(dir)
const find = (prefix) => files.find((name) => name.startsWith(prefix) && name.endsWith('.js'))
const staticImports = (name) =>
  [...readFileSync(join(dir, name), 'utf8').matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1])

const seen = new Set()
const stack = [find('index-'), find('home-')]
while (stack.length) {
  const name = stack.pop()
  if (!name || seen.has(name)) continue
  seen.add(name)
  stack.push(...staticImports(name))
}
let total = 0
for (const name of [...seen].sort()) {
  const size = gzipSync(readFileSync(join(dir, name)), { level: 9 }).length
  total += size
  console.log(`${(size / 1000).toFixed(2).padStart(8)} kB  ${name}`)
}
console.log(`landing route JS: ${(total / 1000).toFixed(1)} kB gzipped (budget 150 kB)`)
process.exitCode = total > 150_000 ? 1 : 0
