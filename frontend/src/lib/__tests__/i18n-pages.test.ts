import { afterEach, describe, expect, it } from 'vitest'

import { loadSwahili, setLanguage, t } from '../i18n/i18n'

describe('page catalogues', () => {
  afterEach(() => setLanguage('en'))

  it('loads the Kiswahili page copy on demand', async () => {
    expect(t('lands.loading')).toBe('Loading land listings...')
    setLanguage('sw')
    await loadSwahili()
    expect(t('lands.loading')).toBe('Inapakia matangazo ya ardhi...')
    expect(t('pricing.purchase')).toBe('Nunua Nestcoins')
    expect(t('home.newsletterEmpty')).toBe('Tafadhali weka barua pepe yako')
  })

  it('keeps the spec texts in English', () => {
    expect(t('home.newsletterEmpty')).toBe('Please enter your email address')
    expect(t('auth.guardMessage')).toBe('Please log in to continue with this action')
    expect(t('services.more', { count: 2 })).toBe('+2 more')
    expect(t('lands.empty')).toBe('No land listings found')
  })
})
