import { describe, expect, it } from 'vitest'

import { mayLeaveRedirect, readAuthLanding } from '../redirect'

describe('readAuthLanding', () => {
  it('recognises the e-mail confirmation redirect', () => {
    expect(readAuthLanding('#access_token=a&expires_in=3600&refresh_token=r&token_type=bearer&type=signup')).toEqual({
      kind: 'confirmed',
    })
  })

  it('reads an auth error from the fragment', () => {
    expect(readAuthLanding('#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired')).toEqual({
      kind: 'error',
      message: 'Email link is invalid or has expired',
    })
  })

  it('tells recovery links and other handed-over sessions (Google) apart', () => {
    expect(readAuthLanding('#access_token=a&type=recovery')).toEqual({ kind: 'recovery' })
    expect(readAuthLanding('#access_token=a&provider_token=g&refresh_token=r&token_type=bearer')).toEqual({ kind: 'session' })
  })

  it('ignores ordinary visits', () => {
    expect(readAuthLanding('')).toEqual({ kind: 'none' })
    expect(readAuthLanding('#main')).toEqual({ kind: 'none' })
  })
})

describe('mayLeaveRedirect', () => {
  it('waits for the delay on ordinary visits, whatever the session', () => {
    expect(mayLeaveRedirect(false, { kind: 'none' }, 'signed-out')).toBe(false)
    expect(mayLeaveRedirect(true, { kind: 'none' }, 'loading')).toBe(true)
  })

  it('keeps the tokens in the URL until supabase-js has read them', () => {
    for (const landing of [{ kind: 'confirmed' }, { kind: 'session' }, { kind: 'recovery' }] as const) {
      expect(mayLeaveRedirect(true, landing, 'loading')).toBe(false)
      expect(mayLeaveRedirect(true, landing, 'signed-in')).toBe(true)
      expect(mayLeaveRedirect(true, landing, 'signed-out')).toBe(true)
      expect(mayLeaveRedirect(false, landing, 'signed-in')).toBe(false)
    }
  })
})
