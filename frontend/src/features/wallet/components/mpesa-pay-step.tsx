import { zodResolver } from '@hookform/resolvers/zod'
import { ArrowLeftIcon, CircleAlertIcon, CircleCheckIcon, CircleXIcon, HourglassIcon, LogInIcon, SmartphoneIcon } from 'lucide-react'
import { useEffect, useId, useState, type ReactNode } from 'react'
import { FormProvider, useForm, useWatch } from 'react-hook-form'
import { Link, useLocation } from 'react-router'

import { InputField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { paths, type LoginRedirectState } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { formatKES, formatNestcoins } from '@/lib/format'
import { useWalletTranslation } from '@/lib/i18n/wallet'

import { formatMpesaPhone, mpesaPhoneSchema, normalizeMpesaPhone, type MpesaPhoneInput } from '../api/buy-nestcoins'
import { useNestcoinBalance } from '../api/get-balance'
import type { NestcoinPackage } from '../api/get-packages'
import { useBuyerPhone, useMpesaCheckout, type FailureCode, type Purchase } from '../api/mpesa-checkout'

/** How long "Check your phone" counts down: M-Pesa's prompt lapses after about a minute. */
export const PAY_WAIT_SECONDS = 90

const failureCodes: readonly FailureCode[] = [
  'cancelled', 'timeout', 'insufficient_funds', 'wrong_pin', 'busy', 'declined', 'push_failed', 'expired', 'amount_mismatch',
]

const isPackageId = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)

function secondsUntil(deadline: number | null): number {
  return deadline === null ? 0 : Math.max(0, Math.ceil((deadline - Date.now()) / 1000))
}

/** Seconds left until `deadline` (ms), ticking once a second. */
function useSecondsLeft(deadline: number | null): number {
  const [seconds, setSeconds] = useState(() => secondsUntil(deadline))
  useEffect(() => {
    setSeconds(secondsUntil(deadline))
    if (deadline === null) return
    const timer = setInterval(() => {
      const next = secondsUntil(deadline)
      setSeconds(next)
      if (next === 0) clearInterval(timer)
    }, 1000)
    return () => clearInterval(timer)
  }, [deadline])
  return seconds
}

function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

/** The frame every state of the pay step shares: a titled region with a state attribute for tests. */
function Step({ state, title, icon, children }: { state: string; title: string; icon: ReactNode; children: ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} data-state={state} className="flex flex-col gap-4 rounded-lg border p-4">
      <h3 id={id} className="flex items-center gap-2 text-lg font-semibold">
        {icon}
        {title}
      </h3>
      {children}
    </section>
  )
}

/** Package, Nestcoins and the price in KES. */
function OrderSummary({ pack }: { pack: NestcoinPackage }) {
  const { tWallet } = useWalletTranslation()
  const rows: [string, string][] = [
    [tWallet('wallet.pay.package'), pack.name],
    [tWallet('wallet.pay.coins'), formatNestcoins(pack.coins)],
    [tWallet('wallet.pay.amount'), formatKES(pack.price)],
  ]
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-muted-foreground">{term}</dt>
          <dd className="font-medium tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  )
}

function SignedOutStep({ pack, onBack }: { pack: NestcoinPackage; onBack(): void }) {
  const { tWallet } = useWalletTranslation()
  const location = useLocation()
  const state: LoginRedirectState = { from: `${location.pathname}${location.search}` }
  return (
    <Step state="signed-out" title={tWallet('wallet.pay.signInTitle')} icon={<LogInIcon className="size-5 text-primary" aria-hidden="true" />}>
      <p className="text-sm text-muted-foreground">
        {tWallet('wallet.pay.signInBody', { name: pack.name, coins: formatNestcoins(pack.coins), price: formatKES(pack.price) })}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" onClick={onBack}>
          <ArrowLeftIcon aria-hidden="true" />
          {tWallet('wallet.pay.back')}
        </Button>
        <Button asChild>
          <Link to={paths.login} state={state}>
            {tWallet('wallet.pay.signIn')}
          </Link>
        </Button>
      </div>
    </Step>
  )
}

/** The message for a failed purchase's failure_code, in the current language. */
function failureMessage(tWallet: ReturnType<typeof useWalletTranslation>['tWallet'], code: Purchase['failure_code']): string {
  return code && failureCodes.includes(code) ? tWallet(`wallet.pay.failed.${code}`) : tWallet('wallet.pay.failed.unknown')
}

