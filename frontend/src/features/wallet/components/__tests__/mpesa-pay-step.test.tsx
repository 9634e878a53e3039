import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { formatKES } from '@/lib/format'
import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderWithProviders, settleAuth } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { MpesaPayStep, PAY_WAIT_SECONDS } = await import('../mpesa-pay-step')

/** Ksh 500 as Intl prints it (a no-break space, which accessible names keep and text matchers fold). */
const KES500 = formatKES(500)
const session = fakeSession()
const userId = session.user.id
const pack = { id: '5b1e0000-0000-4000-8000-000000000004', name: 'Side Hustle', coins: 275, price: 500 }
const purchaseId = '9a9a0000-0000-4000-8000-0000000000aa'

type Row = Record<string, unknown>

/** The purchase row as the database sends it, pending unless overridden. */
function purchaseRow(overrides: Row = {}): Row {
  return {
    id: purchaseId,
    user_id: userId,
    package_id: pack.id,
    coins: 275,
    amount_kes: 500,
    phone: '254708374149',
    status: 'pending',
    checkout_request_id: 'ws_CO_1',
    merchant_request_id: 'mr-1',
    payment_reference: null,
    transfer_id: null,
    failure_reason: null,
    failure_code: null,
    resolved_via: null,
    result_code: null,
    result_desc: null,
    stk_sent_at: '2026-11-25T10:00:00Z',
    paid_at: null,
    failed_at: null,
    created_at: '2026-11-25T10:00:00Z',
    updated_at: '2026-11-25T10:00:00.100Z',
    ...overrides,
  }
}

const pushAnswer = {
  purchase_id: purchaseId,
  checkout_request_id: 'ws_CO_1',
  merchant_request_id: 'mr-1',
  customer_message: 'Success. Request accepted for processing',
  status: 'pending',
  amount_kes: 500,
  coins: 275,
  phone: '254708374149',
}

let invoke: ReturnType<typeof vi.fn>
let stored: { purchase: Row | null; balance: number; phone: string | null }

beforeEach(() => {
  fake.requests.length = 0
  fake.channels.length = 0
  fake.client.removeChannel.mockClear()
  stored = { purchase: null, balance: 100, phone: '+254708374149' }
  fake.respondWith((request: Request) => {
    if (request.table === 'profiles') return { data: { phone_number: stored.phone } }
    if (request.table === 'wallets') return { data: { balance: stored.balance } }
    if (request.table === 'nestcoin_purchases') return { data: stored.purchase }
    return { data: [] }
  })
  invoke = vi.fn(async () => ({ data: pushAnswer, error: null }))
  Object.assign(fake.client, { functions: { invoke } })
})

afterEach(() => {
  vi.useRealTimers()
  setLanguage('en')
})

function LoginPage() {
  const location = useLocation()
  return <p>login page from {(location.state as { from?: string } | null)?.from}</p>
}

