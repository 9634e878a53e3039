import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const admin = fakeSession({ email: 'admin@kejanest.test', fullName: 'Site Admin' })
const amina = fakeSession({ email: 'amina@example.com' })

const stats = {
  totalUsers: 12,
  totalProperties: 7,
  totalProducts: 5,
  totalDroneServices: 2,
  totalMovingServices: 3,
  activeProperties: 4,
  activeProducts: 3,
  pendingProperties: 2,
  pendingProducts: 1,
  pendingKYC: 4,
}

type RpcFn = (args: Record<string, unknown>) => unknown
type Rpc = Record<string, RpcFn | object | boolean | number | string | null>

/** Programs rpc answers: a value, an Error to throw, or a function of the arguments. */
function rpc(answers: Rpc) {
  fake.client.rpc.mockImplementation((name: string, args: Record<string, unknown>) => {
    const run = async () => {
      const answer = answers[name]
      const value = typeof answer === 'function' ? await (answer as RpcFn)(args) : answer
      if (value instanceof Error) throw value
      return { data: value ?? null }
    }
    return { throwOnError: run, then: (ok: (v: unknown) => unknown, ko: (e: unknown) => unknown) => run().then(ok, ko) }
  })
}

function tables(rows: Record<string, unknown>) {
  fake.respondWith((request: Request) => {
    const value = rows[request.table]
    return { data: typeof value === 'function' ? (value as (r: Request) => unknown)(request) : (value ?? []) }
  })
}

const toastText = () => visibleToasts().map((t) => t.textContent ?? '')

// The admin chunk is large: transform it once before the timed tests.
beforeAll(async () => {
  await import('@/app/routes/admin')
}, 60_000)

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.client.storage.from.mockReset()
  fake.channels.length = 0
  localStorage.clear()
  tables({ user_roles: { role: 'admin' } })
})

describe('admin guard (spec §5)', () => {
  it('sends a visitor to /login with the admin message', async () => {
    const { router } = await renderApp('/admin/dashboard')
    // /login's own chunk loads after the redirect; on a loaded machine that takes a while.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 25_000 })
    await waitFor(() => expect(toastText().join()).toContain('You need to be logged in to access the admin page'), { timeout: 5_000 })
  }, 40_000)

  it('sends a signed-in user who is not the admin account home', async () => {
    const { router } = await renderApp('/admin/users', { session: amina })
    await waitFor(() => expect(router.state.location.pathname).toBe('/'))
    await waitFor(() => expect(toastText().join()).toContain('You do not have admin privileges.'))
  })

  it('refuses the admin e-mail without the admin role', async () => {
    tables({ user_roles: { role: 'user' } })
    const { router } = await renderApp('/admin/dashboard', { session: admin })
    await waitFor(() => expect(router.state.location.pathname).toBe('/'))
    expect(toastText().join()).toContain('Admin role not properly configured. Please contact support.')
  })

  it('asks for the access code when the server has not verified this session, even with the local flag', async () => {
    localStorage.setItem('adminVerified', 'true')
    rpc({ admin_session_verified: false })
    const { router } = await renderApp('/admin/dashboard', { session: admin })
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/login'))
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin Verification' })).toBeInTheDocument()
  })
})

describe('/admin/login', () => {
  it('requires the code, refuses a wrong one and admits the right one', async () => {
    const user = userEvent.setup()
    let verified = false
    rpc({
      admin_session_verified: () => verified,
      verify_admin_access: ({ p_code }) => {
        if (p_code !== 'right-code') return { verified: false, error: 'invalid_code', attempts_left: 3 }
        verified = true
        return { verified: true }
      },
      get_dashboard_stats: stats,
    })
    const { router } = await renderApp('/admin/login', { session: admin })
    await screen.findByRole('heading', { name: 'Admin Verification' })
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Access code is required')
    expect(fake.client.rpc).not.toHaveBeenCalledWith('verify_admin_access', expect.anything())

    await user.type(screen.getByLabelText('Access code'), 'wrong')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText().join()).toContain('Invalid access code'))
    expect(router.state.location.pathname).toBe('/admin/login')
    expect(localStorage.getItem('adminVerified')).toBeNull()

    await user.type(screen.getByLabelText('Access code'), 'right-code')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'))
    expect(toastText().join()).toContain('Admin verified successfully')
    expect(localStorage.getItem('adminVerified')).toBe('true')
  })

  it('shows the lock-out message after too many attempts', async () => {
    const user = userEvent.setup()
    rpc({
      admin_session_verified: false,
      verify_admin_access: { verified: false, error: 'too_many_attempts', retry_after: new Date(Date.now() + 9 * 60_000).toISOString() },
    })
    await renderApp('/admin/login', { session: admin })
    await user.type(await screen.findByLabelText('Access code'), 'x')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText().join()).toContain('Too many attempts. Try again in 9 minutes.'))
  })
})

