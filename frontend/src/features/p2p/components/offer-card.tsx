import { BadgeCheckIcon, StarIcon, XIcon } from 'lucide-react'
import { useState } from 'react'

import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { toast } from '@/hooks/use-toast'
import { formatDate, formatNumber } from '@/lib/format'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import { useCancelOffer } from '../api/create-offer'
import type { BoardOffer } from '../api/get-board'
import { serverError } from '../api/server-error'
import { currencyLabel, formatKes2 } from './format'
import { TradeDialog } from './trade-dialog'

/** One offer on the board: owner, record, terms, and 'Your Offer' + cancel, or Buy Now / Sell Now. */
export function OfferCard({ offer, userId }: { offer: BoardOffer; userId: string }) {
  const { tP2p } = useP2pTranslation()
  const [trading, setTrading] = useState(false)
  const [cancelling, setCancelling] = useState(false)
  const cancel = useCancelOffer()
  const own = offer.user_id === userId
  const currency = currencyLabel(offer.currency)

  const confirmCancel = () =>
    cancel.mutateAsync(offer.id).then(
      () => {
        toast({ title: tP2p('p2p.cancel.done'), variant: 'success' })
        setCancelling(false)
      },
      (error: unknown) =>
        toast({ title: tP2p('p2p.cancel.failed'), description: serverError(error)?.message, variant: 'destructive' }),
    )

  return (
    <Card data-testid="offer-card" data-offer-id={offer.id} className="h-full">
      <CardHeader className="gap-2">
        <div className="flex items-center justify-between gap-2">
          <Badge variant={offer.action === 'sell' ? 'success' : 'secondary'}>
            {offer.action === 'sell' ? tP2p('p2p.card.selling', { currency }) : tP2p('p2p.card.buying', { currency })}
          </Badge>
          {own && <Badge variant="outline">{tP2p('p2p.card.yourOffer')}</Badge>}
        </div>
        <CardTitle className="flex items-center gap-2">
          <span>{offer.owner_name}</span>
          {offer.owner_kyc_verified ? (
            <BadgeCheckIcon className="size-4 text-success" aria-label={tP2p('p2p.card.kyc')} role="img" />
          ) : (
            <span className="sr-only">{tP2p('p2p.card.noKyc')}</span>
          )}
        </CardTitle>
        <p className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-muted-foreground" data-testid="owner-record">
          <span>{tP2p('p2p.card.trades', { count: offer.owner_completed_trades })}</span>
          {offer.owner_completion_rate != null && (
            <span>{tP2p('p2p.card.completion', { rate: Math.round(Number(offer.owner_completion_rate) * 100) })}</span>
          )}
          <span className="inline-flex items-center gap-1">
            <StarIcon className="size-3" aria-hidden="true" />
            {offer.owner_rating_avg != null
              ? tP2p('p2p.card.rating', { rating: Number(offer.owner_rating_avg).toFixed(1), count: offer.owner_rating_count })
              : tP2p('p2p.card.noRating')}
          </span>
        </p>
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
          <dt className="text-muted-foreground">{tP2p('p2p.card.rate')}</dt>
          <dd className="text-right text-base font-semibold">{tP2p('p2p.card.perUnit', { rate: formatKes2(offer.rate_per_unit) })}</dd>
          <dt className="text-muted-foreground">{tP2p('p2p.card.available')}</dt>
          <dd className="text-right">
            {formatNumber(offer.remaining_amount)} {currency}
          </dd>
          <dt className="text-muted-foreground">{tP2p('p2p.card.limits')}</dt>
          <dd className="text-right">{tP2p('p2p.card.limitsValue', { min: offer.min_limit, max: offer.max_limit })}</dd>
          <dt className="text-muted-foreground">{tP2p('p2p.card.methods')}</dt>
          <dd className="flex flex-wrap justify-end gap-1">
            {offer.payment_methods.map((m) => (
              <Badge key={m} variant="outline">
                {m}
              </Badge>
            ))}
          </dd>
        </dl>
        <p className="mt-3 text-xs text-muted-foreground">{tP2p('p2p.card.expires', { date: formatDate(offer.expires_at) })}</p>
      </CardContent>
      <CardFooter className="mt-auto">
        {own ? (
          <Button variant="outline" className="w-full" onClick={() => setCancelling(true)}>
            <XIcon aria-hidden="true" />
            {tP2p('p2p.card.cancelOffer')}
          </Button>
        ) : (
          <Button className="w-full" onClick={() => setTrading(true)}>
            {offer.action === 'sell' ? tP2p('p2p.card.buyNow') : tP2p('p2p.card.sellNow')}
          </Button>
        )}
      </CardFooter>
      {!own && <TradeDialog offer={offer} userId={userId} open={trading} onOpenChange={setTrading} />}
      <Dialog open={cancelling} onOpenChange={(o) => !cancel.isPending && setCancelling(o)}>
        <DialogContent>
          <DialogTitle>{tP2p('p2p.cancel.title')}</DialogTitle>
          <DialogDescription>
            {tP2p('p2p.cancel.body', { amount: formatNumber(offer.remaining_amount), currency })}
          </DialogDescription>
          <DialogFooter>
            <Button variant="outline" disabled={cancel.isPending} onClick={() => setCancelling(false)}>
              {tP2p('p2p.cancel.keep')}
            </Button>
            <Button variant="destructive" disabled={cancel.isPending} onClick={() => void confirmCancel()}>
              {tP2p('p2p.cancel.confirm')}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  )
}