async function renderStep({ signedIn = true, packId = pack.id } = {}) {
  const onBack = vi.fn()
  const onDone = vi.fn()
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const result = renderWithProviders(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={['/pricing']}>
        <Routes>
          <Route path="/pricing" element={<MpesaPayStep pack={{ ...pack, id: packId }} onBack={onBack} onDone={onDone} />} />
          <Route path="/login" element={<LoginPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
    { session: signedIn ? session : null },
  )
  await settleAuth(result.authClient)
  return { ...result, onBack, onDone }
}

const step = () => document.querySelector('section[data-state]') as HTMLElement
const phoneInput = () => screen.getByLabelText('M-Pesa phone number')

/** Delivers a postgres_changes UPDATE of the purchase row on the (one) open channel. */
function emitPurchase(row: Row) {
  const channel = fake.channels.find((c) => !c.removed)
  if (!channel) throw new Error('no open channel')
  act(() => channel.emit('nestcoin_purchases', { eventType: 'UPDATE', new: row, old: { id: row.id } }))
}

function httpError(status: number, body: unknown) {
  return { name: 'FunctionsHttpError', message: 'Edge Function returned a non-2xx status code', context: new Response(JSON.stringify(body), { status }) }
}

describe('MpesaPayStep: idle', () => {
  it('shows the package, coins and KES, with the phone prefilled from the profile the local way', async () => {
    await renderStep()
    expect(step()).toHaveAttribute('data-state', 'idle')
    expect(screen.getByRole('heading', { name: 'Pay with M-Pesa' })).toBeInTheDocument()
    const summary = within(step()).getAllByRole('definition').map((dd) => dd.textContent)
    expect(summary).toEqual(['Side Hustle', '275', `${KES500}`])
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    expect(screen.getByText('The prompt goes to 0708 374 149')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` })).toBeEnabled()
    expect(fake.requestsOf('profiles')[0].calls).toContainEqual(['eq', 'id', userId])
    expect(invoke).not.toHaveBeenCalled()
    expect(fake.channels).toHaveLength(0)
  })

  it('leaves the field empty with the hint when the profile has no number, and normalises what is typed on blur', async () => {
    stored.phone = null
    const { user } = await renderStep()
    await waitFor(() => expect(fake.requestsOf('profiles')).toHaveLength(1))
    expect(phoneInput()).toHaveValue('')
    expect(screen.getByText(/A Safaricom number such as 0712 345 678/)).toBeInTheDocument()
    await user.type(phoneInput(), '+254-712-345678')
    expect(screen.getByText('The prompt goes to 0712 345 678')).toBeInTheDocument()
    await user.tab()
    expect(phoneInput()).toHaveValue('0712 345 678')
  })

  it.each([
    ['', 'Enter the M-Pesa phone number to send the prompt to'],
    ['020 123 4567', 'Enter a valid M-Pesa phone number, such as 0712 345 678'],
    ['+1 202 555 0143', 'Enter a valid M-Pesa phone number, such as 0712 345 678'],
  ])('refuses %j with "%s" and calls nothing', async (typed, message) => {
    stored.phone = null
    const { user } = await renderStep()
    await waitFor(() => expect(fake.requestsOf('profiles')).toHaveLength(1))
    if (typed) await user.type(phoneInput(), typed)
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    expect(await screen.findByRole('alert')).toHaveTextContent(message)
    expect(phoneInput()).toHaveAttribute('aria-invalid', 'true')
    expect(invoke).not.toHaveBeenCalled()
    expect(fake.channels).toHaveLength(0)
  })

  it('cannot pay for a package the server has not listed yet (the static fallback)', async () => {
    await renderStep({ packId: 'Side Hustle' })
    expect(screen.getByRole('alert')).toHaveTextContent("The packages haven't loaded yet")
    expect(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` })).toBeDisabled()
  })

  it('goes back to the packages', async () => {
    const { user, onBack } = await renderStep()
    await user.click(screen.getByRole('button', { name: 'Back to packages' }))
    expect(onBack).toHaveBeenCalled()
  })

  it('asks a signed-out visitor to sign in, remembering the page', async () => {
    const { user } = await renderStep({ signedIn: false })
    expect(step()).toHaveAttribute('data-state', 'signed-out')
    expect(screen.getByRole('heading', { name: 'Sign in to buy Nestcoins' })).toBeInTheDocument()
    expect(screen.getByText(/^You chose Side Hustle: 275 Nestcoins for Ksh.500\. Sign in to pay with M-Pesa/)).toBeInTheDocument()
    expect(screen.queryByLabelText('M-Pesa phone number')).not.toBeInTheDocument()
    await user.click(screen.getByRole('link', { name: 'Sign in' }))
    expect(await screen.findByText('login page from /pricing')).toBeInTheDocument()
    expect(invoke).not.toHaveBeenCalled()
  })
})