function PaidStep({ purchase, userId, onDone, onMore }: { purchase: Purchase; userId: string; onDone(): void; onMore(): void }) {
  const { tWallet } = useWalletTranslation()
  const balance = useNestcoinBalance(userId)
  // An STK query confirms without a receipt: the CheckoutRequestID stands in until the callback brings one.
  const receipt = purchase.payment_reference && purchase.payment_reference !== purchase.checkout_request_id ? purchase.payment_reference : null
  return (
    <Step state="paid" title={tWallet('wallet.pay.paidTitle')} icon={<CircleCheckIcon className="size-5 text-primary" aria-hidden="true" />}>
      <p role="status" className="font-medium">
        {tWallet('wallet.pay.paidBody', { coins: formatNestcoins(purchase.coins) })}
      </p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-muted-foreground">{tWallet('wallet.pay.receipt')}</dt>
        <dd className="font-mono font-medium">{receipt ?? tWallet('wallet.pay.receiptToFollow')}</dd>
        <dt className="text-muted-foreground">{tWallet('wallet.pay.paidAmount')}</dt>
        <dd className="font-medium tabular-nums">{formatKES(purchase.amount_kes)}</dd>
        <dt className="text-muted-foreground">{tWallet('wallet.pay.newBalance')}</dt>
        <dd className="font-medium tabular-nums" data-testid="purchase-new-balance">
          {balance.isFetching || balance.data === undefined
            ? tWallet('wallet.pay.balanceUpdating')
            : `${formatNestcoins(balance.data)} ${tWallet('wallet.pay.coins')}`}
        </dd>
      </dl>
      <div className="flex flex-wrap gap-2">
        <Button onClick={onDone}>{tWallet('wallet.pay.done')}</Button>
        <Button variant="outline" onClick={onMore}>
          {tWallet('wallet.pay.buyMore')}
        </Button>
      </div>
    </Step>
  )
}

function WaitingStep({ purchase, sentAt, pack }: { purchase: Purchase; sentAt: number | null; pack: NestcoinPackage }) {
  const { tWallet } = useWalletTranslation()
  const seconds = useSecondsLeft(sentAt === null ? null : sentAt + PAY_WAIT_SECONDS * 1000)
  const phone = formatMpesaPhone(purchase.phone)
  if (seconds === 0) {
    return (
      <Step state="still-waiting" title={tWallet('wallet.pay.stillWaitingTitle')} icon={<HourglassIcon className="size-5 text-primary" aria-hidden="true" />}>
        <p role="status" className="text-sm text-muted-foreground">
          {tWallet('wallet.pay.stillWaitingBody')}
        </p>
        <OrderSummary pack={pack} />
      </Step>
    )
  }
  return (
    <Step state="waiting" title={tWallet('wallet.pay.waitingTitle')} icon={<SmartphoneIcon className="size-5 text-primary" aria-hidden="true" />}>
      <p role="status" className="text-sm">
        {tWallet('wallet.pay.waitingBody', { phone, price: formatKES(purchase.amount_kes), coins: formatNestcoins(purchase.coins) })}
      </p>
      <p role="timer" aria-live="off" className="flex items-center gap-2 text-sm font-medium tabular-nums">
        <HourglassIcon className="size-4 animate-pulse text-muted-foreground" aria-hidden="true" />
        {tWallet('wallet.pay.countdown', { time: clock(seconds) })}
      </p>
      <div className="h-1.5 w-full overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <div className="h-full bg-primary transition-[width] duration-1000 ease-linear" style={{ width: `${(seconds / PAY_WAIT_SECONDS) * 100}%` }} />
      </div>
    </Step>
  )
}

type PayStepProps = {
  pack: NestcoinPackage
  onBack(): void
  /** Closes the sheet. */
  onDone(): void
}

/**
 * The packages sheet's pay step (issue 16): the M-Pesa number (prefilled
 * from the profile), the package's coins and price, then Pay → an STK push
 * through the payments service → "Check your phone" with a countdown (then
 * "still waiting": the sweep may settle it later) → the outcome as it lands
 * on the purchase row through Realtime: paid (receipt, new balance) or
 * failed (a message per failure_code). Errors of the push have a message
 * per code; an invalid number is shown on the field. Signed out, it asks
 * the visitor to sign in.
 */
export function MpesaPayStep({ pack, onBack, onDone }: PayStepProps) {
  const { user, status } = useAuth()
  if (status !== 'signed-in' || !user) return <SignedOutStep pack={pack} onBack={onBack} />
  return <SignedInPayStep pack={pack} onBack={onBack} onDone={onDone} userId={user.id} />
}

