import { afterEach, describe, expect, it } from 'vitest'

import { formatDate, formatKES } from '@/lib/format'
import { setLanguage } from '@/lib/i18n/i18n'

import type { Notification } from '../../api/get-notifications'
import { notificationText } from '../notification-text'

const paidUntil = '2026-12-24T09:00:00+00:00'

function word(kind: Notification['kind'], data: Record<string, unknown>, lang: 'en' | 'sw' = 'en') {
  setLanguage(lang)
  return notificationText({ kind, data: data as Notification['data'] }, lang)
}

afterEach(() => setLanguage('en'))

describe('notification wording (kind + data, 0024)', () => {
  it('listing approved: the title and the end of the paid period', () => {
    expect(word('listing_approved', { title: 'Bedsitter in Kilimani', paid_until: paidUntil, notes: null })).toEqual({
      title: 'Listing approved',
      body: `"Bedsitter in Kilimani" is live until ${formatDate(paidUntil, 'en')}.`,
    })
    expect(word('listing_approved', { title: 'Sofa' }).body).toBe('"Sofa" is live.')
  })

  it("listing rejected: with the admin's notes when there are any", () => {
    expect(word('listing_rejected', { title: 'Plot in Ruiru', notes: 'Photos are not of the plot' })).toEqual({
      title: 'Listing rejected',
      body: '"Plot in Ruiru" was not approved and your fee was refunded. Notes: Photos are not of the plot',
    })
    expect(word('listing_rejected', { title: 'Plot in Ruiru', notes: null }).body).toBe(
      '"Plot in Ruiru" was not approved and your fee was refunded.',
    )
  })

  it('listing expiring: with its date', () => {
    expect(word('listing_expiring', { title: 'Swift Movers', paid_until: paidUntil })).toEqual({
      title: 'Listing expiring soon',
      body: `"Swift Movers" expires on ${formatDate(paidUntil, 'en')}. Renew it to keep it live.`,
    })
  })

  it('KYC approved and rejected (with notes)', () => {
    expect(word('kyc_approved', { notes: null, reviewed_at: paidUntil })).toEqual({
      title: 'Identity verified',
      body: 'Your KYC verification was approved.',
    })
    expect(word('kyc_rejected', { notes: 'ID photo is blurred' })).toEqual({
      title: 'Identity verification rejected',
      body: 'Your KYC verification was rejected. You can submit it again. Notes: ID photo is blurred',
    })
  })

  it('trade events by data.status, with amount and total', () => {
    const trade = { trade_id: 't1', amount: 500, currency: 'nestcoins', total_kes: 5000 }
    const titles = Object.fromEntries(
      ['escrow_locked', 'paid', 'completed', 'cancelled', 'expired', 'disputed', 'resolved', 'weird'].map((status) => [
        status,
        word('trade', { ...trade, status }).title,
      ]),
    )
    expect(titles).toEqual({
      escrow_locked: 'New P2P trade',
      paid: 'Trade marked as paid',
      completed: 'Trade completed',
      cancelled: 'Trade cancelled',
      expired: 'Trade expired',
      disputed: 'Trade disputed',
      resolved: 'Dispute resolved',
      weird: 'Trade update',
    })
    expect(word('trade', { ...trade, status: 'escrow_locked' }).body).toBe(`500 Nestcoins locked in escrow for ${formatKES(5000)}.`)
    expect(word('trade', { ...trade, status: 'paid' }).body).toContain(`The buyer says they paid ${formatKES(5000)} for 500 Nestcoins.`)
  })

  it('a new message: sender, listing and preview', () => {
    expect(
      word('message', { sender_name: 'Brian Otieno', listing_title: 'Bedsitter in Kilimani', preview: 'Is it still available?' }),
    ).toEqual({ title: 'New message from Brian Otieno', body: 'Bedsitter in Kilimani: Is it still available?' })
    expect(word('message', { sender_name: null, listing_title: null, preview: '' })).toEqual({
      title: 'New message from Someone',
      body: 'Your listing',
    })
  })

  it('speaks Kiswahili', () => {
    expect(word('listing_approved', { title: 'Nyumba', paid_until: paidUntil }, 'sw')).toEqual({
      title: 'Tangazo limeidhinishwa',
      body: `"Nyumba" liko hewani hadi ${formatDate(paidUntil, 'sw')}.`,
    })
    expect(word('listing_rejected', { title: 'Nyumba', notes: 'Picha hazieleweki' }, 'sw').body).toBe(
      '"Nyumba" halikuidhinishwa na ada yako imerudishwa. Maelezo: Picha hazieleweki',
    )
    expect(word('kyc_approved', {}, 'sw').title).toBe('Utambulisho umethibitishwa')
    expect(word('trade', { status: 'completed', amount: 10, currency: 'keys', total_kes: 300 }, 'sw').title).toBe('Biashara imekamilika')
    expect(word('message', { sender_name: 'Amina', listing_title: 'Sofa', preview: 'Habari' }, 'sw')).toEqual({
      title: 'Ujumbe mpya kutoka kwa Amina',
      body: 'Sofa: Habari',
    })
  })

  it('an unknown kind or broken data still reads', () => {
    expect(notificationText({ kind: 'other' as Notification['kind'], data: null }, 'en')).toEqual({ title: 'Notification', body: '' })
    expect(notificationText({ kind: 'listing_expiring', data: [] }, 'en').body).toBe('"Your listing" expires in 3 days. Renew it to keep it live.')
  })
})