describe('MpesaPayStep: sending and waiting', () => {
  it('joins Realtime on the own purchases before invoking, and shows sending while the push is on its way', async () => {
    let answer!: (value: unknown) => void
    invoke.mockImplementation(() => new Promise((resolve) => (answer = resolve)))
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    await waitFor(() => expect(invoke).toHaveBeenCalled())
    expect(step()).toHaveAttribute('data-state', 'sending')
    expect(screen.getByRole('button', { name: 'Sending the prompt...' })).toBeDisabled()
    expect(phoneInput()).toBeDisabled()
    expect(invoke).toHaveBeenCalledWith('mpesa-stk-push', { body: { package_id: pack.id, phone: '254708374149' } })
    expect(fake.channels).toHaveLength(1)
    expect(fake.channels[0].bindings[0].filter).toEqual({
      event: '*',
      schema: 'public',
      table: 'nestcoin_purchases',
      filter: `user_id=eq.${userId}`,
    })
    await act(async () => answer({ data: pushAnswer, error: null }))
    expect(await screen.findByRole('heading', { name: 'Check your phone' })).toBeInTheDocument()
  })

  it('counts down on "Check your phone", then keeps waiting and still takes the outcome', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
    stored.purchase = purchaseRow()
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    expect(await screen.findByRole('heading', { name: 'Check your phone' })).toBeInTheDocument()
    expect(step()).toHaveAttribute('data-state', 'waiting')
    expect(screen.getByRole('status')).toHaveTextContent('Enter your M-Pesa PIN in the prompt on 0708 374 149 to pay Ksh 500 for 275 Nestcoins.')
    expect(screen.getByRole('timer')).toHaveTextContent(`Waiting for M-Pesa: ${Math.floor(PAY_WAIT_SECONDS / 60)}:${String(PAY_WAIT_SECONDS % 60).padStart(2, '0')} left`)
    // The row is read once its id is known.
    await waitFor(() => expect(fake.requestsOf('nestcoin_purchases')).toHaveLength(1))
    expect(fake.requestsOf('nestcoin_purchases')[0].calls).toContainEqual(['eq', 'id', purchaseId])

    act(() => vi.advanceTimersByTime(31_000))
    expect(screen.getByRole('timer')).toHaveTextContent(`${Math.floor((PAY_WAIT_SECONDS - 31) / 60)}:${String((PAY_WAIT_SECONDS - 31) % 60).padStart(2, '0')} left`)
    // … and read again while pending, in case an event was lost.
    await waitFor(() => expect(fake.requestsOf('nestcoin_purchases').length).toBeGreaterThanOrEqual(3))

    act(() => vi.advanceTimersByTime(PAY_WAIT_SECONDS * 1000))
    expect(step()).toHaveAttribute('data-state', 'still-waiting')
    expect(screen.getByRole('heading', { name: 'Still waiting for M-Pesa...' })).toBeInTheDocument()
    expect(screen.getByRole('status')).toHaveTextContent("We'll keep checking")
    expect(screen.queryByRole('timer')).not.toBeInTheDocument()

    // The sweep's STK query settles it minutes later: the row says paid.
    stored.balance = 375
    emitPurchase(purchaseRow({ status: 'paid', payment_reference: 'ws_CO_1', resolved_via: 'query', paid_at: '2026-11-25T10:03:00Z', updated_at: '2026-11-25T10:03:00Z' }))
    expect(await screen.findByRole('heading', { name: 'Payment received' })).toBeInTheDocument()
    // Confirmed by a query: no receipt yet.
    expect(screen.getByText('Confirmed by M-Pesa (receipt to follow)')).toBeInTheDocument()
  })
})

