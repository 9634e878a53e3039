import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { formatDate } from '@/lib/format'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id
const kycId = '0e5a0000-0000-4000-8000-0000000000c1'

const submitted = {
  id: kycId,
  id_type: 'National ID',
  id_number: '28765431',
  physical_address: 'Argwings Kodhek Rd, Kilimani, Nairobi',
  photo_url: `${userId}/selfie-1.jpg`,
  id_document_front_url: `${userId}/id-front-1.jpg`,
  id_document_back_url: `${userId}/id-back-1.pdf`,
  verification_status: 'pending',
  admin_notes: null,
  reviewed_at: null,
  created_at: '2026-11-20T09:00:00Z',
  updated_at: '2026-11-20T09:00:00Z',
}

/**
 * Answers kyc_verifications from `row` (null: no submission); an insert or
 * update stores its payload as the new row, pending as the database does.
 */
function kycTable(initial: Record<string, unknown> | null | (() => Promise<{ data: unknown }>)) {
  let row = initial
  fake.respondWith((request: Request) => {
    if (request.table !== 'kyc_verifications') return { data: null }
    const [method, payload] = request.calls[0]
    if (method === 'insert' || method === 'update') {
      row = { ...submitted, ...(typeof row === 'object' ? row : {}), ...(payload as object), verification_status: 'pending', admin_notes: null }
      return { data: row }
    }
    return typeof row === 'function' ? row() : { data: row }
  })
}

/** A fake `kyc` bucket: uploads are recorded, signed links are made up from the path. */
function kycBucket() {
  const upload = vi.fn(async (path: string) => ({ data: { path }, error: null }))
  const createSignedUrl = vi.fn(async (path: string) => ({ data: { signedUrl: `https://storage.test/signed/${path}` }, error: null }))
  fake.client.storage.from.mockReturnValue({ upload, createSignedUrl })
  return { upload, createSignedUrl }
}

const toastText = () => visibleToasts()[0]?.textContent ?? ''
const photo = (name: string, type = 'image/jpeg') => new File([new Uint8Array(2000)], name, { type })

beforeEach(() => {
  fake.client.storage.from.mockReset()
})

