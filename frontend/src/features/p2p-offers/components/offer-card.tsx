import { Trash2Icon } from 'lucide-react'
import { useState } from 'react'

import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { formatNestcoins } from '@/lib/format'
import { getLanguage, type Language } from '@/lib/i18n/i18n'
import { tWallet, useWalletTranslation } from '@/lib/i18n/wallet'
import { cn } from '@/lib/utils'

import { useOpenTradeCount, type MyOffer } from '../api/my-offers'

const locales: Record<Language, string> = { en: 'en-KE', sw: 'sw-KE' }

/** A rate in KES with its cents, e.g. "Ksh 1.95" (rates are numeric(12,2)). */
export function formatRate(value: number, lang: Language = getLanguage()): string {
  return new Intl.NumberFormat(locales[lang], { style: 'currency', currency: 'KES', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)
}

function formatDateTime(value: string, lang: Language = getLanguage()): string {
  return new Date(value).toLocaleString(locales[lang], { dateStyle: 'medium', timeStyle: 'short' })
}

const statusVariant = {
  active: 'success',
  paused: 'warning',
  filled: 'secondary',
  cancelled: 'outline',
  expired: 'outline',
} as const satisfies Record<MyOffer['status'], 'success' | 'warning' | 'secondary' | 'outline'>

/** "Sell 600 Nestcoins": how the card and its dialog name an offer. */
export function offerTitle(offer: MyOffer): string {
  return tWallet('myOffers.cardTitle', {
    action: tWallet(`myOffers.action.${offer.action}`),
    amount: formatNestcoins(offer.amount),
    currency: tWallet(`wallet.currency.${offer.currency}`),
  })
}

type OfferCardProps = {
  offer: MyOffer
  /** Deletes the offer; rejects with the server's error, which the dialog shows. */
  onDelete(): Promise<unknown>
  deleting: boolean
}

/**
 * The owner's card of one P2P offer (spec §2 /my-p2p-offers): action,
 * currency, amount and what remains, the rate per unit in KES, the limits
 * per trade, payment methods, status and expiry; Delete asks first (Cancel,
 * Delete; both disabled while deleting) and says how many trades are still
 * open on it.
 */
export function OfferCard({ offer, onDelete, deleting }: OfferCardProps) {
  const { tWallet: tw } = useWalletTranslation()
  const [confirmOpen, setConfirmOpen] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const openTrades = useOpenTradeCount(offer.id, confirmOpen)
  const title = offerTitle(offer)
  // Two offers may read alike ("Sell 100 Crystals"): their rate tells them apart.
  const label = tw('myOffers.cardLabel', { title, rate: formatRate(offer.rate_per_unit) })
  const expired = Date.parse(offer.expires_at) <= Date.now()
  const currency = tw(`wallet.currency.${offer.currency}`)

  const confirm = () => {
    setFailure(null)
    onDelete().then(
      () => setConfirmOpen(false),
      (error: unknown) => setFailure(error instanceof Error && error.message ? error.message : tw('myOffers.deleteFailed')),
    )
  }

  return (
    <article
      aria-label={label}
      className={cn('flex h-full flex-col gap-4 rounded-xl border bg-card p-5 shadow-sm', offer.status !== 'active' && 'opacity-80')}
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div className="flex flex-col gap-1">
          <div className="flex flex-wrap items-center gap-2">
            <Badge variant={offer.action === 'sell' ? 'default' : 'secondary'}>{tw(`myOffers.action.${offer.action}`)}</Badge>
            <Badge variant={statusVariant[offer.status]}>{tw(`myOffers.status.${offer.status}`)}</Badge>
          </div>
          <h2 className="text-lg font-semibold">
            {title}
          </h2>
        </div>
        <span className="text-xs font-medium text-muted-foreground">{tw('myOffers.yourOffer')}</span>
      </header>

      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
        <dt className="text-muted-foreground">{tw('myOffers.amount')}</dt>
        <dd className="text-right font-medium tabular-nums">
          {formatNestcoins(offer.amount)} {currency}
        </dd>
        <dt className="text-muted-foreground">{tw('myOffers.remaining')}</dt>
        <dd className="text-right font-medium tabular-nums">{formatNestcoins(offer.remaining_amount)}</dd>
        <dt className="text-muted-foreground">{tw('myOffers.rate')}</dt>
        <dd className="text-right font-medium tabular-nums">{formatRate(offer.rate_per_unit)}</dd>
        <dt className="text-muted-foreground">{tw('myOffers.limits')}</dt>
        <dd className="text-right font-medium tabular-nums">
          {tw('myOffers.limitsValue', { min: formatNestcoins(offer.min_limit), max: formatNestcoins(offer.max_limit) })}
        </dd>
        <dt className="text-muted-foreground">{tw('myOffers.methods')}</dt>
        <dd className="flex flex-wrap justify-end gap-1">
          {offer.payment_methods.map((method) => (
            <Badge key={method} variant="outline">
              {method}
            </Badge>
          ))}
        </dd>
      </dl>

      <p className="text-sm text-muted-foreground">
        <time dateTime={offer.expires_at}>
          {tw(expired ? 'myOffers.expiredOn' : 'myOffers.expires', { date: formatDateTime(offer.expires_at) })}
        </time>
        {' · '}
        <time dateTime={offer.created_at}>{tw('myOffers.created', { date: formatDateTime(offer.created_at) })}</time>
      </p>

      <div role="group" aria-label={tw('myOffers.cardActions', { title: label })} className="mt-auto flex flex-wrap gap-2 border-t pt-4">
        <Button
          size="sm"
          variant="destructive"
          onClick={() => {
            setFailure(null)
            setConfirmOpen(true)
          }}
        >
          <Trash2Icon aria-hidden="true" />
          {tw('myOffers.delete')}
        </Button>
      </div>

      <Dialog open={confirmOpen} onOpenChange={(open) => !deleting && setConfirmOpen(open)}>
        <DialogContent>
          <DialogTitle>{tw('myOffers.deleteTitle')}</DialogTitle>
          <DialogDescription>
            {tw(offer.action === 'buy' ? 'myOffers.deleteBodyBuy' : 'myOffers.deleteBodySell', { amount: formatNestcoins(offer.amount), currency })}
          </DialogDescription>
          {openTrades.data ? (
            <p role="status" className="text-sm">
              {openTrades.data === 1 ? tw('myOffers.openTradesOne') : tw('myOffers.openTrades', { count: openTrades.data })}
            </p>
          ) : null}
          {failure && (
            <p role="alert" className="text-sm text-destructive">
              {failure}
            </p>
          )}
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline" disabled={deleting}>
                {tw('myOffers.cancel')}
              </Button>
            </DialogClose>
            <Button variant="destructive" disabled={deleting} onClick={confirm}>
              {deleting ? tw('myOffers.deleting') : tw('myOffers.confirm')}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </article>
  )
}
