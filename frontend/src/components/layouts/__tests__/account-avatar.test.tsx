import type { AuthChangeEvent, Session } from '@supabase/supabase-js'
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'

import { AuthProvider, type AuthClient } from '@/lib/auth'
import { fakeSession } from '@/testing/test-utils'

import { AccountAvatar } from '../account-avatar'

describe('AccountAvatar', () => {
  it('shows a newly uploaded avatar as soon as the session reports it', async () => {
    const session = fakeSession()
    let emit!: (event: AuthChangeEvent, session: Session | null) => void
    const client: AuthClient = {
      getSession: vi.fn(async () => ({ data: { session } })),
      onAuthStateChange: vi.fn((callback) => {
        emit = callback
        return { data: { subscription: { unsubscribe: () => undefined } } }
      }),
      signOut: vi.fn(async () => ({ error: null })),
    }
    const { container } = render(
      <AuthProvider client={client}>
        <AccountAvatar />
      </AuthProvider>,
    )
    const img = () => container.querySelector('img')
    await waitFor(() => expect(img()?.getAttribute('src')).toMatch(new RegExp(`/avatars/${session.user.id}$`)))

    // No avatar yet: the picture fails and the icon shows.
    fireEvent.error(img()!)
    expect(img()).toBeNull()

    // The profile page uploads one and records its version in user_metadata (USER_UPDATED).
    const updated = { ...session, user: { ...session.user, user_metadata: { avatar_version: 1700000000000 } } }
    act(() => emit('USER_UPDATED', updated))
    expect(img()?.getAttribute('src')).toMatch(new RegExp(`/avatars/${session.user.id}\\?v=1700000000000$`))
    expect(screen.queryByRole('img')).toBeNull() // decorative: hidden from screen readers
  })
})
