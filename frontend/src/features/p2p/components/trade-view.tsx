import { zodResolver } from '@hookform/resolvers/zod'
import { ArrowLeftIcon, BadgeCheckIcon } from 'lucide-react'
import { useState, type ReactNode } from 'react'
import { useForm } from 'react-hook-form'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Input, Textarea } from '@/components/ui/input'
import { p2pPaths } from '@/config/p2p'
import { toast } from '@/hooks/use-toast'
import { formatNumber } from '@/lib/format'
import type { P2pKey } from '@/lib/i18n/en-p2p'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import { useTrade, useTradeEvents, useTradeRatings, useTrader, type Trade, type Trader } from '../api/get-trade'
import { useTradeRealtime } from '../api/realtime'
import { serverError, type ServerError } from '../api/server-error'
import { disputeSchema, instructionsSchema, paidSchema, useTradeAction, type TradeAction } from '../api/trade-actions'
import { Countdown } from './countdown'
import { currencyLabel, formatKes2 } from './format'
import { RatingForm } from './rating-form'
import { TradeChat } from './trade-chat'
import { TradeTimeline } from './trade-timeline'

const statusVariant: Record<Trade['status'], 'default' | 'secondary' | 'success' | 'warning' | 'destructive' | 'outline'> = {
  escrow_locked: 'warning',
  paid: 'default',
  completed: 'success',
  cancelled: 'secondary',
  expired: 'secondary',
  disputed: 'destructive',
  resolved: 'outline',
}

/** Runs a trade action, showing the server's refusal verbatim (inline and as a toast). */
function useActionRunner(tradeId: string) {
  const { tP2p } = useP2pTranslation()
  const mutation = useTradeAction(tradeId)
  const [failure, setFailure] = useState<ServerError | null>(null)
  const run = async (action: TradeAction, done: P2pKey) => {
    setFailure(null)
    try {
      await mutation.mutateAsync(action)
      toast({ title: tP2p(done), variant: 'success' })
      return true
    } catch (error) {
      const reason = serverError(error) ?? { message: tP2p('p2p.action.failed') }
      setFailure(reason)
      toast({ title: tP2p('p2p.action.failed'), description: reason.message, variant: 'destructive' })
      return false
    }
  }
  return { run, failure, pending: mutation.isPending }
}

function Failure({ failure }: { failure: ServerError | null }) {
  if (!failure) return null
  return (
    <div role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm text-destructive">
      <p className="font-medium">{failure.message}</p>
      {failure.detail && <p>{failure.detail}</p>}
    </div>
  )
}

function PaidForm({ onPaid, pending }: { onPaid(code: string): Promise<boolean>; pending: boolean }) {
  const { tP2p } = useP2pTranslation()
  const form = useForm<{ code: string }>({ resolver: zodResolver(paidSchema), defaultValues: { code: '' } })
  const submit = form.handleSubmit(async ({ code }) => {
    if (await onPaid(code)) form.reset()
  })
  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-start">
      <Field className="flex-1">
        <FieldLabel htmlFor="mpesa-code">{tP2p('p2p.paid.code')}</FieldLabel>
        <Input
          id="mpesa-code"
          autoComplete="off"
          autoCapitalize="characters"
          placeholder="SGK3H8PQ2X"
          maxLength={12}
          aria-invalid={Boolean(form.formState.errors.code)}
          {...form.register('code')}
        />
        <FieldError error={form.formState.errors.code} />
      </Field>
      <Button type="submit" className="sm:mt-6" disabled={pending}>
        {pending ? tP2p('p2p.paid.submitting') : tP2p('p2p.paid.submit')}
      </Button>
    </form>
  )
}

function InstructionsForm({ initial, onSave, pending }: { initial: string; onSave(text: string): Promise<boolean>; pending: boolean }) {
  const { tP2p } = useP2pTranslation()
  const form = useForm<{ instructions: string }>({ resolver: zodResolver(instructionsSchema), defaultValues: { instructions: initial } })
  const submit = form.handleSubmit(({ instructions }) => onSave(instructions).then(() => undefined))
  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-2">
      <Field>
        <FieldLabel htmlFor="trade-instructions-edit">{tP2p('p2p.trade.instructions')}</FieldLabel>
        <Textarea id="trade-instructions-edit" rows={2} aria-invalid={Boolean(form.formState.errors.instructions)} {...form.register('instructions')} />
        <FieldError error={form.formState.errors.instructions} />
      </Field>
      <Button type="submit" variant="outline" className="self-start" disabled={pending}>
        {tP2p('p2p.instructions.save')}
      </Button>
    </form>
  )
}

