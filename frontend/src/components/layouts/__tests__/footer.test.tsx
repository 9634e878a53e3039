import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { renderApp } from '@/testing/test-utils'

const footer = () => screen.getByRole('contentinfo')
const hrefOf = (name: string) => within(footer()).getByRole('link', { name }).getAttribute('href')

describe('footer', () => {
  it('links property types to /properties?type=<encoded>', async () => {
    await renderApp('/home')
    expect(hrefOf('Single Room')).toBe('/properties?type=Single%20Room')
    expect(hrefOf('Bedsitter')).toBe('/properties?type=Bedsitter')
    expect(hrefOf('One Bedroom')).toBe('/properties?type=One%20Bedroom')
    expect(hrefOf('Two Bedroom')).toBe('/properties?type=Two%20Bedroom')
    expect(hrefOf('Three Bedroom')).toBe('/properties?type=Three%20Bedroom')
  })

  it('links marketplace categories to /marketplace?category=<encoded>', async () => {
    await renderApp('/home')
    for (const category of ['Furniture', 'Electronics', 'Kitchen', 'Bedroom', 'Appliances']) {
      expect(hrefOf(category)).toBe(`/marketplace?category=${category}`)
    }
  })

  it('links contact, terms, privacy and social profiles', async () => {
    await renderApp('/home')
    expect(hrefOf('Contact Us')).toBe('/contact')
    expect(hrefOf('Terms of Service')).toBe('/terms')
    expect(hrefOf('Privacy Policy')).toBe('/privacy')
    const social = within(footer()).getByRole('link', { name: 'Facebook' })
    expect(social).toHaveAttribute('target', '_blank')
    expect(social).toHaveAttribute('rel', 'noopener noreferrer')
  })

  it('keeps query values in English when the copy is in Kiswahili', async () => {
    window.localStorage.setItem('lang', 'sw')
    const { initLanguage } = await import('@/lib/i18n/i18n')
    initLanguage()
    await renderApp('/home')
    expect(hrefOf('Chumba Kimoja')).toBe('/properties?type=Single%20Room')
    expect(hrefOf('Samani')).toBe('/marketplace?category=Furniture')
  })
})