describe('MpesaPayStep: outcomes through Realtime', () => {
  async function payAndWait() {
    const rendered = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await rendered.user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    expect(await screen.findByRole('heading', { name: 'Check your phone' })).toBeInTheDocument()
    return rendered
  }

  it('paid: shows the receipt and the new balance read after the credit', async () => {
    const { user, onDone } = await payAndWait()
    const balanceReads = fake.requestsOf('wallets').length
    stored.balance = 375
    emitPurchase(purchaseRow({ status: 'paid', payment_reference: 'SGH7K2LQ9P', transfer_id: 7, resolved_via: 'callback', result_code: 0, paid_at: '2026-11-25T10:00:05Z', updated_at: '2026-11-25T10:00:05Z' }))
    expect(await screen.findByRole('heading', { name: 'Payment received' })).toBeInTheDocument()
    expect(step()).toHaveAttribute('data-state', 'paid')
    expect(screen.getByRole('status')).toHaveTextContent('275 Nestcoins were added to your wallet.')
    expect(screen.getByText('SGH7K2LQ9P')).toBeInTheDocument()
    expect(await screen.findByText('375 Nestcoins')).toBeInTheDocument()
    expect(fake.requestsOf('wallets').length).toBeGreaterThan(balanceReads)
    // Later copies of the settlement (and a stale pending one) change nothing.
    emitPurchase(purchaseRow({ status: 'pending', updated_at: '2026-11-25T10:00:09Z' }))
    expect(step()).toHaveAttribute('data-state', 'paid')
    await user.click(screen.getByRole('button', { name: 'Done' }))
    expect(onDone).toHaveBeenCalled()
  })

  it('takes a callback that beat the push answer (the event arrives before the purchase id is known)', async () => {
    let answer!: (value: unknown) => void
    invoke.mockImplementation(() => new Promise((resolve) => (answer = resolve)))
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    await waitFor(() => expect(invoke).toHaveBeenCalled())
    // Another purchase's event is ignored; ours is kept for when the answer names it.
    emitPurchase(purchaseRow({ id: 'other', status: 'failed', failure_code: 'cancelled', failed_at: '2026-11-25T10:00:01Z' }))
    emitPurchase(purchaseRow({ status: 'paid', payment_reference: 'SGH7K2LQ9P', paid_at: '2026-11-25T10:00:02Z', updated_at: '2026-11-25T10:00:02Z' }))
    await act(async () => answer({ data: pushAnswer, error: null }))
    expect(await screen.findByRole('heading', { name: 'Payment received' })).toBeInTheDocument()
    expect(screen.getByText('SGH7K2LQ9P')).toBeInTheDocument()
  })

  it('takes the outcome from the re-read when no event comes', async () => {
    stored.purchase = purchaseRow({ status: 'failed', failure_code: 'cancelled', result_code: 1032, result_desc: 'Request cancelled by user', failed_at: '2026-11-25T10:00:03Z', updated_at: '2026-11-25T10:00:03Z' })
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    expect(await screen.findByRole('heading', { name: 'Payment not completed' })).toBeInTheDocument()
    expect(screen.getByRole('alert')).toHaveTextContent('You cancelled the M-Pesa prompt. Nothing was charged.')
  })

  it.each([
    ['cancelled', 1032, 'You cancelled the M-Pesa prompt. Nothing was charged.'],
    ['timeout', 1037, "Your phone couldn't be reached or the prompt timed out."],
    ['insufficient_funds', 1, 'Your M-Pesa balance is too low for this payment.'],
    ['wrong_pin', 2001, 'The M-Pesa PIN entered was wrong.'],
    ['busy', 1001, 'M-Pesa is busy with another transaction on this phone.'],
    ['declined', 1019, 'M-Pesa declined the payment.'],
    ['push_failed', null, "M-Pesa couldn't send the prompt to your phone."],
    ['expired', null, 'M-Pesa never confirmed this payment, so we stopped waiting.'],
    ['amount_mismatch', 0, "The amount paid didn't match the package price"],
    [null, 9999, 'The payment failed. Nothing was charged.'],
  ])('failed (%s): says why, with what M-Pesa said, and offers Try again', async (code, resultCode, message) => {
    const { user } = await payAndWait()
    emitPurchase(
      purchaseRow({ status: 'failed', failure_code: code, result_code: resultCode, result_desc: resultCode === null ? null : `Daraja says ${code}`, failure_reason: 'x', failed_at: '2026-11-25T10:00:04Z', updated_at: '2026-11-25T10:00:04Z' }),
    )
    expect(await screen.findByRole('heading', { name: 'Payment not completed' })).toBeInTheDocument()
    expect(step()).toHaveAttribute('data-state', 'failed')
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent(message)
    expect(alert).toHaveAttribute('data-failure-code', code ?? '')
    if (resultCode !== null) expect(alert).toHaveTextContent(`M-Pesa said: Daraja says ${code}`)
    await user.click(screen.getByRole('button', { name: 'Try again' }))
    expect(step()).toHaveAttribute('data-state', 'idle')
    expect(phoneInput()).toHaveValue('0708 374 149')
    expect(fake.channels.every((c) => c.removed)).toBe(true)
  })

  it('an expired purchase that M-Pesa later confirms turns paid', async () => {
    await payAndWait()
    emitPurchase(purchaseRow({ status: 'failed', failure_code: 'expired', resolved_via: 'expiry', failed_at: '2026-11-25T10:15:00Z', updated_at: '2026-11-25T10:15:00Z' }))
    expect(await screen.findByRole('heading', { name: 'Payment not completed' })).toBeInTheDocument()
    emitPurchase(purchaseRow({ status: 'paid', payment_reference: 'SGH7LATE01', paid_at: '2026-11-25T10:16:00Z', updated_at: '2026-11-25T10:16:00Z' }))
    expect(await screen.findByRole('heading', { name: 'Payment received' })).toBeInTheDocument()
    expect(screen.getByText('SGH7LATE01')).toBeInTheDocument()
  })

  it('closes its channel when unmounted', async () => {
    const { unmount } = await payAndWait()
    expect(fake.channels[0].removed).toBe(false)
    unmount()
    expect(fake.channels[0].removed).toBe(true)
  })
})