describe('/kyc-verification', () => {
  it('sends signed-out visitors to /login, remembering the page', async () => {
    kycTable(null)
    const { router } = await renderApp('/kyc-verification')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/kyc-verification' })
  })

  it('shows loading, then the form when nothing was submitted yet', async () => {
    let release!: () => void
    const ready = new Promise<void>((resolve) => (release = resolve))
    kycTable(() => ready.then(() => ({ data: null })))
    await renderApp('/kyc-verification', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'KYC Verification' })).toBeInTheDocument()
    expect(screen.getAllByText('Loading your verification...').length).toBeGreaterThan(0)
    release()
    expect(await screen.findByRole('button', { name: 'Submit for Verification' })).toBeInTheDocument()
    expect(screen.getByLabelText('ID type')).toHaveValue('National ID')
    expect(screen.getByRole('link', { name: 'Back to profile' })).toHaveAttribute('href', '/profile')
  })

  it('shows a load failure with Try Again', async () => {
    kycTable(() => Promise.reject(new Error('boom')))
    const { user } = await renderApp('/kyc-verification', { session })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load your KYC verification')
    kycTable(null)
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('button', { name: 'Submit for Verification' })).toBeInTheDocument()
  })

  it("validates every field and each document type's number format", async () => {
    kycTable(null)
    const { user } = await renderApp('/kyc-verification', { session })
    await user.click(await screen.findByRole('button', { name: 'Submit for Verification' }))

    expect(await screen.findByText('Enter your ID number')).toBeInTheDocument()
    expect(screen.getByText('Enter your physical address (at least 5 characters)')).toBeInTheDocument()
    expect(screen.getByText('Upload a selfie photo')).toBeInTheDocument()
    expect(screen.getByText('Upload the front of your ID')).toBeInTheDocument()
    expect(screen.getByText('Upload the back of your ID')).toBeInTheDocument()
    expect(screen.getByLabelText('Selfie photo')).toHaveAttribute('aria-invalid', 'true')

    const number = screen.getByLabelText('ID number')
    await user.type(number, '12345')
    expect(await screen.findByText('A National ID number has 7 or 8 digits')).toBeInTheDocument()
    expect(number).toHaveAccessibleDescription(expect.stringContaining('7 or 8 digits, e.g. 12345678'))

    await user.selectOptions(screen.getByLabelText('ID type'), 'Passport')
    expect(
      await screen.findByText('A passport number is one or two letters followed by 7 or 8 digits, e.g. AK1234567'),
    ).toBeInTheDocument()
    // A passport has no back to upload.
    await waitFor(() => expect(screen.queryByText('Upload the back of your ID')).not.toBeInTheDocument())
    expect(screen.getByLabelText('Back of ID (optional)')).toBeInTheDocument()

    await user.selectOptions(screen.getByLabelText('ID type'), 'Alien ID')
    expect(await screen.findByText('An Alien ID number has 6 to 9 digits')).toBeInTheDocument()
    await user.selectOptions(screen.getByLabelText('ID type'), 'Maisha Namba')
    expect(await screen.findByText('A Maisha Namba has 9 to 12 digits')).toBeInTheDocument()
    expect(fake.requestsOf('kyc_verifications').filter((request) => request.calls[0][0] === 'insert')).toHaveLength(0)
  })

  it('refuses files the private bucket would refuse', async () => {
    kycTable(null)
    const { upload } = kycBucket()
    await renderApp('/kyc-verification', { session })
    fireEvent.change(await screen.findByLabelText('Selfie photo'), { target: { files: [photo('me.gif', 'image/gif')] } })
    await waitFor(() => expect(toastText()).toContain('Documents must be JPG, PNG or PDF files'))
    expect(upload).not.toHaveBeenCalled()
  })

  it('uploads the documents to the private bucket and submits, then shows Pending Review', async () => {
    kycTable(null)
    const { upload, createSignedUrl } = kycBucket()
    const { user } = await renderApp('/kyc-verification', { session })

    await user.selectOptions(await screen.findByLabelText('ID type'), 'Passport')
    await user.type(screen.getByLabelText('ID number'), 'ak 123-4567')
    await user.type(screen.getByLabelText('Physical address'), 'Nyali Rd, Mombasa')
    await user.upload(screen.getByLabelText('Selfie photo'), photo('selfie.jpg'))
    await user.upload(screen.getByLabelText('Front of ID'), photo('front.png', 'image/png'))
    await waitFor(() => expect(upload).toHaveBeenCalledTimes(2))
    expect(fake.client.storage.from).toHaveBeenCalledWith('kyc')
    const [selfiePath] = upload.mock.calls[0]
    const [frontPath] = upload.mock.calls[1]
    expect(selfiePath).toMatch(new RegExp(`^${userId}/selfie-[0-9a-f-]+\\.jpg$`))
    expect(frontPath).toMatch(new RegExp(`^${userId}/id-front-[0-9a-f-]+\\.png$`))
    // What was uploaded is shown back through a signed link.
    expect(await screen.findByRole('img', { name: 'Selfie photo' })).toHaveAttribute('src', `https://storage.test/signed/${selfiePath}`)
    expect(createSignedUrl).toHaveBeenCalledWith(selfiePath, 600)

    await user.click(screen.getByRole('button', { name: 'Submit for Verification' }))
    await waitFor(() => expect(toastText()).toContain('Your documents were submitted for review.'))
    const insert = fake.requestsOf('kyc_verifications').find((request) => request.calls[0][0] === 'insert')!
    expect(insert.calls[0]).toEqual([
      'insert',
      {
        user_id: userId,
        id_type: 'Passport',
        id_number: 'AK1234567',
        physical_address: 'Nyali Rd, Mombasa',
        photo_url: selfiePath,
        id_document_front_url: frontPath,
        id_document_back_url: null,
      },
    ])
    expect(await screen.findByRole('heading', { name: 'Pending Review' })).toBeInTheDocument()
  })

  it('shows a pending submission with its date, a masked number and the documents', async () => {
    kycTable(submitted)
    kycBucket()
    await renderApp('/kyc-verification', { session })
    const status = await screen.findByRole('region', { name: 'Pending Review' })
    expect(status).toHaveAttribute('data-state', 'pending')
    expect(status.className).toContain('bg-warning')
    expect(within(status).getByText(`You submitted your documents on ${formatDate(submitted.updated_at)}.`, { exact: false })).toBeInTheDocument()
    expect(screen.getByText('•••••431')).toBeInTheDocument()
    expect(screen.queryByText('28765431')).not.toBeInTheDocument()
    expect(await screen.findByRole('img', { name: 'Front of ID' })).toHaveAttribute(
      'src',
      `https://storage.test/signed/${submitted.id_document_front_url}`,
    )
    expect(screen.getByRole('link', { name: 'Open Back of ID (PDF)' })).toHaveAttribute(
      'href',
      `https://storage.test/signed/${submitted.id_document_back_url}`,
    )
    expect(screen.queryByRole('button', { name: /Submit|Resubmit/ })).not.toBeInTheDocument()
  })

  it('shows an approved submission in green with the date it was approved', async () => {
    kycTable({ ...submitted, verification_status: 'approved', reviewed_at: '2026-11-21T10:00:00Z', admin_notes: 'Documents match.' })
    kycBucket()
    await renderApp('/kyc-verification', { session })
    const status = await screen.findByRole('region', { name: 'Identity verified' })
    expect(status.className).toContain('bg-success')
    expect(within(status).getByText('Approved')).toBeInTheDocument()
    expect(within(status).getByText(`Your identity was verified on ${formatDate('2026-11-21T10:00:00Z')}.`)).toBeInTheDocument()
  })

  it("shows a rejection with the admin's notes and resubmits as an update", async () => {
    kycTable({
      ...submitted,
      verification_status: 'rejected',
      reviewed_at: '2026-11-21T10:00:00Z',
      admin_notes: 'The ID photo is blurred; please upload a clearer copy.',
    })
    const { upload } = kycBucket()
    const { user } = await renderApp('/kyc-verification', { session })
    const status = await screen.findByRole('region', { name: 'Verification rejected' })
    expect(status.className).toContain('bg-destructive')
    expect(within(status).getByText('The ID photo is blurred; please upload a clearer copy.')).toBeInTheDocument()

    await user.click(within(status).getByRole('button', { name: 'Resubmit Documents' }))
    expect(await screen.findByRole('heading', { name: 'Resubmit your documents' })).toBeInTheDocument()
    expect(screen.getByLabelText('ID number')).toHaveValue('28765431')
    expect(screen.getByLabelText('Physical address')).toHaveValue(submitted.physical_address)
    await user.upload(screen.getByLabelText('Front of ID'), photo('sharper.jpg'))
    await waitFor(() => expect(upload).toHaveBeenCalledTimes(1))
    const [newFront] = upload.mock.calls[0]
    await user.click(screen.getByRole('button', { name: 'Resubmit for Verification' }))

    expect(await screen.findByRole('region', { name: 'Pending Review' })).toBeInTheDocument()
    const update = fake.requestsOf('kyc_verifications').find((request) => request.calls[0][0] === 'update')!
    expect(update.calls[0]).toEqual([
      'update',
      {
        id_type: 'National ID',
        id_number: '28765431',
        physical_address: submitted.physical_address,
        photo_url: submitted.photo_url,
        id_document_front_url: newFront,
        id_document_back_url: submitted.id_document_back_url,
      },
    ])
    expect(update.calls).toContainEqual(['eq', 'id', kycId])
  })
})
