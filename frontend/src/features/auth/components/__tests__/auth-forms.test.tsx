import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

import { pathAfterSignIn } from '../../api/sign-in'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

type User = Awaited<ReturnType<typeof renderApp>>['user']

/** Fills the sign-up form as Wanjiku with password, ticks the terms box and submits. */
async function submitRegistration(user: User, password: string) {
  await user.type(await screen.findByLabelText('Full name'), 'Wanjiku Kamau')
  await user.type(screen.getByLabelText('Email'), 'wanjiku@example.com')
  await user.type(screen.getByLabelText('Password'), password)
  await user.click(screen.getByRole('checkbox'))
  await user.click(screen.getByRole('button', { name: 'Create Account' }))
}

describe('login', () => {
  beforeEach(() => {
    vi.clearAllMocks()
  })

  it('shows the server message when sign-in fails', async () => {
    fake.client.auth.signInWithPassword.mockResolvedValue({
      data: { user: null, session: null },
      error: new Error('Invalid login credentials'),
    })
    const { user } = await renderApp('/login')
    await user.type(await screen.findByLabelText('Email'), 'wanjiku@example.com')
    await user.type(screen.getByLabelText('Password'), 'wrong-password')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))

    expect(await screen.findByText('Invalid login credentials', { selector: '[role=alert] span' })).toBeInTheDocument()
    expect(fake.client.auth.signInWithPassword).toHaveBeenCalledWith({
      email: 'wanjiku@example.com',
      password: 'wrong-password',
    })
  })

  it('validates the fields before calling the server', async () => {
    const { user } = await renderApp('/login')
    await user.click(await screen.findByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Enter a valid email address')).toBeInTheDocument()
    expect(screen.getByText('Password is required')).toBeInTheDocument()
    expect(fake.client.auth.signInWithPassword).not.toHaveBeenCalled()
  })

  it('toggles the password visibility', async () => {
    const { user } = await renderApp('/login')
    const password = await screen.findByLabelText('Password')
    expect(password).toHaveAttribute('type', 'password')
    await user.click(screen.getByRole('button', { name: 'Show password' }))
    expect(password).toHaveAttribute('type', 'text')
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password')
  })

  it('returns users to where they came from, the admin account to the admin area, others to /home', () => {
    const user = { email: 'wanjiku@example.com', role: 'user' }
    const admin = { email: 'admin@kejanest.test', role: 'admin' }
    expect(pathAfterSignIn(user, '/list-property', false)).toBe('/list-property')
    expect(pathAfterSignIn(user, undefined, false)).toBe('/home')
    expect(pathAfterSignIn(user, '//evil.example', false)).toBe('/home')
    expect(pathAfterSignIn(admin, '/list-property', false)).toBe('/admin/login')
    expect(pathAfterSignIn(admin, undefined, true)).toBe('/admin/dashboard')
    expect(pathAfterSignIn({ ...admin, email: 'Admin@KejaNest.test' }, undefined, true)).toBe('/admin/dashboard')
  })

  it('needs both the fixed admin e-mail and the admin role (spec §6)', () => {
    // An admin role on another account is not the admin.
    expect(pathAfterSignIn({ email: 'someone@example.com', role: 'admin' }, '/list-property', true)).toBe('/list-property')
    expect(pathAfterSignIn({ email: 'someone@example.com', role: 'admin' }, undefined, false)).toBe('/home')
    // The admin e-mail without the admin role is not the admin either.
    expect(pathAfterSignIn({ email: 'admin@kejanest.test', role: 'user' }, undefined, true)).toBe('/home')
    expect(pathAfterSignIn({ email: 'boss@example.com', role: 'admin' }, undefined, true, 'boss@example.com')).toBe('/admin/dashboard')
  })

  it('sends the admin account to the access-code screen after a password sign-in', async () => {
    fake.client.auth.signInWithPassword.mockResolvedValue({
      data: { user: { id: 'a1', email: 'admin@kejanest.test' }, session: {} },
      error: null,
    })
    fake.respondWith(({ table }) => ({ data: table === 'user_roles' ? { role: 'admin' } : [] }))
    const { user, router } = await renderApp('/login')
    await user.type(await screen.findByLabelText('Email'), 'admin@kejanest.test')
    await user.type(screen.getByLabelText('Password'), 'KejaNest-Admin-2024')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/login'))
  })

  it('sends another account holding the admin role to /home', async () => {
    fake.client.auth.signInWithPassword.mockResolvedValue({
      data: { user: { id: 'u2', email: 'someone@example.com' }, session: {} },
      error: null,
    })
    fake.respondWith(({ table }) => ({ data: table === 'user_roles' ? { role: 'admin' } : [] }))
    const { user, router } = await renderApp('/login')
    await user.type(await screen.findByLabelText('Email'), 'someone@example.com')
    await user.type(screen.getByLabelText('Password'), 'secret-password')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'))
  })
})