/** A button that asks first: title, body, and a confirm button naming what happens. */
function ConfirmAction(props: {
  label: string
  title: string
  body: string
  confirm: string
  keep?: string
  destructive?: boolean
  pending: boolean
  onConfirm(): Promise<boolean>
}) {
  const { tP2p } = useP2pTranslation()
  const [open, setOpen] = useState(false)
  return (
    <>
      <Button variant={props.destructive ? 'outline' : 'default'} onClick={() => setOpen(true)}>
        {props.label}
      </Button>
      <Dialog open={open} onOpenChange={(o) => !props.pending && setOpen(o)}>
        <DialogContent>
          <DialogTitle>{props.title}</DialogTitle>
          <DialogDescription>{props.body}</DialogDescription>
          <DialogFooter>
            <Button variant="outline" disabled={props.pending} onClick={() => setOpen(false)}>
              {props.keep ?? tP2p('p2p.action.back')}
            </Button>
            <Button
              variant={props.destructive ? 'destructive' : 'default'}
              disabled={props.pending}
              onClick={() => void props.onConfirm().then(() => setOpen(false))}
            >
              {props.confirm}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  )
}

function DisputeAction({ pending, onDispute }: { pending: boolean; onDispute(reason: string): Promise<boolean> }) {
  const { tP2p } = useP2pTranslation()
  const [open, setOpen] = useState(false)
  const form = useForm<{ reason: string }>({ resolver: zodResolver(disputeSchema), defaultValues: { reason: '' } })
  const submit = form.handleSubmit(async ({ reason }) => {
    await onDispute(reason)
    setOpen(false)
  })
  return (
    <>
      <Button variant="outline" onClick={() => setOpen(true)}>
        {tP2p('p2p.dispute.button')}
      </Button>
      <Dialog open={open} onOpenChange={(o) => !pending && setOpen(o)}>
        <DialogContent>
          <DialogTitle>{tP2p('p2p.dispute.title')}</DialogTitle>
          <DialogDescription>{tP2p('p2p.dispute.body')}</DialogDescription>
          <form noValidate onSubmit={submit} className="flex flex-col gap-3">
            <Field>
              <FieldLabel htmlFor="dispute-reason">{tP2p('p2p.dispute.reason')}</FieldLabel>
              <Textarea id="dispute-reason" rows={3} aria-invalid={Boolean(form.formState.errors.reason)} {...form.register('reason')} />
              <FieldError error={form.formState.errors.reason} />
            </Field>
            <DialogFooter>
              <Button type="button" variant="outline" disabled={pending} onClick={() => setOpen(false)}>
                {tP2p('p2p.action.back')}
              </Button>
              <Button type="submit" variant="destructive" disabled={pending}>
                {tP2p('p2p.dispute.confirm')}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </>
  )
}

function TraderLine({ trader }: { trader: Trader | undefined }) {
  const { tP2p } = useP2pTranslation()
  if (!trader) return <span>…</span>
  return (
    <span className="flex flex-wrap items-center gap-x-2">
      <span className="font-medium" data-testid="counterparty-name">
        {trader.full_name ?? 'User'}
      </span>
      {trader.kyc_verified && <BadgeCheckIcon className="size-4 text-success" role="img" aria-label={tP2p('p2p.card.kyc')} />}
      <span className="text-xs text-muted-foreground">
        {tP2p('p2p.card.trades', { count: trader.completed_trades })}
        {trader.completion_rate != null && ` · ${tP2p('p2p.card.completion', { rate: Math.round(trader.completion_rate * 100) })}`}
        {trader.rating_avg != null && ` · ${tP2p('p2p.card.rating', { rating: trader.rating_avg.toFixed(1), count: trader.rating_count })}`}
      </span>
    </span>
  )
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="sm:text-right">{children}</dd>
    </>
  )
}

