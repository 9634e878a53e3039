import { describe, expect, it } from 'vitest'

import { normalizePhoneKe, phoneDigits } from '../phone'
import { AVATAR_VERSION_KEY, avatarUrl, userAvatarUrl } from '../storage'

describe('normalizePhoneKe', () => {
  // The same cases as the database's public.normalize_phone_ke (migration 0019).
  it.each([
    ['0712 345 678', '+254712345678'],
    ['0112-345-678', '+254112345678'],
    ['712345678', '+254712345678'],
    ['+254 712 345 678', '+254712345678'],
    ['254712345678', '+254712345678'],
    ['(0)20 123 4567', '+0201234567'],
    ['+44 20 7946 0958', '+442079460958'],
  ])('%s becomes %s', (input, expected) => {
    expect(normalizePhoneKe(input)).toBe(expected)
  })

  it('gives null without digits', () => {
    expect(normalizePhoneKe('')).toBeNull()
    expect(normalizePhoneKe(' + - ')).toBeNull()
  })

  it('counts digits only', () => {
    expect(phoneDigits('+254 (712) 345-678')).toBe('254712345678')
  })
})

describe('userAvatarUrl', () => {
  const id = '00000000-0000-4000-8000-000000000001'

  it("is the public avatar URL, versioned by the user's last upload", () => {
    expect(userAvatarUrl({ id, user_metadata: {} })).toBe(avatarUrl(id))
    expect(userAvatarUrl({ id, user_metadata: { [AVATAR_VERSION_KEY]: 1700000000000 } })).toBe(`${avatarUrl(id)}?v=1700000000000`)
    expect(avatarUrl(id)).toMatch(new RegExp(`/storage/v1/object/public/avatars/${id}$`))
  })
})