describe('register', () => {
  it('requires the terms box and shows the help text and messages', async () => {
    const { user } = await renderApp('/register')
    expect(await screen.findByText('Password must be at least 8 characters long.', { selector: 'p[data-slot=field-description]' })).toBeInTheDocument()
    await user.type(screen.getByLabelText('Full name'), 'Wanjiku Kamau')
    await user.type(screen.getByLabelText('Email'), 'wanjiku@example.com')
    await user.type(screen.getByLabelText('Password'), 'short')
    await user.click(screen.getByRole('button', { name: 'Create Account' }))

    expect(await screen.findByText('You must accept the terms to continue')).toBeInTheDocument()
    expect(screen.getByText('Password must be at least 8 characters long.', { selector: '[role=alert]' })).toBeInTheDocument()
    expect(fake.client.auth.signUp).not.toHaveBeenCalled()
  })

  it('signs up with full name and role, then asks the user to check their email', async () => {
    fake.client.auth.signUp.mockResolvedValue({ data: { user: { id: 'u1' }, session: null }, error: null })
    const { user } = await renderApp('/register')
    await submitRegistration(user, 'long-enough-1')

    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument()
    expect(fake.client.auth.signUp).toHaveBeenCalledWith({
      email: 'wanjiku@example.com',
      password: 'long-enough-1',
      options: { data: { full_name: 'Wanjiku Kamau', role: 'user' }, emailRedirectTo: window.location.origin },
    })
    await waitFor(() =>
      expect(visibleToasts()[0]).toHaveTextContent('Account created successfully! Please check your email for verification.'),
    )
  })

  it('shows a sign-up failure', async () => {
    fake.client.auth.signUp.mockResolvedValue({ data: { user: null, session: null }, error: new Error('User already registered') })
    const { user } = await renderApp('/register')
    await submitRegistration(user, 'long-enough-1')
    expect(await screen.findByText('User already registered', { selector: '[role=alert] span' })).toBeInTheDocument()
  })
})

describe('server errors on their fields', () => {
  beforeEach(() => {
    vi.clearAllMocks()
  })

  const authError = (code: string, message: string) => Object.assign(new Error(message), { code, status: 422 })

  it('puts an address that is already registered on the email field', async () => {
    fake.client.auth.signUp.mockResolvedValue({ data: { user: null, session: null }, error: authError('email_exists', 'Email address already registered') })
    const { user } = await renderApp('/register')
    await submitRegistration(user, 'long-enough-1')
    const email = screen.getByLabelText('Email')
    await waitFor(() => expect(email).toHaveAttribute('aria-invalid', 'true'))
    expect(email).toHaveFocus()
    expect(screen.getByText('An account with this email already exists. Sign in instead, or reset your password.', { selector: '[role=alert]' })).toBeInTheDocument()
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'false')
  })

  it('puts a weak password on the password field, and leaves other failures form-wide', async () => {
    fake.client.auth.signUp.mockResolvedValueOnce({ data: { user: null, session: null }, error: authError('weak_password', 'Password is known to be weak') })
    const { user } = await renderApp('/register')
    await submitRegistration(user, 'password123')
    await waitFor(() => expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true'))
    expect(screen.getByText('This password is too weak: choose a longer one that is harder to guess.', { selector: '[role=alert]' })).toBeInTheDocument()

    fake.client.auth.signUp.mockResolvedValueOnce({ data: { user: null, session: null }, error: authError('over_email_send_rate_limit', 'Email rate limit exceeded') })
    await user.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('Email rate limit exceeded', { selector: '[role=alert] span' })).toBeInTheDocument()
  })

  it('puts a reused password on the new password field when resetting', async () => {
    fake.client.auth.updateUser.mockResolvedValue({ data: { user: null }, error: authError('same_password', 'New password should be different from the old password.') })
    const { user } = await renderApp('/reset-password', { session: fakeSession() })
    const password = await screen.findByLabelText('New password')
    await user.type(password, 'long-enough-1')
    await user.type(screen.getByLabelText('Confirm password'), 'long-enough-1')
    await user.click(screen.getByRole('button', { name: 'Save password' }))
    await waitFor(() => expect(password).toHaveAttribute('aria-invalid', 'true'))
    expect(fake.client.auth.updateUser).toHaveBeenCalledWith({ password: 'long-enough-1' })
    expect(screen.getByText('Your new password must be different from your current one.', { selector: '[role=alert]' })).toBeInTheDocument()
  })
})

describe('user guard', () => {
  it("sends signed-out visitors to /login with the spec's message, remembering the page", async () => {
    const { router } = await renderApp('/list-property')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/list-property' })
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action'))
    expect(router.state.historyAction).toBe('REPLACE')
  })

  it('lets signed-in users through to the form', async () => {
    await renderApp('/list-land', { session: fakeSession() })
    expect(await screen.findByRole('heading', { level: 1, name: 'List Your Land' })).toBeInTheDocument()
  })
})