describe('MpesaPayStep: errors of the push', () => {
  it.each([
    [401, { code: 401, message: 'Invalid JWT' }, 'unauthorized', 'Your session has ended. Sign in again to buy Nestcoins.'],
    [400, { code: 'invalid_request', message: 'bad' }, 'invalid_request', "The payment request wasn't valid."],
    [404, { code: 'package_not_found', message: 'Package not found' }, 'package_not_found', 'This package is no longer on sale.'],
    [403, { code: 'account_suspended', message: 'Your account is suspended' }, 'account_suspended', 'Your account is suspended, so you cannot buy Nestcoins.'],
    [429, { code: 'too_many_pending', message: 'You have payments waiting for confirmation.' }, 'too_many_pending', 'You have payments waiting for confirmation.'],
    [502, { code: 'mpesa_rejected', message: 'Bad Request - Invalid PhoneNumber', purchase_id: purchaseId, status: 'failed' }, 'mpesa_rejected', 'M-Pesa refused the payment request.'],
    [502, { code: 'mpesa_unavailable', message: 'down', purchase_id: purchaseId, status: 'failed' }, 'mpesa_unavailable', "M-Pesa can't be reached right now."],
    [413, { code: 'payload_too_large', message: 'The request body is too large' }, 'payload_too_large', 'The payment request was too large.'],
    [500, { code: 'internal_error', message: 'Something went wrong', request_id: 'req-42' }, 'internal_error', 'Something went wrong on our side. Nothing was charged; try again.'],
  ])('HTTP %i: %s', async (status, body, code, message) => {
    invoke.mockImplementation(async () => ({ data: null, error: httpError(status, body) }))
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    const alert = await screen.findByRole('alert')
    expect(step()).toHaveAttribute('data-state', 'error')
    expect(alert).toHaveAttribute('data-error-code', code)
    expect(alert).toHaveTextContent("Couldn't start the payment")
    expect(alert).toHaveTextContent(message)
    if (code === 'internal_error') expect(alert).toHaveTextContent('Reference: req-42')
    if (code === 'unauthorized') expect(within(alert).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login')
    // Nothing is being watched; Pay is offered again.
    expect(fake.channels.every((c) => c.removed)).toBe(true)
    expect(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` })).toBeEnabled()
  })

  it('invalid_phone: shown on the field', async () => {
    invoke.mockImplementation(async () => ({ data: null, error: httpError(400, { code: 'invalid_phone', message: 'Enter a valid M-Pesa phone number' }) }))
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    await waitFor(() => expect(phoneInput()).toHaveAttribute('aria-invalid', 'true'))
    expect(screen.getByRole('alert')).toHaveTextContent('Enter a valid M-Pesa phone number, such as 0712 345 678')
    expect(document.querySelector('[data-error-code]')).toBeNull()
  })

  it('network: no connection', async () => {
    invoke.mockImplementation(async () => ({ data: null, error: { name: 'FunctionsFetchError', message: 'Failed to send a request to the Edge Function', context: new TypeError('fetch failed') } }))
    const { user } = await renderStep()
    await waitFor(() => expect(phoneInput()).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Pay ${KES500} with M-Pesa` }))
    expect(await screen.findByRole('alert')).toHaveTextContent("Couldn't reach KejaNest. Check your internet connection and try again.")
  })
})

describe('MpesaPayStep in Kiswahili', () => {
  it('speaks Kiswahili in the pay, waiting and failed states', async () => {
    setLanguage('sw')
    await loadSwahili()
    const { user } = await renderStep()
    expect(screen.getByRole('heading', { name: 'Lipa kwa M-Pesa' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getByLabelText('Nambari ya simu ya M-Pesa')).toHaveValue('0708 374 149'))
    await user.click(screen.getByRole('button', { name: `Lipa ${KES500} kwa M-Pesa` }))
    expect(await screen.findByRole('heading', { name: 'Angalia simu yako' })).toBeInTheDocument()
    emitPurchase(purchaseRow({ status: 'failed', failure_code: 'cancelled', failed_at: '2026-11-25T10:00:04Z', updated_at: '2026-11-25T10:00:04Z' }))
    expect(await screen.findByRole('heading', { name: 'Malipo hayakukamilika' })).toBeInTheDocument()
    expect(screen.getByRole('alert')).toHaveTextContent('Umeghairi ombi la M-Pesa. Hakuna pesa iliyotozwa.')
  })
})
