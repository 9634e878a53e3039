import { useId } from 'react'

import { Field, FieldDescription, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { formatNestcoins } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { parseDays, type ListingCost } from '@/lib/listing-fees'

/**
 * The number-of-days input (spec §4): any text while typing, a whole
 * number of at least 1 once it loses focus (anything else becomes 1).
 */
export function DaysField({ value, onChange, help }: { value: string; onChange(value: string): void; help?: string }) {
  const { t } = useTranslation()
  const id = useId()
  return (
    <Field>
      <FieldLabel htmlFor={id}>{t('pricing.calcDays')}</FieldLabel>
      <Input
        id={id}
        inputMode="numeric"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onBlur={() => onChange(String(parseDays(value)))}
        aria-describedby={help ? `${id}-help` : undefined}
        className="max-w-32"
      />
      {help && <FieldDescription id={`${id}-help`}>{help}</FieldDescription>}
    </Field>
  )
}

/** Per day, days, total and the balance it is paid from. */
export function CostSummary({ cost, balance }: { cost: ListingCost; balance: number }) {
  const { t } = useTranslation()
  return (
    <dl aria-label={t('pricing.calcSummary')} className="grid max-w-sm grid-cols-2 gap-2 rounded-lg bg-muted p-4 text-sm">
      <dt>{t('pricing.calcPerDay')}</dt>
      <dd className="text-right font-medium">{t('pricing.nestcoins', { count: formatNestcoins(cost.perDay) })}</dd>
      <dt>{t('pricing.calcDaysLabel')}</dt>
      <dd className="text-right font-medium">{cost.days}</dd>
      <dt className="font-semibold">{t('pricing.calcTotal')}</dt>
      <dd className="text-right font-semibold">{t('pricing.nestcoins', { count: formatNestcoins(cost.total) })}</dd>
      <dt>{t('pricing.calcBalance')}</dt>
      <dd className="text-right font-medium">{t('pricing.nestcoins', { count: formatNestcoins(balance) })}</dd>
    </dl>
  )
}
