import { describe, expect, it } from 'vitest'

import { kycState } from '../get-kyc'
import { kycSchema, normalizeIdNumber, type KycInput } from '../submit-kyc'

const valid: KycInput = {
  id_type: 'National ID',
  id_number: '28765431',
  physical_address: 'Argwings Kodhek Rd, Kilimani, Nairobi',
  photo_url: 'u/selfie.jpg',
  id_document_front_url: 'u/front.jpg',
  id_document_back_url: 'u/back.jpg',
}

function messagesOf(values: Partial<KycInput>) {
  const result = kycSchema.safeParse({ ...valid, ...values })
  return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]))
}

describe('KYC form rules', () => {
  it('accepts a complete submission', () => {
    expect(messagesOf({})).toEqual({})
  })

  it.each([
    ['National ID', '1234567', true],
    ['National ID', '12345678', true],
    ['National ID', '123456', false],
    ['National ID', '123456789', false],
    ['National ID', 'A1234567', false],
    ['Passport', 'AK1234567', true],
    ['Passport', 'ak 123 4567', true],
    ['Passport', 'A1234567', true],
    ['Passport', 'AK12345678', true],
    ['Passport', '1234567', false],
    ['Passport', 'ABC1234567', false],
    ['Passport', 'AK123456', false],
    ['Alien ID', '123456', true],
    ['Alien ID', '123456789', true],
    ['Alien ID', '12345', false],
    ['Alien ID', '1234567890', false],
    ['Maisha Namba', '123456789', true],
    ['Maisha Namba', '123456789012', true],
    ['Maisha Namba', '12345678', false],
    ['Maisha Namba', '1234567890123', false],
  ] as const)('%s number %s is valid: %s', (id_type, id_number, ok) => {
    const messages = messagesOf({ id_type, id_number })
    if (ok) expect(messages).toEqual({})
    else expect(messages).toHaveProperty('id_number')
  })

  it('names the format of the chosen type', () => {
    expect(messagesOf({ id_number: '12' })).toEqual({ id_number: 'kyc.idNumberNationalId' })
    expect(messagesOf({ id_type: 'Passport', id_number: '12' })).toEqual({ id_number: 'kyc.idNumberPassport' })
    expect(messagesOf({ id_type: 'Alien ID', id_number: '12' })).toEqual({ id_number: 'kyc.idNumberAlienId' })
    expect(messagesOf({ id_type: 'Maisha Namba', id_number: '12' })).toEqual({ id_number: 'kyc.idNumberMaisha' })
    expect(messagesOf({ id_number: '  ' })).toEqual({ id_number: 'kyc.idNumberRequired' })
  })

  it('needs the address, the selfie and the front, and the back except for a passport', () => {
    expect(messagesOf({ physical_address: 'Kil', photo_url: '', id_document_front_url: '', id_document_back_url: '' })).toEqual({
      physical_address: 'kyc.addressRequired',
      photo_url: 'kyc.selfieRequired',
      id_document_front_url: 'kyc.frontRequired',
      id_document_back_url: 'kyc.backRequired',
    })
    expect(messagesOf({ id_type: 'Passport', id_number: 'AK1234567', id_document_back_url: '' })).toEqual({})
  })

  it('refuses a document type it does not offer', () => {
    expect(messagesOf({ id_type: 'Driving Licence' as KycInput['id_type'] })).toEqual({ id_type: 'kyc.idTypeRequired' })
  })

  it('stores numbers without spaces or hyphens, upper-case', () => {
    expect(normalizeIdNumber(' ak-123 4567 ')).toBe('AK1234567')
  })
})

describe('kycState', () => {
  it('is none, pending, approved or rejected (anything else pending review)', () => {
    expect(kycState(null)).toBe('none')
    expect(kycState({ verification_status: 'pending' })).toBe('pending')
    expect(kycState({ verification_status: 'approved' })).toBe('approved')
    expect(kycState({ verification_status: 'rejected' })).toBe('rejected')
    expect(kycState({ verification_status: 'in_review' })).toBe('pending')
  })
})
