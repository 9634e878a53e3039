import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession({ email: 'wanjiku@example.com', fullName: 'Wanjiku Kamau' })
const userId = session.user.id

type Tables = {
  profiles?: unknown
  user_verifications?: unknown
  kyc_verifications?: unknown
}

const profile = { id: userId, full_name: 'Wanjiku Kamau', phone_number: '+254712345678' }
const unverified = {
  email_verified: false,
  phone_verified: false,
  email_verification_expires_at: null,
  phone_verification_expires_at: null,
}

/** Answers each table's reads with `rows` (a function gets the request); writes echo their payload. */
function answer(rows: Tables) {
  fake.respondWith((request: Request) => {
    const value = rows[request.table as keyof Tables]
    if (typeof value === 'function') return value(request)
    const [method, payload] = request.calls[0] ?? []
    if (method === 'update' || method === 'insert') return { data: { id: userId, ...(payload as object) } }
    return { data: value ?? null }
  })
}

/** A programmed rpc: `answers[name]` is the data, or an Error to throw. */
function rpcAnswers(answers: Record<string, unknown>) {
  fake.client.rpc.mockImplementation((name: string) => ({
    throwOnError: async () => {
      const value = answers[name]
      if (value instanceof Error) throw value
      return { data: value }
    },
  }))
}

function toastText() {
  return visibleToasts()[0]?.textContent ?? ''
}

const emailSection = () => screen.getByRole('region', { name: 'Email verification' })
const phoneSection = () => screen.getByRole('region', { name: 'Phone verification' })
const kycCard = () => screen.getByRole('heading', { name: 'Identity Verification (KYC)' }).closest('[data-slot="card"]') as HTMLElement

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.client.storage.from.mockReset()
  fake.client.auth.updateUser.mockReset()
  fake.client.auth.updateUser.mockResolvedValue({ data: { user: session.user }, error: null })
  answer({ profiles: profile, user_verifications: unverified, kyc_verifications: null })
})

describe('/profile guard', () => {
  it('sends signed-out visitors to /login, remembering the page', async () => {
    const { router } = await renderApp('/profile')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/profile' })
    await waitFor(() => expect(toastText()).toContain('Please log in to continue with this action'))
  })
})

describe('/profile states', () => {
  it('shows a loading state, then the page', async () => {
    let release!: () => void
    const ready = new Promise<void>((resolve) => (release = resolve))
    answer({ profiles: () => ready.then(() => ({ data: profile })), user_verifications: unverified })
    await renderApp('/profile', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile Settings' })).toBeInTheDocument()
    expect(screen.getAllByText('Loading your profile...').length).toBeGreaterThan(0)
    release()
    expect(await screen.findByLabelText('Full name')).toHaveValue('Wanjiku Kamau')
  })

  it('shows a load failure with Try Again', async () => {
    answer({ profiles: () => Promise.reject(new Error('boom')) })
    const { user } = await renderApp('/profile', { session })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load your profile')
    answer({ profiles: profile, user_verifications: unverified })
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByLabelText('Full name')).toHaveValue('Wanjiku Kamau')
  })
})

describe('/profile in Kiswahili', () => {
  it('speaks Kiswahili when chosen', async () => {
    setLanguage('sw')
    await loadSwahili()
    try {
      await renderApp('/profile', { session })
      expect(await screen.findByRole('heading', { level: 1, name: 'Mipangilio ya Wasifu' })).toBeInTheDocument()
      expect(await screen.findByLabelText('Nambari ya simu')).toHaveValue('+254712345678')
      expect(await screen.findByRole('region', { name: 'Uthibitisho wa barua pepe' })).toBeInTheDocument()
    } finally {
      setLanguage('en')
    }
  })
})

