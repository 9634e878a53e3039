import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldDescription, FieldError, FieldLabel } from '@/components/ui/field'
import { Input, NativeSelect } from '@/components/ui/input'
import { AUTO_CANCEL_DURATIONS, OFFER_DEFAULTS, P2P_ACTIONS, P2P_CURRENCIES, PAYMENT_METHODS } from '@/config/p2p'
import { toast } from '@/hooks/use-toast'
import { formatNumber } from '@/lib/format'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import { createOfferSchema, useCreateOffer, type CreateOfferInput } from '../api/create-offer'
import { useBalance } from '../api/get-balance'
import { serverError } from '../api/server-error'
import { currencyLabel, formatKes2, tradeTotal } from './format'

type Props = { userId: string; open: boolean; onOpenChange(open: boolean): void }

/** 'Create New P2P Offer' (spec §2, §5, §9): the form, its rules and defaults, and the balance backing a sell offer. */
export function CreateOfferDialog({ userId, open, onOpenChange }: Props) {
  const { tP2p } = useP2pTranslation()
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={tP2p('p2p.create.cancel')}>
        <DialogTitle>{tP2p('p2p.create.title')}</DialogTitle>
        <DialogDescription>{tP2p('p2p.create.description')}</DialogDescription>
        {open && <CreateOfferForm userId={userId} onDone={() => onOpenChange(false)} />}
      </DialogContent>
    </Dialog>
  )
}

export function CreateOfferForm({ userId, onDone }: { userId: string; onDone(): void }) {
  const { tP2p } = useP2pTranslation()
  const create = useCreateOffer(userId)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<CreateOfferInput>({
    resolver: zodResolver(createOfferSchema),
    defaultValues: { ...OFFER_DEFAULTS, payment_methods: [] },
  })
  const { register, handleSubmit, control, formState } = form
  const { errors } = formState
  const [action, currency, amount, rate] = useWatch({ control, name: ['action', 'currency', 'amount', 'rate_per_unit'] })
  const balance = useBalance(userId, currency)

  const submit = handleSubmit(async (input) => {
    setFailure(null)
    try {
      await create.mutateAsync(input)
      toast({ title: tP2p('p2p.create.done'), variant: 'success' })
      onDone()
    } catch (error) {
      const reason = serverError(error)
      setFailure(reason?.message ?? tP2p('p2p.create.failed'))
      toast({ title: tP2p('p2p.create.failed'), description: reason?.message, variant: 'destructive' })
    }
  })

  const numberField = (name: 'amount' | 'rate_per_unit' | 'min_limit' | 'max_limit', label: string, step: string) => (
    <Field>
      <FieldLabel htmlFor={`offer-${name}`}>{label}</FieldLabel>
      <Input
        id={`offer-${name}`}
        type="number"
        inputMode="decimal"
        step={step}
        aria-invalid={Boolean(errors[name])}
        {...register(name, { valueAsNumber: true })}
      />
      <FieldError error={errors[name]} />
    </Field>
  )

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field>
          <FieldLabel htmlFor="offer-action">{tP2p('p2p.create.action')}</FieldLabel>
          <NativeSelect id="offer-action" {...register('action')}>
            {P2P_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {tP2p(`p2p.action.${a}`)}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Field>
          <FieldLabel htmlFor="offer-currency">{tP2p('p2p.create.currency')}</FieldLabel>
          <NativeSelect id="offer-currency" {...register('currency')}>
            {P2P_CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {currencyLabel(c)}
              </option>
            ))}
          </NativeSelect>
        </Field>
        {numberField('amount', tP2p('p2p.create.amount'), '1')}
        {numberField('rate_per_unit', tP2p('p2p.create.rate'), '0.01')}
        {numberField('min_limit', tP2p('p2p.create.minLimit'), '1')}
        {numberField('max_limit', tP2p('p2p.create.maxLimit'), '1')}
      </div>
      {action === 'sell' && (
        <p className="rounded-md bg-muted px-3 py-2 text-sm" data-testid="offer-balance">
          {balance.isSuccess
            ? tP2p('p2p.create.balance', { currency: currencyLabel(currency), balance: formatNumber(balance.data) })
            : '…'}
          {balance.isSuccess && Number.isFinite(amount) && amount > balance.data && (
            <span className="mt-1 block text-warning-foreground">{tP2p('p2p.create.balanceShort')}</span>
          )}
        </p>
      )}
      {Number.isFinite(amount) && Number.isFinite(rate) && (
        <p className="text-sm text-muted-foreground">{tP2p('p2p.create.total', { total: formatKes2(tradeTotal(amount, rate)) })}</p>
      )}
      <fieldset className="flex flex-col gap-2" aria-invalid={Boolean(errors.payment_methods)}>
        <legend className="mb-2 text-sm font-medium">{tP2p('p2p.create.methods')}</legend>
        <div className="grid grid-cols-2 gap-2">
          {PAYMENT_METHODS.map((method) => (
            <label key={method} className="flex items-center gap-2 text-sm">
              <input type="checkbox" value={method} className="size-4 accent-primary" {...register('payment_methods')} />
              {method}
            </label>
          ))}
        </div>
        <FieldError error={errors.payment_methods} />
      </fieldset>
      <Field>
        <FieldLabel htmlFor="offer-auto-cancel">{tP2p('p2p.create.autoCancel')}</FieldLabel>
        <NativeSelect id="offer-auto-cancel" {...register('auto_cancel_duration')}>
          {AUTO_CANCEL_DURATIONS.map((d) => (
            <option key={d.value} value={d.value}>
              {tP2p(d.label)}
            </option>
          ))}
        </NativeSelect>
        <FieldDescription className="sr-only">{tP2p('p2p.create.autoCancel')}</FieldDescription>
      </Field>
      {failure && (
        <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm text-destructive">
          {failure}
        </p>
      )}
      <DialogFooter>
        <Button type="button" variant="outline" onClick={onDone}>
          {tP2p('p2p.create.cancel')}
        </Button>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? tP2p('p2p.create.submitting') : tP2p('p2p.create.submit')}
        </Button>
      </DialogFooter>
    </form>
  )
}