/** The state panel: what this party should do now, with the deadline and the allowed actions. */
function TradeState({ trade, userId, counterpartyName }: { trade: Trade; userId: string; counterpartyName: string }) {
  const { tP2p } = useP2pTranslation()
  const { run, failure, pending } = useActionRunner(trade.id)
  const buyer = trade.buyer_id === userId
  const total = formatKes2(trade.total_kes)
  const amount = formatNumber(trade.amount)
  const currency = currencyLabel(trade.currency)
  const method = trade.payment_method ?? 'M-Pesa'
  let body: ReactNode
  switch (trade.status) {
    case 'escrow_locked':
      body = buyer ? (
        <>
          <p>{tP2p('p2p.page.buyerPay', { total, method })}</p>
          <Countdown label={tP2p('p2p.page.payWithin')} deadline={trade.payment_deadline} />
          <PaidForm pending={pending} onPaid={(code) => run({ kind: 'paid', code }, 'p2p.paid.done')} />
          <div>
            <ConfirmAction
              label={tP2p('p2p.cancelTrade.button')}
              title={tP2p('p2p.cancelTrade.title')}
              body={tP2p('p2p.cancelTrade.body')}
              confirm={tP2p('p2p.cancelTrade.confirm')}
              keep={tP2p('p2p.cancelTrade.keep')}
              destructive
              pending={pending}
              onConfirm={() => run({ kind: 'cancel' }, 'p2p.cancelTrade.done')}
            />
          </div>
        </>
      ) : (
        <>
          <p>{tP2p('p2p.page.sellerWait', { total })}</p>
          <Countdown label={tP2p('p2p.page.payWithin')} deadline={trade.payment_deadline} />
          <InstructionsForm
            initial={trade.payment_instructions ?? ''}
            pending={pending}
            onSave={(instructions) => run({ kind: 'instructions', instructions }, 'p2p.instructions.saved')}
          />
        </>
      )
      break
    case 'paid':
      body = (
        <>
          <p>{buyer ? tP2p('p2p.page.buyerWait') : tP2p('p2p.page.sellerCheck', { total, reference: trade.payment_reference ?? '' })}</p>
          {trade.release_deadline && <Countdown label={tP2p('p2p.page.releaseWithin')} deadline={trade.release_deadline} />}
          <div className="flex flex-wrap gap-2">
            {!buyer && (
              <ConfirmAction
                label={tP2p('p2p.release.button')}
                title={tP2p('p2p.release.title', { amount, currency })}
                body={tP2p('p2p.release.body', { amount, currency, name: counterpartyName, total })}
                confirm={tP2p('p2p.release.confirm', { amount, currency })}
                pending={pending}
                onConfirm={() => run({ kind: 'release' }, 'p2p.release.done')}
              />
            )}
            <DisputeAction pending={pending} onDispute={(reason) => run({ kind: 'dispute', reason }, 'p2p.dispute.done')} />
          </div>
        </>
      )
      break
    case 'completed':
      body = <p>{buyer ? tP2p('p2p.page.completedBuyer') : tP2p('p2p.page.completedSeller')}</p>
      break
    case 'cancelled':
      body = <p>{tP2p('p2p.page.cancelled')}</p>
      break
    case 'expired':
      body = <p>{tP2p('p2p.page.expired')}</p>
      break
    case 'disputed':
      body = (
        <>
          <p>{tP2p('p2p.page.disputed')}</p>
          {trade.dispute_reason && <p className="text-sm text-muted-foreground">{tP2p('p2p.page.disputeReason', { reason: trade.dispute_reason })}</p>}
        </>
      )
      break
    case 'resolved':
      body = (
        <>
          <p>{trade.resolution === 'buyer' ? tP2p('p2p.page.resolvedBuyer') : tP2p('p2p.page.resolvedSeller')}</p>
          {trade.resolution_notes && (
            <p className="text-sm text-muted-foreground">{tP2p('p2p.page.resolutionNotes', { notes: trade.resolution_notes })}</p>
          )}
        </>
      )
      break
  }
  return (
    <section aria-label={tP2p(`p2p.status.${trade.status}`)} data-testid="trade-state" className="flex flex-col gap-3 rounded-lg border p-4">
      {body}
      <Failure failure={failure} />
    </section>
  )
}

