import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fillFields, renderApp } from '@/testing/test-utils'

import { contactFailure, contactName, contactSchema } from '../../api/send-contact-message'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const valid = { firstName: 'Achieng', lastName: 'Otieno', email: 'achieng@example.com', message: 'Do you list plots in Kisumu?' }

/** The message keys zod reports, per field. */
function errorsOf(values: Partial<typeof valid>) {
  const result = contactSchema.safeParse({ ...valid, ...values })
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]))
}

describe('contactSchema', () => {
  it('accepts a complete message and trims it', () => {
    const parsed = contactSchema.parse({ ...valid, firstName: ' Achieng ', email: ' achieng@example.com ' })
    expect(parsed.firstName).toBe('Achieng')
    expect(parsed.email).toBe('achieng@example.com')
    expect(contactName(parsed)).toBe('Achieng Otieno')
  })

  it('needs both names (one character each is enough)', () => {
    expect(errorsOf({ firstName: '  ' })).toEqual({ firstName: 'contact.firstNameRequired' })
    expect(errorsOf({ lastName: '' })).toEqual({ lastName: 'contact.lastNameRequired' })
    expect(errorsOf({ firstName: 'A', lastName: 'O' })).toEqual({})
    expect(contactName({ firstName: 'A', lastName: 'O' })).toHaveLength(3)
    expect(errorsOf({ firstName: 'x'.repeat(51) })).toEqual({ firstName: 'contact.nameTooLong' })
  })

  it("asks for the e-mail with the spec's words, then for a valid one", () => {
    expect(errorsOf({ email: '' })).toEqual({ email: 'home.newsletterEmpty' })
    expect(errorsOf({ email: 'achieng@' })).toEqual({ email: 'validation.emailInvalid' })
    expect(errorsOf({ email: 'achieng example.com' })).toEqual({ email: 'validation.emailInvalid' })
    expect(errorsOf({ email: `${'a'.repeat(250)}@x.co` })).toEqual({ email: 'contact.emailTooLong' })
  })

  it('takes a message of 10 to 5,000 characters, not counting surrounding blanks', () => {
    expect(errorsOf({ message: '  123456789  ' })).toEqual({ message: 'contact.messageTooShort' })
    expect(errorsOf({ message: '1234567890' })).toEqual({})
    expect(errorsOf({ message: 'x'.repeat(5000) })).toEqual({})
    expect(errorsOf({ message: 'x'.repeat(5001) })).toEqual({ message: 'contact.messageTooLong' })
  })
})

describe('contactFailure', () => {
  it("recognises the server's rate limit", () => {
    expect(contactFailure({ code: 'P0001', message: 'Too many messages', hint: 'Please wait a while before sending another message.' })).toEqual({
      kind: 'rate-limited',
    })
    expect(contactFailure({ code: '23514', message: 'new row violates check constraint' })).toEqual({
      kind: 'failed',
      detail: 'new row violates check constraint',
    })
    expect(contactFailure(undefined)).toEqual({ kind: 'failed', detail: null })
  })
})

describe('the contact form', () => {
  beforeEach(() => {
    fake.requests.length = 0
    fake.respondWith(() => ({ data: null }))
  })

  it('/contact shows the field errors and sends nothing until they are fixed', async () => {
    const { user } = await renderApp('/contact')
    expect(await screen.findByRole('heading', { level: 1, name: 'Contact us' })).toBeInTheDocument()
    expect(document.title).toBe('Contact us | KejaNest')
    await user.click(screen.getByRole('button', { name: 'Send Message' }))
    expect(await screen.findByText('Enter your first name')).toBeInTheDocument()
    expect(screen.getByText('Enter your last name')).toBeInTheDocument()
    expect(screen.getByText('Please enter your email address')).toBeInTheDocument()
    expect(screen.getByText('Message must be at least 10 characters')).toBeInTheDocument()
    expect(screen.getByLabelText('First name')).toHaveAttribute('aria-invalid', 'true')

    await fillFields(user, { 'First name': 'A', 'Last name': 'O', Email: 'a@b', Message: 'too short' })
    await user.click(screen.getByRole('button', { name: 'Send Message' }))
    expect(await screen.findByText('Enter a valid email address')).toBeInTheDocument()
    expect(screen.getByText('Message must be at least 10 characters')).toBeInTheDocument()
    expect(fake.requestsOf('contact_messages')).toHaveLength(0)
  })

  it('/contact stores name, email and message, asks nothing back, and thanks the sender', async () => {
    const { user } = await renderApp('/contact')
    await fillFields(user, { 'First name': ' Achieng ', 'Last name': 'Otieno', Email: 'achieng@example.com', Message: valid.message })
    await user.click(await screen.findByRole('button', { name: 'Send Message' }))
    const status = await screen.findByRole('status')
    expect(status).toHaveTextContent('Message sent')
    expect(status).toHaveTextContent('We will reply to achieng@example.com')

    const [request] = fake.requestsOf('contact_messages')
    expect(request.calls).toContainEqual(['insert', { name: 'Achieng Otieno', email: 'achieng@example.com', message: valid.message }])
    expect(request.calls.some(([method]) => method === 'select')).toBe(false)

    await user.click(within(status).getByRole('button', { name: 'Send another message' }))
    expect(await screen.findByLabelText('First name')).toHaveValue('')
  })

  it("shows the server's rate limit and keeps what was typed", async () => {
    fake.respondWith(() =>
      Promise.reject(
        Object.assign(new Error('Too many messages'), { code: 'P0001', hint: 'Please wait a while before sending another message.' }),
      ),
    )
    const { user } = await renderApp('/contact')
    await fillFields(user, { 'First name': 'Achieng', 'Last name': 'Otieno', Email: valid.email, Message: valid.message })
    await user.click(await screen.findByRole('button', { name: 'Send Message' }))
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Too many messages')
    expect(alert).toHaveTextContent('Please wait a while before sending another message.')
    expect(screen.getByLabelText('Message')).toHaveValue(valid.message)
  })

  it('/about sends its contact form the same way', async () => {
    const { user } = await renderApp('/about')
    const contact = await screen.findByRole('region', { name: 'Contact us' })
    // The region also holds the 'Get Updates' box, with its own Email.
    const form = within(within(contact).getByRole('button', { name: 'Send Message' }).closest('form')!)
    await user.type(form.getByLabelText('First name'), 'Achieng')
    await user.type(form.getByLabelText('Last name'), 'Otieno')
    await user.type(form.getByLabelText('Email'), valid.email)
    await user.type(form.getByLabelText('Message'), valid.message)
    await user.click(form.getByRole('button', { name: 'Send Message' }))
    expect(await within(contact).findByRole('status')).toHaveTextContent('Message sent')
    await waitFor(() => expect(fake.requestsOf('contact_messages')).toHaveLength(1))
  })
})