describe('personal information', () => {
  it('shows the profile with the e-mail read-only', async () => {
    await renderApp('/profile', { session })
    expect(await screen.findByLabelText('Full name')).toHaveValue('Wanjiku Kamau')
    expect(screen.getByLabelText('Phone number')).toHaveValue('+254712345678')
    const email = screen.getByLabelText('Email')
    expect(email).toHaveValue('wanjiku@example.com')
    expect(email).toHaveAttribute('readonly')
    expect(email).toHaveAccessibleDescription('Email cannot be changed')
  })

  it('validates the name and phone before saving (spec §5)', async () => {
    const { user } = await renderApp('/profile', { session })
    const name = await screen.findByLabelText('Full name')
    await user.clear(name)
    await user.type(name, 'W')
    const phone = screen.getByLabelText('Phone number')
    await user.clear(phone)
    await user.type(phone, '071234')
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))

    expect(await screen.findByText('Name must be at least 2 characters')).toBeInTheDocument()
    expect(screen.getByText('Phone number must be at least 10 digits')).toBeInTheDocument()
    expect(name).toHaveAttribute('aria-invalid', 'true')
    expect(phone).toHaveAccessibleDescription(expect.stringContaining('Phone number must be at least 10 digits'))
    expect(fake.requestsOf('profiles').some((request) => request.calls[0][0] === 'update')).toBe(false)
  })

  it('saves the name and the phone as +254…, and updates the session metadata', async () => {
    const { user } = await renderApp('/profile', { session })
    const name = await screen.findByLabelText('Full name')
    await user.clear(name)
    await user.type(name, 'Wanjiku Njeri')
    const phone = screen.getByLabelText('Phone number')
    await user.clear(phone)
    await user.type(phone, '0722 000 111')
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))

    await waitFor(() => expect(toastText()).toContain('Profile updated successfully'))
    const update = fake.requestsOf('profiles').find((request) => request.calls[0][0] === 'update')!
    expect(update.calls).toContainEqual(['update', { full_name: 'Wanjiku Njeri', phone_number: '+254722000111' }])
    expect(update.calls).toContainEqual(['eq', 'id', userId])
    expect(fake.client.auth.updateUser).toHaveBeenCalledWith({ data: { full_name: 'Wanjiku Njeri', phone_number: '+254722000111' } })
    expect(screen.getByLabelText('Phone number')).toHaveValue('+254722000111')
  })

  it("puts the server's refusal under its field", async () => {
    const { user } = await renderApp('/profile', { session })
    await screen.findByLabelText('Full name')
    answer({
      profiles: (request: Request) =>
        request.calls[0][0] === 'update' ? Promise.reject(new Error('Phone number must be at least 10 digits')) : { data: profile },
      user_verifications: unverified,
    })
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(toastText()).toContain('Failed to update profile'))
    expect(screen.getByLabelText('Phone number')).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByRole('alert')).toHaveTextContent('Phone number must be at least 10 digits')
  })
})

describe('avatar', () => {
  const picture = (type: string, size: number) => new File([new Uint8Array(size)], 'me.png', { type })

  it('refuses files over 2MB and other types, with the spec messages', async () => {
    await renderApp('/profile', { session })
    // No picture stored yet: the image fails and the icon takes its place.
    fireEvent.error(await screen.findByRole('img', { name: 'Your profile picture' }))
    expect(screen.queryByRole('img', { name: 'Your profile picture' })).not.toBeInTheDocument()
    const input = screen.getByLabelText('Upload photo')
    fireEvent.change(input, { target: { files: [picture('image/png', 2 * 1024 * 1024 + 1)] } })
    await waitFor(() => expect(toastText()).toContain('Avatar image must be less than 2MB'))
    fireEvent.change(input, { target: { files: [picture('image/webp', 100)] } })
    await waitFor(() => expect(toastText()).toContain('Avatar image must be a JPG, PNG or GIF'))
    expect(fake.client.storage.from).not.toHaveBeenCalled()
  })

  it('uploads over the old picture under the user id and shows the new one at once', async () => {
    const upload = vi.fn(async () => ({ data: { path: userId }, error: null }))
    fake.client.storage.from.mockReturnValue({ upload })
    const { user } = await renderApp('/profile', { session })
    const before = (await screen.findByRole('img', { name: 'Your profile picture' })).getAttribute('src')

    await user.upload(screen.getByLabelText('Change photo'), picture('image/png', 1000))

    await waitFor(() => expect(toastText()).toContain('Profile picture uploaded successfully'))
    expect(fake.client.storage.from).toHaveBeenCalledWith('avatars')
    expect(upload).toHaveBeenCalledWith(userId, expect.any(File), expect.objectContaining({ upsert: true, contentType: 'image/png' }))
    expect(fake.client.auth.updateUser).toHaveBeenCalledWith({ data: { avatar_version: expect.any(Number) } })
    const after = screen.getByRole('img', { name: 'Your profile picture' }).getAttribute('src')
    expect(after).not.toBe(before)
    expect(after).toMatch(new RegExp(`/avatars/${userId}\\?v=\\d+$`))
  })

  it("reports a refused upload as 'Failed to upload avatar'", async () => {
    fake.client.storage.from.mockReturnValue({
      upload: async () => ({ data: null, error: new Error('new row violates row-level security policy') }),
    })
    const { user } = await renderApp('/profile', { session })
    await user.upload(await screen.findByLabelText('Change photo'), picture('image/jpeg', 1000))
    await waitFor(() => expect(toastText()).toContain('Failed to upload avatar'))
    expect(toastText()).toContain('new row violates row-level security policy')
  })
})