describe('/admin/login MFA step', () => {
  it('asks an aal1 admin with a verified factor for the 6-digit code, refuses a wrong one, then shows the access code', async () => {
    const user = userEvent.setup()
    let level = 'aal1'
    fake.client.auth.mfa.getAuthenticatorAssuranceLevel.mockImplementation(async () => ({
      data: { currentLevel: level, nextLevel: 'aal2', currentAuthenticationMethods: [] },
      error: null,
    }))
    fake.client.auth.mfa.listFactors.mockImplementation(async () => ({
      data: { all: [], totp: [{ id: 'f1', factor_type: 'totp', status: 'verified' }], phone: [] },
      error: null,
    }))
    fake.client.auth.mfa.challengeAndVerify.mockImplementation(async ({ code }: { code: string }) => {
      if (code !== '123456') return { data: null, error: Object.assign(new Error('Invalid TOTP code entered'), { code: 'mfa_verification_failed' }) }
      level = 'aal2'
      return { data: { access_token: 'aal2-token' }, error: null }
    })
    rpc({ admin_session_verified: false })
    try {
      await renderApp('/admin/login', { session: admin })
      await screen.findByRole('heading', { name: 'Two-factor verification' })
      expect(screen.queryByLabelText('Access code')).toBeNull()
      await user.type(screen.getByLabelText('Authentication code'), '12')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      expect(await screen.findByRole('alert')).toHaveTextContent('Enter the 6-digit code')
      expect(fake.client.auth.mfa.challengeAndVerify).not.toHaveBeenCalled()

      await user.clear(screen.getByLabelText('Authentication code'))
      await user.type(screen.getByLabelText('Authentication code'), '654321')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      await waitFor(() => expect(toastText().join()).toContain('Invalid verification code. Check your authenticator app and try again.'))
      expect(screen.getByRole('heading', { name: 'Two-factor verification' })).toBeInTheDocument()

      await user.type(screen.getByLabelText('Authentication code'), '123456')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      expect(fake.client.auth.mfa.challengeAndVerify).toHaveBeenLastCalledWith({ factorId: 'f1', code: '123456' })
      await screen.findByRole('heading', { name: 'Admin Verification' })
      expect(toastText().join()).toContain('Two-factor verification complete')
      // The live screens' socket gets the aal2 token too.
      expect(fake.client.realtime.setAuth).toHaveBeenCalledWith('aal2-token')
    } finally {
      fake.client.auth.mfa.getAuthenticatorAssuranceLevel.mockImplementation(async () => ({
        data: { currentLevel: 'aal1', nextLevel: 'aal1', currentAuthenticationMethods: [] },
        error: null,
      }))
      fake.client.auth.mfa.listFactors.mockImplementation(async () => ({ data: { all: [], totp: [], phone: [] }, error: null }))
    }
  }, 20_000)

  it('maps a non-admin refusal of the access code to the guard message', async () => {
    const user = userEvent.setup()
    rpc({ admin_session_verified: false, verify_admin_access: { verified: false, error: 'not_admin' } })
    const { router } = await renderApp('/admin/login', { session: admin })
    await user.type(await screen.findByLabelText('Access code'), 'KEJA-ADMIN-2024')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText().join()).toContain('You do not have admin privileges.'))
    await waitFor(() => expect(router.state.location.pathname).toBe('/'))
  })
})

