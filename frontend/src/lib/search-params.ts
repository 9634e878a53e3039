import { useSearchParams } from 'react-router'

/**
 * The named URL parameters that hold text, trimmed; empty ones are left
 * out, so a filter object never carries a blank filter.
 */
export function readTextParams<N extends string>(params: URLSearchParams, names: readonly N[]): Partial<Record<N, string>> {
  const values: Partial<Record<N, string>> = {}
  for (const name of names) {
    const value = params.get(name)?.trim()
    if (value) values[name] = value
  }
  return values
}

/**
 * Reads and writes listing filters in the URL: a value of '' (or 'all')
 * removes the parameter, and any filter change goes back to page 1.
 */
export function useUrlFilters() {
  const [params, setParams] = useSearchParams()

  const get = (name: string): string => params.get(name) ?? ''

  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [name, value] of Object.entries(changes)) {
      if (!value || value === 'all') next.delete(name)
      else next.set(name, value)
    }
    next.delete('page')
    setParams(next, { replace: true })
  }

  const clear = (names: readonly string[]) => {
    const next = new URLSearchParams(params)
    for (const name of names) next.delete(name)
    next.delete('page')
    setParams(next, { replace: true })
  }

  return { params, get, set, clear }
}
