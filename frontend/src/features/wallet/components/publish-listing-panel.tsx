import { CheckCircle2Icon, ClockIcon } from 'lucide-react'
import { useId, useRef, useState } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { formatNestcoins } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { isPriceAboveCap, listingCost, parseDays, perDayFee, type ListingKind } from '@/lib/listing-fees'

import { useNestcoinBalance } from '../api/get-balance'
import { useFeeRates } from '../api/get-fee-rates'
import { isInsufficientBalance, usePublishListing, type PublishListingResult } from '../api/publish-listing'
import { CostSummary, DaysField } from './cost-summary'
import { PackagesSheet } from './packages-sheet'

type PublishListingPanelProps = {
  kind: ListingKind
  listingId: string
  /** The fields the fee depends on: type (or category), purpose, price. */
  listing: { type?: string | null; purpose?: string | null; price?: number | null }
  /** Where 'View listing' leads once paid. */
  detailHref: string
}

/**
 * Step 2 of every listing form: the per-day Nestcoin fee, a days input, the
 * total against the wallet balance, and payment through publish_listing.
 * Properties and products then wait for admin approval; lands and services
 * go live at once.
 */
export function PublishListingPanel({ kind, listingId, listing, detailHref }: PublishListingPanelProps) {
  const { t } = useTranslation()
  const id = useId()
  const { user } = useAuth()
  const { rates } = useFeeRates()
  const balanceQuery = useNestcoinBalance(user?.id)
  const publish = usePublishListing()
  const idempotencyKey = useRef(crypto.randomUUID())
  const [daysText, setDaysText] = useState('1')
  const [sheetOpen, setSheetOpen] = useState(false)
  const [result, setResult] = useState<PublishListingResult | null>(null)
  const [failure, setFailure] = useState<string | null>(null)

  const perDay = perDayFee(rates, kind, listing)
  const days = parseDays(daysText)
  const balance = balanceQuery.data ?? 0
  const cost = perDay === null ? null : listingCost(perDay, days, balance)

  if (result) {
    const pending = result.payment_status === 'pending'
    return (
      <div role="status" className="flex flex-col items-start gap-3 rounded-xl border bg-card p-6">
        {pending ? <ClockIcon className="size-8 text-primary" aria-hidden="true" /> : <CheckCircle2Icon className="size-8 text-primary" aria-hidden="true" />}
        <h2 className="text-xl font-semibold">{pending ? t('publish.pendingTitle') : t('publish.liveTitle')}</h2>
        <p className="text-muted-foreground">
          {pending
            ? t(result.days === 1 ? 'publish.pendingBodyOne' : 'publish.pendingBody', { days: result.days })
            : t(result.days === 1 ? 'publish.liveBodyOne' : 'publish.liveBody', { days: result.days })}
        </p>
        <p className="text-sm">{t('publish.newBalance', { balance: formatNestcoins(result.balance) })}</p>
        <Button asChild variant="outline">
          <Link to={detailHref}>{t('publish.viewListing')}</Link>
        </Button>
      </div>
    )
  }

  const pay = () => {
    if (!cost) return
    setFailure(null)
    publish.mutate(
      { kind, listingId, days, idempotencyKey: idempotencyKey.current },
      {
        onSuccess: (data) => {
          setResult(data)
          toast({ title: t('publish.paid', { total: formatNestcoins(data.total) }), variant: 'success' })
        },
        onError: (error) => {
          if (isInsufficientBalance(error)) setSheetOpen(true)
          setFailure(error.message || t('publish.failed'))
        },
      },
    )
  }

  return (
    <section aria-labelledby={`${id}-title`} className="flex flex-col gap-4 rounded-xl border bg-card p-6">
      <h2 id={`${id}-title`} className="text-xl font-semibold">
        {t('publish.title')}
      </h2>
      <p className="text-sm text-muted-foreground">{kind === 'property' || kind === 'product' ? t('publish.reviewNote') : t('publish.liveNote')}</p>
      {perDay === null || !cost ? (
        <p role="alert" className="text-destructive">
          {isPriceAboveCap(kind, listing)
            ? t(kind === 'product' ? 'validation.marketPriceTooHigh' : 'validation.salePriceTooHigh')
            : t('publish.noRate')}
        </p>
      ) : (
        <>
          <DaysField value={daysText} onChange={setDaysText} help={t('publish.daysHelp')} />
          <CostSummary cost={cost} balance={balance} />
          {failure && (
            <p role="alert" className="text-sm text-destructive">
              {failure}
            </p>
          )}
          {cost.canAfford || !balanceQuery.isSuccess ? (
            <Button onClick={pay} disabled={publish.isPending || balanceQuery.isPending} className="self-start">
              {publish.isPending ? t('publish.paying') : t('publish.pay', { total: formatNestcoins(cost.total) })}
            </Button>
          ) : (
            <Button variant="destructive" onClick={() => setSheetOpen(true)} className="self-start">
              {t('pricing.purchase')}
            </Button>
          )}
        </>
      )}
      <PackagesSheet open={sheetOpen} onOpenChange={setSheetOpen} />
    </section>
  )
}
