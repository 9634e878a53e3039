import { CoinsIcon, PowerIcon, PowerOffIcon, RefreshCwIcon, Trash2Icon } from 'lucide-react'
import { useState, type ReactNode } from 'react'

import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { formatDate } from '@/lib/format'
import { useMyListingsTranslation } from '@/lib/i18n/my-listings'
import type { ListingKind } from '@/lib/listing-fees'

import { listingPaymentState, type ListingPaymentState } from './owner-listing-status'
import { PublishListingPanel } from './publish-listing-panel'

/** What the owner's card needs to know about a listing's payment and moderation. */
export type ManagedListing = {
  id: string
  title: string
  payment_status: string
  is_active: boolean
  paid_until: string | null
  moderation_notes: string | null
}

type ManageListingProps = {
  kind: ListingKind
  listing: ManagedListing
  /** The fields the fee depends on (see PublishListingPanel). */
  fee: { type?: string | null; purpose?: string | null; price?: number | null }
  detailHref: string
  /** Whether Activate/Deactivate is offered (services always; others once paid). */
  toggle?: { onToggle(active: boolean): void; pending: boolean } | null
  /** Deletes the listing; the dialog stays open (buttons disabled) until it settles. */
  onDelete(): Promise<unknown>
  deleting: boolean
  /** More actions before Delete, e.g. Edit. */
  children?: ReactNode
}

/** The badge of each payment state. */
function StatusBadge({ state, paidUntil }: { state: ListingPaymentState; paidUntil: string | null }) {
  const { tMy } = useMyListingsTranslation()
  switch (state) {
    case 'pending':
      return <Badge variant="secondary">{tMy('my.status.pending')}</Badge>
    case 'live':
      return <Badge variant="success">{tMy('my.status.live', { date: formatDate(paidUntil!) })}</Badge>
    case 'paused':
      return <Badge variant="outline">{tMy('my.status.paused', { date: formatDate(paidUntil!) })}</Badge>
    case 'expired':
      return <Badge variant="outline">{tMy('my.status.expired')}</Badge>
    case 'rejected':
      return <Badge variant="destructive">{tMy('my.status.rejected')}</Badge>
    default:
      return <Badge variant="warning">{tMy('my.status.unpaid')}</Badge>
  }
}

/**
 * The owner's controls under a listing card on a My page: the payment and
 * moderation badge (unpaid, pending approval, active until <date>, rejected
 * with the admin's reason), Continue (a draft left at the pay step), Pay fee
 * or Renew through the listing-fee panel, Activate/Deactivate, and Delete
 * behind a confirmation dialog.
 */
export function ManageListing({ kind, listing, fee, detailHref, toggle, onDelete, deleting, children }: ManageListingProps) {
  const { tMy } = useMyListingsTranslation()
  const [payOpen, setPayOpen] = useState(false)
  const [confirmOpen, setConfirmOpen] = useState(false)
  const state = listingPaymentState(listing)
  const renews = state === 'live' || state === 'paused' || state === 'expired'
  const payable = renews || state === 'unpaid' || state === 'rejected'

  const confirmDelete = () => {
    void onDelete().then(
      () => setConfirmOpen(false),
      () => undefined,
    )
  }

  return (
    <div className="flex flex-col gap-3 border-t px-6 pt-4" role="group" aria-label={tMy('my.action.cardActions', { title: listing.title })}>
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge state={state} paidUntil={listing.paid_until} />
        {!listing.is_active && state !== 'paused' && <Badge variant="outline">{tMy('my.status.inactive')}</Badge>}
      </div>
      {state === 'rejected' && listing.moderation_notes?.trim() && (
        <p className="text-sm text-destructive">{tMy('my.status.rejectedReason', { reason: listing.moderation_notes.trim() })}</p>
      )}
      {state === 'unpaid' && <p className="text-sm text-muted-foreground">{tMy('my.status.unpaidHint')}</p>}
      <div className="flex flex-wrap gap-2">
        {payable && (
          <Button size="sm" variant={renews ? 'outline' : 'default'} onClick={() => setPayOpen(true)}>
            {renews ? <RefreshCwIcon aria-hidden="true" /> : <CoinsIcon aria-hidden="true" />}
            {renews ? tMy('my.action.renew') : state === 'unpaid' ? tMy('my.action.continue') : tMy('my.action.pay')}
          </Button>
        )}
        {toggle && (
          <Button size="sm" variant="outline" disabled={toggle.pending} onClick={() => toggle.onToggle(!listing.is_active)}>
            {listing.is_active ? <PowerOffIcon aria-hidden="true" /> : <PowerIcon aria-hidden="true" />}
            {listing.is_active ? tMy('my.action.deactivate') : tMy('my.action.activate')}
          </Button>
        )}
        {children}
        <Button size="sm" variant="destructive" onClick={() => setConfirmOpen(true)}>
          <Trash2Icon aria-hidden="true" />
          {tMy('my.action.delete')}
        </Button>
      </div>

      <Dialog open={payOpen} onOpenChange={setPayOpen}>
        <DialogContent closeLabel={tMy('my.pay.close')}>
          <DialogTitle>{tMy('my.pay.title', { title: listing.title })}</DialogTitle>
          <DialogDescription>{tMy('my.pay.description')}</DialogDescription>
          {payOpen && <PublishListingPanel kind={kind} listingId={listing.id} listing={fee} detailHref={detailHref} />}
        </DialogContent>
      </Dialog>

      <Dialog open={confirmOpen} onOpenChange={(open) => !deleting && setConfirmOpen(open)}>
        <DialogContent>
          <DialogTitle>{tMy('my.delete.title')}</DialogTitle>
          <DialogDescription>{tMy('my.delete.body', { title: listing.title })}</DialogDescription>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline" disabled={deleting}>
                {tMy('my.delete.cancel')}
              </Button>
            </DialogClose>
            <Button variant="destructive" disabled={deleting} onClick={confirmDelete}>
              {deleting ? tMy('my.delete.deleting') : tMy('my.delete.confirm')}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}
