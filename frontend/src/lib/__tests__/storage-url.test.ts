import { describe, expect, it } from 'vitest'

import { imageUrl, PLACEHOLDER_IMAGE } from '../storage'

describe('imageUrl', () => {
  it('is the public object URL of an images-bucket path', () => {
    expect(imageUrl('u1/room one.jpg')).toMatch(/\/storage\/v1\/object\/public\/images\/u1\/room%20one\.jpg$/)
  })

  it('asks storage to render a right-sized copy when given a width, as getPublicUrl with a transform does', () => {
    expect(imageUrl('/u1/room one.jpg', 400)).toMatch(/\/storage\/v1\/render\/image\/public\/images\/u1\/room%20one\.jpg\?width=400$/)
  })

  it('passes absolute URLs through and gives the placeholder for an empty path', () => {
    expect(imageUrl('https://example.test/a.jpg', 400)).toBe('https://example.test/a.jpg')
    expect(imageUrl('  ', 400)).toBe(PLACEHOLDER_IMAGE)
    expect(imageUrl(null)).toBe(PLACEHOLDER_IMAGE)
  })
})