/** /p2p/trades/:id for either party: the terms, the live state with its deadline and actions, the timeline, the chat and the rating. */
export function TradeView({ tradeId, userId }: { tradeId: string; userId: string }) {
  const { tP2p } = useP2pTranslation()
  const trade = useTrade(tradeId)
  const events = useTradeEvents(tradeId)
  useTradeRealtime(tradeId)
  const t = trade.data
  const otherId = t ? (t.buyer_id === userId ? t.seller_id : t.buyer_id) : undefined
  const trader = useTrader(otherId)
  const ratings = useTradeRatings(tradeId, t?.status === 'completed')

  if (trade.isPending) return <ListLoading label={tP2p('p2p.page.loading')} />
  if (trade.isError) return <ListError message={tP2p('p2p.page.loadFailed')} onRetry={() => void trade.refetch()} />
  if (!t || !otherId) {
    return (
      <ListEmpty title={tP2p('p2p.page.notFound')} hint={tP2p('p2p.page.notFoundHint')}>
        <Button asChild variant="outline" className="mt-2">
          <Link to={p2pPaths.trades}>{tP2p('p2p.page.back')}</Link>
        </Button>
      </ListEmpty>
    )
  }
  const buyer = t.buyer_id === userId
  const otherName = trader.data?.full_name ?? 'User'
  const names = { [otherId]: otherName }
  const currency = currencyLabel(t.currency)
  const mine = ratings.data?.find((r) => r.rater_id === userId)
  const theirs = ratings.data?.find((r) => r.rater_id === otherId)

  return (
    <div className="flex flex-col gap-6">
      <header className="flex flex-col gap-2">
        <Link to={p2pPaths.trades} className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:underline">
          <ArrowLeftIcon className="size-4" aria-hidden="true" />
          {tP2p('p2p.page.back')}
        </Link>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-bold tracking-tight">
            {buyer
              ? tP2p('p2p.page.youBuy', { amount: formatNumber(t.amount), currency })
              : tP2p('p2p.page.youSell', { amount: formatNumber(t.amount), currency })}
          </h1>
          <Badge variant={statusVariant[t.status]} data-testid="trade-status">
            {tP2p(`p2p.status.${t.status}`)}
          </Badge>
        </div>
      </header>
      <div className="grid items-start gap-6 lg:grid-cols-2">
        <div className="flex flex-col gap-6">
          <dl className="grid gap-x-4 gap-y-2 rounded-lg border p-4 text-sm sm:grid-cols-2">
            <Row label={tP2p('p2p.page.counterparty')}>
              <TraderLine trader={trader.data} />
            </Row>
            <Row label={tP2p('p2p.page.amount')}>
              {formatNumber(t.amount)} {currency}
            </Row>
            <Row label={tP2p('p2p.page.rate')}>{formatKes2(t.rate_per_unit)}</Row>
            <Row label={tP2p('p2p.page.total')}>
              <span className="font-semibold">{formatKes2(t.total_kes)}</span>
            </Row>
            <Row label={tP2p('p2p.page.method')}>{t.payment_method ?? '—'}</Row>
            <Row label={tP2p('p2p.page.instructions')}>
              <span data-testid="payment-instructions" className="whitespace-pre-wrap">
                {t.payment_instructions ?? (buyer ? tP2p('p2p.page.noInstructions') : '—')}
              </span>
            </Row>
            {t.payment_reference && <Row label={tP2p('p2p.page.reference')}>{t.payment_reference}</Row>}
          </dl>
          <TradeState trade={t} userId={userId} counterpartyName={otherName} />
          {t.status === 'completed' && ratings.isSuccess && (
            <>
              {mine ? (
                <p className="text-sm" data-testid="my-rating">
                  {tP2p('p2p.rating.yours', { name: otherName, stars: mine.stars })}
                </p>
              ) : (
                <RatingForm tradeId={t.id} name={otherName} />
              )}
              {theirs && <p className="text-sm">{tP2p('p2p.rating.theirs', { name: otherName, stars: theirs.stars })}</p>}
            </>
          )}
          {events.data && <TradeTimeline events={events.data} userId={userId} names={names} />}
        </div>
        <TradeChat tradeId={t.id} userId={userId} names={names} />
      </div>
    </div>
  )
}
