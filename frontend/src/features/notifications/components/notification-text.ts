import { formatDate, formatKES, formatNumber } from '@/lib/format'
import type { InboxKey } from '@/lib/i18n/en-inbox'
import type { Language } from '@/lib/i18n/i18n'
import { tInbox } from '@/lib/i18n/inbox'

import type { Notification } from '../api/get-notifications'

/** What the bell shows of a notification. */
export type NotificationText = { title: string; body: string }

type Data = Record<string, unknown>

function text(data: Data, key: string): string | null {
  const value = data[key]
  if (typeof value === 'number') return String(value)
  return typeof value === 'string' && value.trim() ? value.trim() : null
}

function dateOf(data: Data, key: string, lang: Language): string | null {
  const value = text(data, key)
  return value && !Number.isNaN(Date.parse(value)) ? formatDate(value, lang) : null
}

const tradeTitles: Record<string, InboxKey> = {
  escrow_locked: 'inbox.notif.trade.escrowLocked',
  paid: 'inbox.notif.trade.paid',
  completed: 'inbox.notif.trade.completed',
  cancelled: 'inbox.notif.trade.cancelled',
  expired: 'inbox.notif.trade.expired',
  disputed: 'inbox.notif.trade.disputed',
  resolved: 'inbox.notif.trade.resolved',
}

const tradeBodies: Record<string, InboxKey> = {
  escrow_locked: 'inbox.notif.trade.escrowLockedBody',
  paid: 'inbox.notif.trade.paidBody',
  completed: 'inbox.notif.trade.completedBody',
  cancelled: 'inbox.notif.trade.cancelledBody',
  expired: 'inbox.notif.trade.expiredBody',
  disputed: 'inbox.notif.trade.disputedBody',
  resolved: 'inbox.notif.trade.resolvedBody',
}

const currencies: Record<string, InboxKey> = {
  nestcoins: 'inbox.currency.nestcoins',
  crystals: 'inbox.currency.crystals',
  keys: 'inbox.currency.keys',
}

/** "500 Nestcoins" from a trade's amount and currency. */
function tradeAmount(data: Data, lang: Language): string {
  const amount = Number(data.amount)
  const currency = text(data, 'currency') ?? ''
  const name = currencies[currency] ? tInbox(currencies[currency]) : currency
  return `${Number.isFinite(amount) ? formatNumber(amount, lang) : '?'} ${name}`.trim()
}

/** A sentence with the admin's notes after it, when there are any. */
function withNotes(body: string, data: Data): string {
  const notes = text(data, 'notes')
  return notes ? `${body} ${tInbox('inbox.notif.notes', { notes })}` : body
}

/**
 * Words a notification (stored as kind + data, 0024) in the current
 * language: listing approved, rejected (with the admin's notes) or
 * expiring (with its date), KYC decided, a P2P trade event (data.status), a
 * new message (sender, listing, preview).
 */
export function notificationText(notification: Pick<Notification, 'kind' | 'data'>, lang: Language): NotificationText {
  const data: Data =
    notification.data && typeof notification.data === 'object' && !Array.isArray(notification.data) ? (notification.data as Data) : {}
  const title = text(data, 'title') ?? tInbox('inbox.notif.untitledListing')
  switch (notification.kind) {
    case 'listing_approved': {
      const date = dateOf(data, 'paid_until', lang)
      return {
        title: tInbox('inbox.notif.listingApproved'),
        body: withNotes(
          date ? tInbox('inbox.notif.listingApprovedBody', { title, date }) : tInbox('inbox.notif.listingApprovedBodyNoDate', { title }),
          data,
        ),
      }
    }
    case 'listing_rejected':
      return { title: tInbox('inbox.notif.listingRejected'), body: withNotes(tInbox('inbox.notif.listingRejectedBody', { title }), data) }
    case 'listing_expiring': {
      const date = dateOf(data, 'paid_until', lang)
      return {
        title: tInbox('inbox.notif.listingExpiring'),
        body: date ? tInbox('inbox.notif.listingExpiringBody', { title, date }) : tInbox('inbox.notif.listingExpiringBodyNoDate', { title }),
      }
    }
    case 'kyc_approved':
      return { title: tInbox('inbox.notif.kycApproved'), body: withNotes(tInbox('inbox.notif.kycApprovedBody'), data) }
    case 'kyc_rejected':
      return { title: tInbox('inbox.notif.kycRejected'), body: withNotes(tInbox('inbox.notif.kycRejectedBody'), data) }
    case 'trade': {
      const status = text(data, 'status') ?? ''
      const total = Number(data.total_kes)
      const params = { amount: tradeAmount(data, lang), total: Number.isFinite(total) ? formatKES(total) : '?' }
      return {
        title: tInbox(tradeTitles[status] ?? 'inbox.notif.trade.other'),
        body: tInbox(tradeBodies[status] ?? 'inbox.notif.trade.otherBody', params),
      }
    }
    case 'message': {
      const name = text(data, 'sender_name') ?? tInbox('inbox.someone')
      const listing = text(data, 'listing_title') ?? tInbox('inbox.notif.untitledListing')
      const preview = text(data, 'preview') ?? ''
      return {
        title: tInbox('inbox.notif.message', { name }),
        body: preview ? tInbox('inbox.notif.messageBody', { listing, preview }) : listing,
      }
    }
    default:
      return { title: tInbox('inbox.notif.other'), body: '' }
  }
}
