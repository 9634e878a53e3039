import { describe, expect, it } from 'vitest'

/**
 * Checks the layout rules of style.md §4 over every source file, standing in
 * for lint rules: kebab-case names, no barrel files, the supabase client only
 * in src/lib and features' api/, no cross-feature imports, shared code never
 * importing features or app, and semantic colour tokens only.
 */
const sources = import.meta.glob<string>('/src/**/*.{ts,tsx}', {
  query: '?raw',
  import: 'default',
  eager: true,
})

const files = Object.entries(sources).filter(([path]) => !path.endsWith('/architecture.test.ts'))

function importsOf(source: string): string[] {
  const found: string[] = []
  const pattern = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g
  for (const match of source.matchAll(pattern)) found.push(match[1])
  return found
}

function violations(check: (path: string, source: string) => string | undefined): string[] {
  return files.flatMap(([path, source]) => {
    const problem = check(path, source)
    return problem ? [`${path}: ${problem}`] : []
  })
}

describe('source layout', () => {
  it('found the source files', () => {
    expect(files.length).toBeGreaterThan(20)
  })

  it('names files in kebab-case', () => {
    expect(
      violations((path) => {
        const name = path.split('/').pop() ?? ''
        return /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*\.tsx?$/.test(name) ? undefined : 'not kebab-case'
      }),
    ).toEqual([])
  })

  it('has no barrel files', () => {
    expect(
      violations((path) => (/\/index\.tsx?$/.test(path) ? 'barrel file' : undefined)),
    ).toEqual([])
  })

  it('imports the supabase client only from src/lib and features/*/api', () => {
    expect(
      violations((path, source) => {
        const allowed = path.startsWith('/src/lib/') || /^\/src\/features\/[^/]+\/api\//.test(path)
        if (allowed) return undefined
        const bad = importsOf(source).filter((spec) => /(?:^|\/)lib\/supabase$|^\.\/supabase$/.test(spec))
        return bad.length ? `imports ${bad.join(', ')}` : undefined
      }),
    ).toEqual([])
  })

  it('keeps features apart and shared code independent of features and app', () => {
    expect(
      violations((path, source) => {
        const feature = /^\/src\/features\/([^/]+)\//.exec(path)?.[1]
        const shared = /^\/src\/(components|hooks|lib|config|utils)\//.test(path)
        const bad = importsOf(source).filter((spec) => {
          const target = /^@\/features\/([^/]+)/.exec(spec)?.[1]
          if (feature) return target !== undefined && target !== feature
          if (shared) return target !== undefined || spec.startsWith('@/app/')
          return false
        })
        return bad.length ? `imports ${bad.join(', ')}` : undefined
      }),
    ).toEqual([])
  })

  it('uses semantic colour tokens, never raw palette colours', () => {
    const palette =
      'slate|gray|zinc|neutral|stone|red|orange|amber|yellow|lime|green|emerald|teal|cyan|sky|blue|indigo|violet|purple|fuchsia|pink|rose|black|white'
    const raw = new RegExp(
      `\\b(?:bg|text|border|ring|fill|stroke|from|via|to|outline|divide|decoration|caret|accent|shadow)-(?:${palette})(?:-\\d{2,3})?\\b|-\\[#[0-9a-fA-F]{3,8}\\]`,
    )
    expect(
      violations((path, source) => {
        if (!path.endsWith('.tsx')) return undefined
        const hit = raw.exec(source)
        return hit ? `raw colour ${hit[0]}` : undefined
      }),
    ).toEqual([])
  })
})
