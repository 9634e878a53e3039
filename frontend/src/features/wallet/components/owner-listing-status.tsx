import { CircleCheckIcon, CirclePauseIcon, ClockIcon } from 'lucide-react'
import type { ReactNode } from 'react'

import { useAuth } from '@/lib/auth'
import { formatDate } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import type { ListingKind } from '@/lib/listing-fees'

import { PublishListingPanel } from './publish-listing-panel'

/** The payment columns every listing table has (sql/migrations/0010_listings.sql). */
export type OwnedListing = {
  id: string
  ownerId: string
  payment_status: string
  is_active: boolean
  paid_until: string | null
}

export type ListingPaymentState = 'unpaid' | 'pending' | 'rejected' | 'live' | 'paused' | 'expired'

/**
 * Where a listing stands with its fee: never paid, paid and awaiting admin
 * approval, refused (fee refunded), live, switched off by its owner during
 * a paid period, or past its paid period.
 */
export function listingPaymentState(listing: Omit<OwnedListing, 'id' | 'ownerId'>, now = Date.now()): ListingPaymentState {
  if (listing.payment_status === 'pending') return 'pending'
  if (listing.payment_status === 'rejected') return 'rejected'
  if (listing.payment_status !== 'paid') return 'unpaid'
  const paidPeriodRuns = listing.paid_until !== null && Date.parse(listing.paid_until) > now
  if (!paidPeriodRuns) return 'expired'
  return listing.is_active ? 'live' : 'paused'
}

function Notice({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <div role="status" className="mb-8 flex items-start gap-3 rounded-xl border bg-card p-4">
      {icon}
      <div>
        <h2 className="font-semibold">{title}</h2>
        <p className="text-sm text-muted-foreground">{children}</p>
      </div>
    </div>
  )
}

/**
 * Shown to a listing's owner on its detail page: whether it awaits
 * approval or is live, and the fee payment when it is not (yet) published,
 * was refused or has run out.
 */
export function OwnerListingStatus({
  kind,
  listing,
  fee,
  detailHref,
}: {
  kind: ListingKind
  listing: OwnedListing
  fee: { type?: string | null; purpose?: string | null; price?: number | null }
  detailHref: string
}) {
  const { t } = useTranslation()
  const { user } = useAuth()
  if (!user || user.id !== listing.ownerId) return null

  const state = listingPaymentState(listing)
  const iconClass = 'size-6 shrink-0 text-primary'
  switch (state) {
    case 'pending':
      return (
        <Notice icon={<ClockIcon className={iconClass} aria-hidden="true" />} title={t('publish.pendingTitle')}>
          {t('owner.pendingBody')}
        </Notice>
      )
    case 'live':
      return (
        <Notice icon={<CircleCheckIcon className={iconClass} aria-hidden="true" />} title={t('owner.liveTitle')}>
          {t('owner.liveUntil', { date: formatDate(listing.paid_until!) })}
        </Notice>
      )
    case 'paused':
      return (
        <Notice icon={<CirclePauseIcon className={iconClass} aria-hidden="true" />} title={t('owner.pausedTitle')}>
          {t('owner.pausedBody', { date: formatDate(listing.paid_until!) })}
        </Notice>
      )
    default:
      return (
        <div className="mb-8 flex flex-col gap-3">
          <p role={state === 'rejected' ? 'alert' : 'status'} className="text-sm">
            {t(state === 'rejected' ? 'owner.rejected' : state === 'expired' ? 'owner.expired' : 'owner.unpaid')}
          </p>
          <PublishListingPanel kind={kind} listingId={listing.id} listing={fee} detailHref={detailHref} />
        </div>
      )
  }
}
