import { useSearchParams } from 'react-router'

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