describe('KYC status card (spec §4)', () => {
  it("shows 'Not started' and 'Start KYC Verification' without a submission", async () => {
    await renderApp('/profile', { session })
    const link = await within(await waitFor(kycCard)).findByRole('link', { name: 'Start KYC Verification' })
    expect(link).toHaveAttribute('href', '/kyc-verification')
    expect(within(kycCard()).getByText('Not started')).toBeInTheDocument()
  })

  it.each([
    ['pending', 'Pending Review', 'bg-warning', 'View Verification Status'],
    ['in_review', 'Pending Review', 'bg-warning', 'View Verification Status'],
    ['rejected', 'Rejected', 'bg-destructive', 'Resubmit Documents'],
  ])('%s shows %s in its colour, linking to /kyc-verification', async (status, label, colour, action) => {
    answer({ profiles: profile, user_verifications: unverified, kyc_verifications: { verification_status: status, admin_notes: 'Blurred photo' } })
    await renderApp('/profile', { session })
    const badge = await within(await waitFor(kycCard)).findByText(label)
    expect(badge.className).toContain(colour)
    expect(within(kycCard()).getByRole('link', { name: action })).toHaveAttribute('href', '/kyc-verification')
    if (status === 'rejected') expect(within(kycCard()).getByText('Blurred photo')).toBeInTheDocument()
  })

  it("shows approved in green with a disabled 'Verified' button", async () => {
    answer({ profiles: profile, user_verifications: unverified, kyc_verifications: { verification_status: 'approved' } })
    await renderApp('/profile', { session })
    const badge = await within(await waitFor(kycCard)).findByText('Approved')
    expect(badge.className).toContain('bg-success')
    expect(within(kycCard()).getByRole('button', { name: 'Verified' })).toBeDisabled()
    expect(within(kycCard()).queryByRole('link')).not.toBeInTheDocument()
  })

  it('shows a load failure', async () => {
    answer({ profiles: profile, user_verifications: unverified, kyc_verifications: () => Promise.reject(new Error('boom')) })
    await renderApp('/profile', { session })
    expect(await within(await waitFor(kycCard)).findByText('Failed to load your KYC verification')).toBeInTheDocument()
  })
})

