import { describe, expect, it } from 'vitest'

import { en } from '../i18n/en'
import { enAccount } from '../i18n/en-account'
import { getLanguage, initLanguage, LANGUAGE_STORAGE_KEY, setLanguage, t } from '../i18n/i18n'
import { sw } from '../i18n/sw'

describe('t()', () => {
  it('uses English by default', () => {
    expect(getLanguage()).toBe('en')
    expect(t('nav.home')).toBe('Home')
    expect(t('nav.signInRequired')).toBe('Please sign in to access this page')
  })

  it('switches to Kiswahili and remembers it under localStorage "lang"', () => {
    setLanguage('sw')
    expect(t('nav.home')).toBe('Nyumbani')
    expect(t('nav.signInRequired')).toBe('Tafadhali ingia ili kufikia ukurasa huu')
    expect(window.localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('sw')
    expect(document.documentElement.lang).toBe('sw')

    setLanguage('en')
    expect(t('nav.home')).toBe('Home')
  })

  it('restores the stored language and ignores unknown values', () => {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'sw')
    expect(initLanguage()).toBe('sw')
    expect(t('account.login')).toBe('Ingia')

    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'fr')
    expect(initLanguage()).toBe('en')
    expect(t('account.login')).toBe('Log in')
  })

  it('fills placeholders', () => {
    expect(t('footer.rights', { year: 2025 })).toBe('© 2025 KejaNest. All rights reserved.')
  })

  it('has a Kiswahili entry for every English key', () => {
    // The account pages' English copy is registered by their chunks (lib/i18n/account.ts).
    expect(Object.keys(sw).sort()).toEqual(Object.keys({ ...en, ...enAccount }).sort())
    for (const value of Object.values(sw)) expect(value.trim()).not.toBe('')
  })
})
