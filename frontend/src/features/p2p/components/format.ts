import type { P2pCurrency } from '@/config/p2p'
import { tP2p } from '@/lib/i18n/p2p'

const kes2 = new Intl.NumberFormat('en-KE', { style: 'currency', currency: 'KES', minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** KES with 2 decimals, as the trade dialog's total (spec §5), e.g. "Ksh 1,250.00". */
export function formatKes2(value: number): string {
  return kes2.format(value)
}

/** amount × rate, rounded to cents as the server does. */
export function tradeTotal(amount: number, rate: number): number {
  return Math.round(amount * rate * 100) / 100
}

export function currencyLabel(currency: string): string {
  return tP2p(`p2p.currency.${currency as P2pCurrency}`)
}

/** A deadline's remaining time as m:ss or h:mm:ss; null once passed. */
export function remaining(deadline: string, now: number): string | null {
  const ms = new Date(deadline).getTime() - now
  if (ms <= 0) return null
  const total = Math.floor(ms / 1000)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const pad = (n: number) => String(n).padStart(2, '0')
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`
}
