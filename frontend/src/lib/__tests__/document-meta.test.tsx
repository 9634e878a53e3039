import { renderHook } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { useDocumentMeta } from '../document-meta'

const meta = (selector: string) => document.head.querySelector(selector)?.getAttribute('content')
const og = (property: string) => meta(`meta[property="${property}"]`)
const defaultTitle = 'KejaNest - Real Estate and Household Items in Kenya'

describe('useDocumentMeta', () => {
  it('sets the title, the description and their Open Graph twins, with the image and type when given', () => {
    renderHook(() => useDocumentMeta('Sofa | KejaNest', 'A blue sofa.', { image: 'https://cdn.example.com/sofa.jpg', type: 'article' }))
    expect(document.title).toBe('Sofa | KejaNest')
    expect(meta('meta[name="description"]')).toBe('A blue sofa.')
    expect(og('og:title')).toBe('Sofa | KejaNest')
    expect(og('og:description')).toBe('A blue sofa.')
    expect(og('og:type')).toBe('article')
    expect(og('og:image')).toBe('https://cdn.example.com/sofa.jpg')
    expect(document.head.querySelectorAll('meta[property="og:title"]')).toHaveLength(1)
  })

  it('drops a previous page\'s image and falls back to the default description and type', () => {
    const { rerender } = renderHook(({ title, image }) => useDocumentMeta(title, undefined, { image }), {
      initialProps: { title: 'A', image: 'https://cdn.example.com/a.jpg' as string | undefined },
    })
    rerender({ title: 'B', image: undefined })
    expect(document.title).toBe('B')
    expect(og('og:image')).toBeUndefined()
    expect(og('og:type')).toBe('website')
    expect(meta('meta[name="description"]')).toMatch(/Kenya's leading platform/)
  })

  it('shows the defaults without a title and after the page goes away', () => {
    const { rerender, unmount } = renderHook(({ title }) => useDocumentMeta(title, 'Page text'), {
      initialProps: { title: 'Loaded page' as string | undefined },
    })
    expect(document.title).toBe('Loaded page')
    rerender({ title: undefined })
    expect(document.title).toBe(defaultTitle)
    expect(og('og:title')).toBe(defaultTitle)
    rerender({ title: 'Loaded page' })
    unmount()
    expect(document.title).toBe(defaultTitle)
    expect(meta('meta[name="description"]')).toMatch(/Kenya's leading platform/)
  })
})
