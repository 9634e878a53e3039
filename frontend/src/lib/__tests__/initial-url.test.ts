import { afterEach, describe, expect, it, vi } from 'vitest'

afterEach(() => {
  window.history.replaceState(null, '', '/')
})

describe('lib/initial-url', () => {
  it('is recorded when the module is imported, so a later cleared fragment does not lose it', async () => {
    window.history.replaceState(null, '', '/?x=1#access_token=t&type=signup')
    vi.resetModules()
    const fresh = await import('@/lib/initial-url')
    // supabase-js clears the fragment after reading the tokens.
    window.history.replaceState(null, '', '/')
    expect(fresh.getInitialUrl()).toEqual({ pathname: '/', search: '?x=1', hash: '#access_token=t&type=signup' })
    expect(fresh.initialAuthLanding()).toEqual({ kind: 'confirmed' })
    fresh.markInitialUrlHandled()
    expect(fresh.initialAuthLanding()).toEqual({ kind: 'none' })
  })

})
