import { describe, expect, it } from 'vitest'

import { en, type MessageKey } from '@/lib/i18n/en'
import { enAccount } from '@/lib/i18n/en-account'

import { verificationErrorMessage } from '../contact-verification'
import { profileFieldError, profileRow, profileSchema } from '../update-profile'
import { avatarProblem } from '../upload-avatar'

const catalogue: Record<string, string> = { ...en, ...enAccount }
const english = (key: MessageKey) => catalogue[key]

function messagesOf(values: { full_name: string; phone_number: string }) {
  const result = profileSchema.safeParse(values)
  return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]))
}

describe('profile form rules (spec §5)', () => {
  it('accepts empty fields: both are optional', () => {
    expect(messagesOf({ full_name: '', phone_number: '' })).toEqual({})
    expect(profileRow({ full_name: ' ', phone_number: '' })).toEqual({ full_name: null, phone_number: null })
  })

  it('needs a name of at least 2 characters', () => {
    expect(messagesOf({ full_name: ' A ', phone_number: '' })).toEqual({ full_name: 'profile.nameTooShort' })
    expect(messagesOf({ full_name: 'Al', phone_number: '' })).toEqual({})
  })

  it('needs a phone number of at least 10 digits, and only phone characters', () => {
    expect(messagesOf({ full_name: '', phone_number: '071234567' })).toEqual({ phone_number: 'profile.phoneTooShort' })
    expect(messagesOf({ full_name: '', phone_number: '0712abc678' })).toEqual({ phone_number: 'profile.phoneCharacters' })
    expect(messagesOf({ full_name: '', phone_number: '+254 712 345 678 901 2' })).toEqual({ phone_number: 'profile.phoneTooLong' })
    expect(messagesOf({ full_name: '', phone_number: '0712 345 678' })).toEqual({})
  })

  it('stores the phone as +254…', () => {
    expect(profileRow({ full_name: 'Wanjiku Kamau', phone_number: '0712 345 678' })).toEqual({
      full_name: 'Wanjiku Kamau',
      phone_number: '+254712345678',
    })
  })

  it("maps the database trigger's messages onto their fields", () => {
    expect(profileFieldError(new Error('Name must be at least 2 characters'))).toEqual({ field: 'full_name', message: 'profile.nameTooShort' })
    expect(profileFieldError(new Error('Phone number must be at least 10 digits'))).toEqual({
      field: 'phone_number',
      message: 'profile.phoneTooShort',
    })
    expect(profileFieldError(new Error('permission denied'))).toBeNull()
  })
})

describe('avatar checks (spec §5)', () => {
  const file = (type: string, size: number) => new File([new Uint8Array(size)], 'me', { type })

  it('takes JPG, PNG and GIF up to 2MB', () => {
    for (const type of ['image/jpeg', 'image/png', 'image/gif']) expect(avatarProblem(file(type, 2 * 1024 * 1024))).toBeNull()
    expect(avatarProblem(file('image/webp', 10))).toBe('profile.avatarType')
    expect(avatarProblem(file('image/png', 2 * 1024 * 1024 + 1))).toBe('profile.avatarTooLarge')
    expect(enAccount['profile.avatarTooLarge']).toBe('Avatar image must be less than 2MB')
  })
})

describe('verification messages', () => {
  it("shows the server's known messages in the user's language and others as-is", () => {
    expect(verificationErrorMessage(new Error('Please wait a minute before requesting another code'), english, 'verify.sendFailed')).toBe(
      'Please wait a minute before requesting another code',
    )
    expect(verificationErrorMessage(new Error('Something else'), english, 'verify.sendFailed')).toBe('Something else')
    expect(verificationErrorMessage(new Error(''), english, 'verify.sendFailed')).toBe('Failed to send verification code')
    expect(verificationErrorMessage(null, english, 'verify.emailFailed')).toBe('Failed to verify email')
  })
})