function SignedInPayStep({ pack, onBack, onDone, userId }: PayStepProps & { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const location = useLocation()
  const checkout = useMpesaCheckout(userId)
  const buyerPhone = useBuyerPhone(userId)
  const form = useForm<MpesaPhoneInput>({ resolver: zodResolver(mpesaPhoneSchema), defaultValues: { phone: '' } })
  const typed = useWatch({ control: form.control, name: 'phone' })
  const normalised = normalizeMpesaPhone(typed ?? '')
  const purchasable = isPackageId(pack.id)

  // Prefill once from the profile (only if the user has not typed yet).
  const profilePhone = buyerPhone.data
  useEffect(() => {
    if (profilePhone && !form.getValues('phone') && !form.formState.isDirty) {
      form.reset({ phone: formatMpesaPhone(profilePhone) })
    }
  }, [profilePhone, form])

  // The service refused the number: show it on the field.
  const error = checkout.error
  useEffect(() => {
    if (error?.code === 'invalid_phone') form.setError('phone', { message: 'wallet.pay.error.invalid_phone' }, { shouldFocus: true })
  }, [error, form])

  if (checkout.phase === 'waiting' && checkout.purchase) return <WaitingStep purchase={checkout.purchase} sentAt={checkout.sentAt} pack={pack} />
  if (checkout.phase === 'paid' && checkout.purchase)
    return <PaidStep purchase={checkout.purchase} userId={userId} onDone={onDone} onMore={onBack} />
  if (checkout.phase === 'failed' && checkout.purchase) {
    const purchase = checkout.purchase
    return (
      <Step state="failed" title={tWallet('wallet.pay.failedTitle')} icon={<CircleXIcon className="size-5 text-destructive" aria-hidden="true" />}>
        <div role="alert" data-failure-code={purchase.failure_code ?? ''} className="flex flex-col gap-1 text-sm">
          <p className="font-medium text-destructive">{failureMessage(tWallet, purchase.failure_code)}</p>
          {purchase.result_desc && <p className="text-muted-foreground">{tWallet('wallet.pay.mpesaSaid', { reason: purchase.result_desc })}</p>}
        </div>
        <OrderSummary pack={pack} />
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={onBack}>
            <ArrowLeftIcon aria-hidden="true" />
            {tWallet('wallet.pay.back')}
          </Button>
          <Button onClick={checkout.reset}>{tWallet('wallet.pay.tryAgain')}</Button>
        </div>
      </Step>
    )
  }

  const sending = checkout.phase === 'sending'
  const onSubmit = form.handleSubmit((values) => {
    const phone = normalizeMpesaPhone(values.phone)
    if (!phone || !purchasable) return
    form.setValue('phone', formatMpesaPhone(phone))
    void checkout.start({ packageId: pack.id, phone })
  })
  const errorCode = checkout.phase === 'error' && error && error.code !== 'invalid_phone' ? error.code : null

  return (
    <Step
      state={sending ? 'sending' : checkout.phase === 'error' ? 'error' : 'idle'}
      title={tWallet('wallet.pay.title')}
      icon={<SmartphoneIcon className="size-5 text-primary" aria-hidden="true" />}
    >
      <OrderSummary pack={pack} />
      {errorCode && error && (
        <div role="alert" data-error-code={errorCode} className="flex items-start gap-2 rounded-md border border-destructive/50 bg-destructive/10 p-3 text-sm text-destructive">
          <CircleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          <div>
            <p className="font-medium">{tWallet('wallet.pay.errorTitle')}</p>
            <p>{tWallet(`wallet.pay.error.${errorCode}`)}</p>
            {error.requestId && <p className="text-xs">{tWallet('wallet.pay.errorReference', { id: error.requestId })}</p>}
            {errorCode === 'unauthorized' && (
              <Link to={paths.login} state={{ from: `${location.pathname}${location.search}` } satisfies LoginRedirectState} className="underline">
                {tWallet('wallet.pay.signIn')}
              </Link>
            )}
          </div>
        </div>
      )}
      {!purchasable && (
        <p role="alert" className="text-sm text-destructive">
          {tWallet('wallet.pay.packageUnavailable')}
        </p>
      )}
      <FormProvider {...form}>
        <form
          onSubmit={onSubmit}
          // Leaving the field shows the number the way Kenyans write it: "0712 345 678".
          onBlur={(event) => {
            if (!(event.target instanceof HTMLInputElement) || event.target.name !== 'phone') return
            const value = normalizeMpesaPhone(event.target.value)
            if (value) form.setValue('phone', formatMpesaPhone(value))
          }}
          noValidate
          className="flex flex-col gap-4"
        >
          <fieldset disabled={sending} className="contents">
            <InputField
              name="phone"
              label={tWallet('wallet.pay.phoneLabel')}
              type="tel"
              inputMode="tel"
              autoComplete="tel"
              maxLength={20}
              placeholder="0712 345 678"
              description={
                normalised ? tWallet('wallet.pay.promptTo', { phone: formatMpesaPhone(normalised) }) : tWallet('wallet.pay.phoneHelp')
              }
            />
          </fieldset>
          <div className="flex flex-wrap gap-2">
            <Button type="button" variant="outline" onClick={onBack} disabled={sending}>
              <ArrowLeftIcon aria-hidden="true" />
              {tWallet('wallet.pay.back')}
            </Button>
            <Button type="submit" disabled={sending || !purchasable}>
              <SmartphoneIcon aria-hidden="true" />
              {sending ? tWallet('wallet.pay.sending') : tWallet('wallet.pay.submit', { price: formatKES(pack.price) })}
            </Button>
          </div>
        </form>
      </FormProvider>
    </Step>
  )
}