describe('contact verification', () => {
  it('shows verified channels without a send button', async () => {
    answer({ profiles: profile, user_verifications: { ...unverified, email_verified: true, phone_verified: true } })
    await renderApp('/profile', { session })
    expect(await within(await waitFor(emailSection)).findByText('Verified')).toBeInTheDocument()
    expect(within(phoneSection()).getByText('Verified')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Send code' })).not.toBeInTheDocument()
  })

  it('sends an e-mail code, says where it went without the code, and waits 60 s before a resend', async () => {
    rpcAnswers({
      request_verification_code: { channel: 'email', destination: 'wanjiku@example.com', expires_at: '2099-01-01T00:00:00Z' },
    })
    const { user } = await renderApp('/profile', { session })
    const section = await waitFor(emailSection)
    expect(within(section).getByText('Not verified')).toBeInTheDocument()
    expect(within(section).queryByLabelText('Verification code')).not.toBeInTheDocument()
    await user.click(within(section).getByRole('button', { name: 'Send code' }))

    await waitFor(() => expect(toastText()).toContain('Verification code sent to wanjiku@example.com'))
    expect(toastText()).not.toMatch(/\d{6}/)
    expect(fake.client.rpc).toHaveBeenCalledWith('request_verification_code', { p_channel: 'email' })
    const resend = within(section).getByRole('button', { name: /^Resend code in (60|59)s$/ })
    expect(resend).toBeDisabled()
    const code = within(section).getByLabelText('Verification code')
    expect(code).toHaveAttribute('maxLength', '6')
    expect(within(section).getByRole('button', { name: 'Verify' })).toBeDisabled()
    await user.type(code, '12345678')
    expect(code).toHaveValue('123456')
    expect(within(section).getByRole('button', { name: 'Verify' })).toBeEnabled()
  })

  it("answers a wrong code with 'Invalid verification code' and a right one with the spec's success", async () => {
    answer({ profiles: profile, user_verifications: { ...unverified, email_verification_expires_at: '2099-01-01T00:00:00Z' } })
    rpcAnswers({ verify_contact_code: false })
    const { user } = await renderApp('/profile', { session })
    const section = await waitFor(emailSection)
    // A code sent on an earlier visit is still pending: the code box is there.
    const code = within(section).getByLabelText('Verification code')
    await user.type(code, '000000')
    await user.click(within(section).getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText()).toContain('Invalid verification code'))
    expect(code).toHaveAttribute('aria-invalid', 'true')
    expect(within(section).getByRole('alert')).toHaveTextContent('Invalid verification code')
    expect(fake.client.rpc).toHaveBeenCalledWith('verify_contact_code', { p_channel: 'email', p_code: '000000' })

    rpcAnswers({ verify_contact_code: true })
    answer({ profiles: profile, user_verifications: { ...unverified, email_verified: true } })
    await user.clear(code)
    await user.type(code, '482913')
    await user.click(within(section).getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText()).toContain('Email verified successfully!'))
    expect(await within(emailSection()).findByText('Verified')).toBeInTheDocument()
  })

  it("shows the server's messages for an expired code and a resend too soon", async () => {
    answer({ profiles: profile, user_verifications: { ...unverified, phone_verification_expires_at: '2000-01-01T00:00:00Z' } })
    rpcAnswers({
      request_verification_code: new Error('Please wait a minute before requesting another code'),
      verify_contact_code: new Error('Verification code has expired. Please request a new one.'),
    })
    const { user } = await renderApp('/profile', { session })
    const section = await waitFor(phoneSection)
    expect(within(section).getByText('+254712345678')).toBeInTheDocument()
    // The earlier code has expired: no code box until a new one is sent.
    expect(within(section).queryByLabelText('Verification code')).not.toBeInTheDocument()
    await user.click(within(section).getByRole('button', { name: 'Send code' }))
    await waitFor(() => expect(toastText()).toContain('Please wait a minute before requesting another code'))
    expect(fake.client.rpc).toHaveBeenCalledWith('request_verification_code', { p_channel: 'phone' })

    rpcAnswers({
      request_verification_code: { channel: 'phone', destination: '+254712345678', expires_at: '2099-01-01T00:00:00Z' },
      verify_contact_code: new Error('Verification code has expired. Please request a new one.'),
    })
    await user.click(within(section).getByRole('button', { name: 'Send code' }))
    await waitFor(() => expect(toastText()).toContain('Verification code sent to +254712345678'))
    await user.type(within(section).getByLabelText('Verification code'), '123456')
    await user.click(within(section).getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(toastText()).toContain('Verification code has expired. Please request a new one.'))
  })

  it('asks for a phone number before sending a phone code', async () => {
    answer({ profiles: { ...profile, phone_number: null }, user_verifications: unverified })
    const { user } = await renderApp('/profile', { session })
    const section = await waitFor(phoneSection)
    expect(within(section).getByText('Add your phone number above to verify it.')).toBeInTheDocument()
    await user.click(within(section).getByRole('button', { name: 'Send code' }))
    await waitFor(() => expect(toastText()).toContain('Please update your phone number in profile first'))
    expect(fake.client.rpc).not.toHaveBeenCalled()
  })

  it('shows a load failure of the verification state', async () => {
    answer({ profiles: profile, user_verifications: () => Promise.reject(new Error('boom')) })
    await renderApp('/profile', { session })
    expect(await screen.findByText('Failed to load your verification status')).toBeInTheDocument()
  })
})
