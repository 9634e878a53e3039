const kesFormatter = new Intl.NumberFormat('en-KE', {
  style: 'currency',
  currency: 'KES',
  maximumFractionDigits: 0,
})

/** Formats an amount of Kenyan shillings with no decimals, e.g. "Ksh 1,500". */
export function formatKES(amount: number): string {
  return kesFormatter.format(amount)
}
