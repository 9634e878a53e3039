import { MapPinIcon } from 'lucide-react'
import type { ReactNode } from 'react'

import { formatKES } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

/** A pin and a place name, e.g. on cards and detail pages. */
function LocationLine({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p className={cn('flex items-center gap-1 text-muted-foreground', className)}>
      <MapPinIcon className="size-4 shrink-0" aria-hidden="true" />
      {children}
    </p>
  )
}

/**
 * A price in KES without decimals, with '/month' for rentals and leases
 * (`perMonth`), or any other period's `suffix` (e.g. '/week').
 */
function PriceTag({ amount, perMonth = false, suffix, className }: { amount: number; perMonth?: boolean; suffix?: string; className?: string }) {
  const { t } = useTranslation()
  const tail = suffix ?? (perMonth ? t('listings.perMonth') : undefined)
  return (
    <p className={cn('font-bold text-primary', className)}>
      {formatKES(amount)}
      {tail && <span className="text-[0.6em] font-normal text-muted-foreground">{tail}</span>}
    </p>
  )
}

/** A label/value row of the facts list. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4 border-b py-2 text-sm">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="text-right font-medium">{children}</dd>
    </div>
  )
}

export { Fact, LocationLine, PriceTag }
