import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import { useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldDescription, FieldError, FieldLabel } from '@/components/ui/field'
import { Input, NativeSelect, Textarea } from '@/components/ui/input'
import { p2pPaths } from '@/config/p2p'
import { toast } from '@/hooks/use-toast'
import { formatNumber } from '@/lib/format'
import { tP2p, useP2pTranslation } from '@/lib/i18n/p2p'

import { useBalance } from '../api/get-balance'
import type { BoardOffer } from '../api/get-board'
import { tradeSchema, useOpenTrade, type TradeInput } from '../api/open-trade'
import { serverError, type ServerError } from '../api/server-error'
import { currencyLabel, formatKes2, tradeTotal } from './format'

type Props = { offer: BoardOffer; userId: string; open: boolean; onOpenChange(open: boolean): void }

/** The trade dialog (spec §5): amount within the offer's limits, the KES total, the payment method; the server's refusals verbatim. */
export function TradeDialog({ offer, userId, open, onOpenChange }: Props) {
  const { tP2p } = useP2pTranslation()
  const currency = currencyLabel(offer.currency)
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={tP2p('p2p.create.cancel')}>
        <DialogTitle>
          {offer.action === 'sell'
            ? tP2p('p2p.trade.dialogBuy', { currency, owner: offer.owner_name })
            : tP2p('p2p.trade.dialogSell', { currency, owner: offer.owner_name })}
        </DialogTitle>
        <DialogDescription>{tP2p('p2p.trade.dialogDescription', { rate: formatKes2(offer.rate_per_unit) })}</DialogDescription>
        {open && <TradeForm offer={offer} userId={userId} onCancel={() => onOpenChange(false)} />}
      </DialogContent>
    </Dialog>
  )
}

function limitsMessage(offer: BoardOffer) {
  return tP2p('p2p.v.tradeAmount', { min: offer.min_limit, max: offer.max_limit })
}

export function TradeForm({ offer, userId, onCancel }: { offer: BoardOffer; userId: string; onCancel(): void }) {
  const { tP2p } = useP2pTranslation()
  const navigate = useNavigate()
  const open = useOpenTrade()
  const [failure, setFailure] = useState<ServerError | null>(null)
  // One key per dialog: a double submit opens one trade.
  const [idempotencyKey] = useState(() => crypto.randomUUID())
  const takerSells = offer.action === 'buy'
  const balance = useBalance(takerSells ? userId : undefined, offer.currency)
  const form = useForm<TradeInput>({
    resolver: zodResolver(tradeSchema({ min: offer.min_limit, max: offer.max_limit })),
    defaultValues: {
      amount: Math.min(offer.max_limit, Math.max(offer.min_limit, offer.remaining_amount)),
      payment_method: offer.payment_methods.length === 1 ? offer.payment_methods[0] : '',
      payment_instructions: '',
    },
  })
  const { register, handleSubmit, control, formState } = form
  const { errors } = formState
  const amount = useWatch({ control, name: 'amount' })

  const submit = handleSubmit(async (input) => {
    setFailure(null)
    try {
      const trade = await open.mutateAsync({ ...input, offerId: offer.id, expectedRate: offer.rate_per_unit, idempotencyKey })
      toast({ title: tP2p('p2p.trade.done'), variant: 'success' })
      if (trade) void navigate(p2pPaths.trade(trade.id))
    } catch (error) {
      const reason = serverError(error) ?? { message: tP2p('p2p.trade.failed') }
      setFailure(reason)
      toast({ title: tP2p('p2p.trade.failed'), description: reason.message, variant: 'destructive' })
    }
  })

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-4">
      <Field>
        <FieldLabel htmlFor="trade-amount">{tP2p('p2p.trade.amount', { min: offer.min_limit, max: offer.max_limit })}</FieldLabel>
        <Input
          id="trade-amount"
          type="number"
          inputMode="numeric"
          step="1"
          min={offer.min_limit}
          max={offer.max_limit}
          aria-invalid={Boolean(errors.amount)}
          {...register('amount', { valueAsNumber: true })}
        />
        {errors.amount && (
          <FieldError>{errors.amount.message === 'p2p.v.whole' ? tP2p('p2p.v.whole') : limitsMessage(offer)}</FieldError>
        )}
        <p className="text-lg font-semibold" aria-live="polite" data-testid="trade-total">
          {tP2p('p2p.trade.total', { total: formatKes2(Number.isFinite(amount) ? tradeTotal(amount, offer.rate_per_unit) : 0) })}
        </p>
      </Field>
      <Field>
        <FieldLabel htmlFor="trade-method">{tP2p('p2p.trade.method')}</FieldLabel>
        <NativeSelect id="trade-method" aria-invalid={Boolean(errors.payment_method)} {...register('payment_method')}>
          <option value="">—</option>
          {offer.payment_methods.map((method) => (
            <option key={method} value={method}>
              {method}
            </option>
          ))}
        </NativeSelect>
        <FieldError error={errors.payment_method} />
      </Field>
      {takerSells && (
        <>
          <p className="rounded-md bg-muted px-3 py-2 text-sm">
            {balance.isSuccess
              ? tP2p('p2p.trade.yourBalance', { currency: currencyLabel(offer.currency), balance: formatNumber(balance.data) })
              : '…'}
          </p>
          <Field>
            <FieldLabel htmlFor="trade-instructions">{tP2p('p2p.trade.instructions')}</FieldLabel>
            <Textarea id="trade-instructions" rows={2} aria-invalid={Boolean(errors.payment_instructions)} {...register('payment_instructions')} />
            <FieldDescription>{tP2p('p2p.trade.instructionsHint')}</FieldDescription>
            <FieldError error={errors.payment_instructions} />
          </Field>
        </>
      )}
      {failure && (
        <div role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm text-destructive">
          <p className="font-medium">{failure.message}</p>
          {failure.detail && <p>{failure.detail}</p>}
        </div>
      )}
      <DialogFooter>
        <Button type="button" variant="outline" onClick={onCancel}>
          {tP2p('p2p.create.cancel')}
        </Button>
        <Button type="submit" disabled={open.isPending}>
          {open.isPending ? tP2p('p2p.trade.submitting') : tP2p('p2p.trade.submit')}
        </Button>
      </DialogFooter>
    </form>
  )
}