async function renderVerified(path: string) {
  localStorage.setItem('adminVerified', 'true')
  return renderApp(path, { session: admin })
}

describe('dashboard', () => {
  it('shows skeletons, then the figures, and re-fetches once for a burst of live changes', async () => {
    let release: (v: unknown) => void = () => {}
    let calls = 0
    rpc({
      admin_session_verified: true,
      get_dashboard_stats: () => {
        calls += 1
        if (calls === 1) return new Promise((resolve) => (release = resolve))
        return { ...stats, totalProperties: 8 }
      },
    })
    await renderVerified('/admin/dashboard')
    await screen.findByRole('heading', { name: 'Admin Dashboard' })
    expect(screen.getAllByTestId('skeleton').length).toBeGreaterThan(5)
    await act(async () => release(stats))
    const card = await screen.findByRole('link', { name: /Total Properties/ })
    expect(card).toHaveTextContent('7')
    const main = within(screen.getByRole('main'))
    expect(main.getByRole('link', { name: /Drone Services/ })).toHaveAttribute('href', '/admin/drone-services')
    expect(main.getByRole('link', { name: /Moving Services/ })).toHaveTextContent('3')
    expect(await screen.findByRole('status')).toHaveTextContent('Live')

    const channel = fake.channels.find((c) => c.topic.startsWith('admin:dashboard'))!
    expect(channel.bindings.map((b) => b.filter.table).sort()).toEqual(['kyc_verifications', 'products', 'profiles', 'properties', 'service_providers'])
    act(() => {
      channel.emit('properties', { eventType: 'INSERT', new: {} })
      channel.emit('profiles', { eventType: 'INSERT', new: {} })
    })
    await waitFor(() => expect(screen.getByRole('link', { name: /Total Properties/ })).toHaveTextContent('8'))
    expect(calls).toBe(2)
  })

  it.each(['/admin', '/admin/', '/admin/no-such-section'])('%s shows the dashboard as /admin/dashboard, marked in the sidebar', async (path) => {
    rpc({ admin_session_verified: true, get_dashboard_stats: stats })
    const { router } = await renderVerified(path)
    await screen.findByRole('heading', { name: 'Admin Dashboard' })
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'))
    const sections = screen.getAllByRole('navigation', { name: 'Admin sections' })
    for (const nav of sections) {
      expect(within(nav).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page')
    }
  })

  it('says so when the figures fail to load', async () => {
    rpc({ admin_session_verified: true, get_dashboard_stats: new Error('boom') })
    await renderVerified('/admin/dashboard')
    expect(await screen.findByText('Failed to load dashboard data', {}, { timeout: 10_000 })).toBeInTheDocument()
  }, 15_000)
})

describe('two-factor setup', () => {
  it('enrols a TOTP factor for an admin without one: QR code and key, a wrong code refused, the right one verifies', async () => {
    const user = userEvent.setup()
    fake.client.auth.mfa.challengeAndVerify.mockClear()
    fake.client.realtime.setAuth.mockClear()
    let verified = false
    fake.client.auth.mfa.listFactors.mockImplementation(async () => ({
      // An abandoned earlier attempt is still enrolled, unverified.
      data: { all: [{ id: 'stale', factor_type: 'totp', status: 'unverified' }], totp: verified ? [{ id: 'f9', factor_type: 'totp', status: 'verified' }] : [], phone: [] },
      error: null,
    }))
    fake.client.auth.mfa.enroll.mockImplementation(async () => ({
      data: { id: 'f9', type: 'totp', totp: { qr_code: 'data:image/svg+xml;utf-8,<svg></svg>', secret: 'JBSWY3DPEHPK3PXP', uri: 'otpauth://totp/x' } },
      error: null,
    }))
    fake.client.auth.mfa.challengeAndVerify.mockImplementation(async ({ code }: { code: string }) => {
      if (code !== '246810') return { data: null, error: Object.assign(new Error('Invalid TOTP code entered'), { code: 'mfa_verification_failed' }) }
      verified = true
      return { data: { access_token: 'aal2-token' }, error: null }
    })
    rpc({ admin_session_verified: true, get_dashboard_stats: stats })
    try {
      await renderVerified('/admin/dashboard')
      await screen.findByRole('heading', { name: 'Protect the admin account' })
      await user.click(screen.getByRole('button', { name: 'Set up two-factor' }))
      expect(fake.client.auth.mfa.enroll).toHaveBeenCalledWith({ factorType: 'totp' })
      expect(fake.client.auth.mfa.unenroll).toHaveBeenCalledWith({ factorId: 'stale' })
      expect(await screen.findByRole('img', { name: 'QR code for the authenticator app' })).toHaveAttribute('src', 'data:image/svg+xml;utf-8,<svg></svg>')
      expect(screen.getByTestId('totp-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP')

      await user.type(screen.getByLabelText('Authentication code'), '12')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      expect(await screen.findByRole('alert')).toHaveTextContent('Enter the 6-digit code')
      expect(fake.client.auth.mfa.challengeAndVerify).not.toHaveBeenCalled()

      await user.clear(screen.getByLabelText('Authentication code'))
      await user.type(screen.getByLabelText('Authentication code'), '135790')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      await waitFor(() => expect(toastText().join()).toContain('Invalid verification code. Check your authenticator app and try again.'))

      await user.type(screen.getByLabelText('Authentication code'), '246810')
      await user.click(screen.getByRole('button', { name: 'Verify code' }))
      expect(fake.client.auth.mfa.challengeAndVerify).toHaveBeenLastCalledWith({ factorId: 'f9', code: '246810' })
      await waitFor(() => expect(toastText().join()).toContain('Two-factor authentication is on'))
      await waitFor(() => expect(screen.queryByRole('heading', { name: 'Protect the admin account' })).toBeNull())
      expect(fake.client.realtime.setAuth).toHaveBeenCalledWith('aal2-token')
    } finally {
      fake.client.auth.mfa.listFactors.mockImplementation(async () => ({ data: { all: [], totp: [], phone: [] }, error: null }))
      fake.client.auth.mfa.enroll.mockReset()
      fake.client.auth.mfa.challengeAndVerify.mockReset()
    }
  }, 20_000)

  it('is not offered to an admin who already has a verified factor', async () => {
    fake.client.auth.mfa.listFactors.mockImplementation(async () => ({
      data: { all: [], totp: [{ id: 'f1', factor_type: 'totp', status: 'verified' }], phone: [] },
      error: null,
    }))
    rpc({ admin_session_verified: true, get_dashboard_stats: stats })
    try {
      await renderVerified('/admin/dashboard')
      await screen.findByRole('link', { name: /Total Properties/ })
      await waitFor(() => expect(fake.client.auth.mfa.listFactors).toHaveBeenCalled())
      expect(screen.queryByRole('heading', { name: 'Protect the admin account' })).toBeNull()
    } finally {
      fake.client.auth.mfa.listFactors.mockImplementation(async () => ({ data: { all: [], totp: [], phone: [] }, error: null }))
    }
  })
})

describe('users', () => {
  const rows = [
    { id: 'u1', email: 'brian@example.com', full_name: 'Brian Otieno', phone_number: null, role: 'user', created_at: '2024-09-01T00:00:00Z', last_sign_in_at: null, kyc_status: 'pending', is_suspended: false, suspension_type: null, suspension_reason: null, suspended_until: null, total_count: 45 },
  ]

  it('pages on the server, and the suspend dialog requires a duration', async () => {
    const user = userEvent.setup()
    const suspend = vi.fn(() => ({}))
    rpc({ admin_session_verified: true, admin_list_users: rows, suspend_user: suspend })
    await renderVerified('/admin/users')
    const row = await screen.findByRole('row', { name: /brian@example.com/ })
    expect(within(row).getByText('Not provided')).toBeInTheDocument()
    expect(within(row).getByText('Pending Review')).toBeInTheDocument()
    expect(screen.getByText('Page 1 of 3 (45 users)')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Next' }))
    await waitFor(() => expect(fake.client.rpc).toHaveBeenCalledWith('admin_list_users', { p_search: null, p_limit: 20, p_offset: 20 }))

    await user.click(within(await screen.findByRole('row', { name: /brian@example.com/ })).getByRole('button', { name: 'Suspend' }))
    const dialog = await screen.findByRole('dialog', { name: 'Suspend Brian Otieno' })
    await user.click(within(dialog).getByRole('button', { name: 'Suspend User' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Please select a suspension duration')
    expect(suspend).not.toHaveBeenCalled()
    await user.selectOptions(within(dialog).getByLabelText('Suspension duration'), '30_days')
    await user.click(within(dialog).getByRole('button', { name: 'Suspend User' }))
    await waitFor(() => expect(toastText().join()).toContain('User suspended successfully'))
    expect(suspend).toHaveBeenCalledWith({ p_user_id: 'u1', p_admin_id: admin.user.id, p_suspension_type: '30_days', p_reason: null })
  })

  it('deletes a profile after the spec confirmation, and shows the refusal', async () => {
    const user = userEvent.setup()
    let refuse = true
    const remove = vi.fn(() => (refuse ? new Error('This user has open P2P trades; resolve or wait for them first') : { deleted: true }))
    rpc({ admin_session_verified: true, admin_list_users: rows, admin_delete_user: remove })
    await renderVerified('/admin/users')
    const row = await screen.findByRole('row', { name: /brian@example.com/ })
    await user.click(within(row).getByRole('button', { name: 'Delete profile' }))
    let dialog = await screen.findByRole('dialog', { name: 'Delete Brian Otieno' })
    expect(within(dialog).getByText('Are you sure you want to delete this user profile? This action cannot be undone.')).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Delete profile' }))
    await waitFor(() => expect(toastText().join()).toContain('Failed to delete user profile'))
    expect(toastText().join()).toContain('This user has open P2P trades')
    refuse = false
    await user.click(within(await screen.findByRole('row', { name: /brian@example.com/ })).getByRole('button', { name: 'Delete profile' }))
    dialog = await screen.findByRole('dialog', { name: 'Delete Brian Otieno' })
    await user.type(within(dialog).getByLabelText('Reason (optional)'), 'Asked to leave')
    await user.click(within(dialog).getByRole('button', { name: 'Delete profile' }))
    await waitFor(() => expect(toastText().join()).toContain('User profile deleted successfully'))
    expect(remove).toHaveBeenLastCalledWith({ p_user_id: 'u1', p_reason: 'Asked to leave' })
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })

  it('searches on the server and shows the failure message', async () => {
    const user = userEvent.setup()
    rpc({ admin_session_verified: true, admin_list_users: (args) => (args.p_search ? new Error('down') : rows) })
    await renderVerified('/admin/users')
    await screen.findByRole('row', { name: /brian@example.com/ })
    await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'zawadi')
    expect(await screen.findByText('Failed to fetch users', {}, { timeout: 10_000 })).toBeInTheDocument()
    expect(fake.client.rpc).toHaveBeenCalledWith('admin_list_users', { p_search: 'zawadi', p_limit: 20, p_offset: 0 })
  }, 15_000)
})

describe('KYC', () => {
  const kyc = (id: string, status: string) => ({
    id, user_id: `user-${id}`, id_type: 'National ID', id_number: '123', physical_address: null, photo_url: null,
    id_document_front_url: `user-${id}/id-front.jpg`, id_document_back_url: null, verification_status: status,
    admin_notes: null, reviewed_by: null, reviewed_at: null, created_at: '2024-09-01T00:00:00Z', updated_at: '2024-09-01T00:00:00Z',
  })

  it('lists pending first, signs document links, and decides only pending ones', async () => {
    const user = userEvent.setup()
    tables({
      user_roles: { role: 'admin' },
      // The pending submission lies beyond the newest: only the read of
      // pending ones finds it.
      kyc_verifications: (request: Request) =>
        request.calls.some((c) => c[0] === 'eq' && c[1] === 'verification_status' && c[2] === 'pending') ? [kyc('p', 'pending')] : [kyc('a', 'approved')],
      profiles: [{ id: 'user-a', full_name: 'Approved Person' }, { id: 'user-p', full_name: 'Pending Person' }],
    })
    const createSignedUrl = vi.fn(async (path: string) =>
      path.startsWith('user-a') ? { data: null, error: new Error('gone') } : { data: { signedUrl: `https://files.test/sign/${path}` }, error: null },
    )
    fake.client.storage.from.mockReturnValue({ createSignedUrl })
    const process = vi.fn(() => ({}))
    rpc({ admin_session_verified: true, process_kyc_verification: process })
    await renderVerified('/admin/kyc')
    const cards = await screen.findAllByRole('article')
    expect(cards[0]).toHaveAccessibleName('Pending Person')
    expect(await within(cards[0]).findByRole('img', { name: 'ID front' })).toHaveAttribute('src', 'https://files.test/sign/user-p/id-front.jpg')
    expect(fake.client.storage.from).toHaveBeenCalledWith('kyc')
    await waitFor(() => expect(within(cards[1]).getByRole('img', { name: 'ID front' })).toHaveAttribute('src', '/placeholder.svg'))
    expect(within(cards[1]).getByRole('button', { name: 'Approve' })).toBeDisabled()

    await user.type(within(cards[0]).getByLabelText('Admin notes (optional)'), 'Looks right')
    await user.click(within(cards[0]).getByRole('button', { name: 'Approve' }))
    await waitFor(() => expect(toastText().join()).toContain('KYC approved successfully'))
    expect(process).toHaveBeenCalledWith({ p_kyc_id: 'p', p_admin_id: admin.user.id, p_action: 'approved', p_notes: 'Looks right' })
  })
})

describe('listing moderation', () => {
  it('puts pending listings first and requires a reason to reject', async () => {
    const user = userEvent.setup()
    const base = { user_id: 'o1', price: 9000, location: 'Karen', moderation_notes: null, created_at: '2024-09-01T00:00:00Z' }
    const live = { ...base, id: 'live', title: 'Live flat', payment_status: 'paid', is_active: true }
    const waiting = { ...base, id: 'wait', title: 'Waiting flat', payment_status: 'pending', is_active: false }
    const recent = { ...base, id: 'recent', title: 'Recent pending flat', payment_status: 'pending', is_active: false }
    const reads: Request[] = []
    tables({
      user_roles: { role: 'admin' },
      // The newest listings hold one pending listing; an older one waits
      // beyond them and only the pending read finds it.
      properties: (request: Request) => {
        reads.push(request)
        const pending = request.calls.some((c) => c[0] === 'eq' && c[1] === 'payment_status' && c[2] === 'pending')
        return pending ? [recent, waiting] : [recent, live]
      },
      profiles: [{ id: 'o1', full_name: 'Owner One' }],
    })
    const moderate = vi.fn(() => ({}))
    rpc({ admin_session_verified: true, moderate_listing: moderate })
    await renderVerified('/admin/properties')
    const cards = await screen.findAllByRole('article')
    expect(cards).toHaveLength(3)
    expect(cards[0]).toHaveAccessibleName('Recent pending flat')
    expect(cards[1]).toHaveAccessibleName('Waiting flat')
    expect(cards[2]).toHaveAccessibleName('Live flat')
    // Both reads are the newest 200 of their kind.
    expect(reads).toHaveLength(2)
    for (const read of reads) {
      expect(read.calls).toContainEqual(['order', 'created_at', { ascending: false }])
      expect(read.calls).toContainEqual(['limit', 200])
    }
    expect(within(cards[2]).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument()
    await user.click(within(cards[1]).getByRole('button', { name: 'Reject' }))
    const dialog = await screen.findByRole('dialog')
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Please give a reason')
    await user.type(within(dialog).getByLabelText('Reason'), 'Blurry photos')
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }))
    await waitFor(() => expect(toastText().join()).toContain('Listing rejected'))
    expect(moderate).toHaveBeenCalledWith({ p_kind: 'property', p_listing_id: 'wait', p_action: 'rejected', p_notes: 'Blurry photos' })
  })
})

describe('disputes', () => {
  it('requires a side and a reason before resolving', async () => {
    const user = userEvent.setup()
    const disputed = { id: 't1', buyer_id: 'b', seller_id: 's', currency: 'keys', amount: 20, rate_per_unit: 15, total_kes: 300, status: 'disputed',
      payment_reference: 'QFT7', dispute_reason: 'No keys', resolution: null, resolution_notes: null, updated_at: '2024-09-01T00:00:00Z' }
    const trades: Request[] = []
    tables({
      user_roles: { role: 'admin' },
      // Open disputes and resolved ones are read apart (none resolved here).
      p2p_trades: (request: Request) => {
        trades.push(request)
        return request.calls.some((c) => c[0] === 'eq' && c[1] === 'status' && c[2] === 'disputed') ? [disputed] : []
      },
      profiles: [{ id: 'b', full_name: 'Buyer B' }, { id: 's', full_name: 'Seller S' }],
      p2p_trade_events: [{ id: 1, trade_id: 't1', from_status: 'paid', to_status: 'disputed', created_at: '2024-09-01T00:00:00Z' }],
      p2p_trade_messages: [{ id: 'm', trade_id: 't1', sender_id: 'b', body: 'I paid', created_at: '2024-09-01T00:00:00Z' }],
    })
    const resolve = vi.fn(() => ({}))
    rpc({ admin_session_verified: true, resolve_trade_dispute: resolve })
    await renderVerified('/admin/disputes')
    const card = await screen.findByRole('article')
    // The longest-waiting open disputes, and the latest resolutions.
    expect(trades.map((r) => r.calls.filter((c) => c[0] === 'eq' || c[0] === 'order' || c[0] === 'limit'))).toEqual([
      [['eq', 'status', 'disputed'], ['order', 'updated_at', { ascending: true }], ['limit', 100]],
      [['eq', 'status', 'resolved'], ['order', 'updated_at', { ascending: false }], ['limit', 100]],
    ])
    expect(await within(card).findByText('I paid')).toBeInTheDocument()
    expect(within(card).getByText(/paid → disputed/)).toBeInTheDocument()
    await user.click(within(card).getByRole('button', { name: 'Resolve dispute' }))
    expect(await within(card).findByText('Choose who receives the escrow')).toBeInTheDocument()
    expect(within(card).getByText('Please record the reason')).toBeInTheDocument()
    await user.click(within(card).getByRole('radio', { name: /The seller/ }))
    await user.type(within(card).getByLabelText('Reason for the decision'), 'No payment on statement')
    await user.click(within(card).getByRole('button', { name: 'Resolve dispute' }))
    await waitFor(() => expect(toastText().join()).toContain('Dispute resolved'))
    expect(resolve).toHaveBeenCalledWith({ p_trade_id: 't1', p_resolution: 'seller', p_notes: 'No payment on statement' })
  })
})

describe('analytics', () => {
  it('draws the aggregates and switches to 90 days', async () => {
    const user = userEvent.setup()
    const series = (n: number) => Array.from({ length: n }, (_, i) => ({ day: `2024-09-${String((i % 28) + 1).padStart(2, '0')}`, count: i % 3, amount: i }))
    rpc({
      admin_session_verified: true,
      admin_analytics: ({ p_days }) => ({
        days: p_days,
        signups: series(p_days as number),
        fees: series(p_days as number),
        feesTotal: 435,
        listings: [{ kind: 'property', total: 9, active: 4, pending: 2, new: 3 }],
        trades: [{ currency: 'keys', trades: 2, completed: 1, volume: 20, volumeKes: 300 }],
      }),
    })
    await renderVerified('/admin/analytics')
    const signups = await screen.findByRole('img', { name: /^Sign-ups per day:/ })
    expect(signups.querySelectorAll('rect[data-value]')).toHaveLength(30)
    expect(screen.getByRole('img', { name: /^Listings by kind: Properties 9/ })).toBeInTheDocument()
    expect(screen.getByText('435 Nestcoins')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Last 90 days' }))
    await waitFor(() => expect(screen.getByRole('img', { name: /^Sign-ups per day:/ }).querySelectorAll('rect[data-value]')).toHaveLength(90))
  })
})
