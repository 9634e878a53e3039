import { useId, useState } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Field, FieldLabel } from '@/components/ui/field'
import { NativeSelect } from '@/components/ui/input'
import { paths } from '@/config/paths'
import { feeCategories, listingCost, parseDays, ratesOf, type FeeCategory, type FeeRate } from '@/lib/listing-fees'
import { useTranslation } from '@/lib/i18n/i18n'
import { feeRateLabel } from '@/lib/i18n/terms'

import { CostSummary, DaysField } from './cost-summary'
import { feeCategoryLabels } from './fee-tables'

/** Where 'List Now' leads for each category. */
export const listRouteOf: Record<FeeCategory, string> = {
  sale: paths.listProperty,
  rent: paths.listProperty,
  services: paths.listService,
  market: paths.listProduct,
  land: paths.listLand,
}

type CostCalculatorProps = {
  rates: readonly FeeRate[]
  balance: number
  onPurchase(): void
}

/**
 * The listing-cost calculator (spec §4): choosing a category clears the
 * type; choosing a type reveals the days input (whole number ≥ 1, anything
 * else becomes 1) and the summary. 'List Now' when the balance covers the
 * total, otherwise 'Purchase Nestcoins'.
 */
export function CostCalculator({ rates, balance, onPurchase }: CostCalculatorProps) {
  const { t } = useTranslation()
  const id = useId()
  const [category, setCategory] = useState<FeeCategory | ''>('')
  const [label, setLabel] = useState('')
  const [daysText, setDaysText] = useState('1')

  const rate = category ? ratesOf(rates, category).find((item) => item.label === label) : undefined
  const days = parseDays(daysText)
  const cost = rate ? listingCost(rate.per_day, days, balance) : undefined

  return (
    <div className="flex flex-col gap-4">
      <Field>
        <FieldLabel htmlFor={`${id}-category`}>{t('pricing.calcCategory')}</FieldLabel>
        <NativeSelect
          id={`${id}-category`}
          value={category}
          onChange={(event) => {
            setCategory(event.target.value as FeeCategory | '')
            setLabel('')
          }}
        >
          <option value="">{t('pricing.calcChooseCategory')}</option>
          {feeCategories.map((item) => (
            <option key={item} value={item}>
              {t(feeCategoryLabels[item])}
            </option>
          ))}
        </NativeSelect>
      </Field>
      {category && (
        <Field>
          <FieldLabel htmlFor={`${id}-type`}>{t('pricing.calcType')}</FieldLabel>
          <NativeSelect id={`${id}-type`} value={label} onChange={(event) => setLabel(event.target.value)}>
            <option value="">{t('pricing.calcChooseType')}</option>
            {ratesOf(rates, category).map((item) => (
              <option key={item.label} value={item.label}>
                {feeRateLabel(item.label)}
              </option>
            ))}
          </NativeSelect>
        </Field>
      )}
      {rate && cost && (
        <>
          <DaysField value={daysText} onChange={setDaysText} />
          <CostSummary cost={cost} balance={balance} />
          {cost.canAfford ? (
            <Button asChild>
              <Link to={listRouteOf[category as FeeCategory]}>{t('pricing.listNow')}</Link>
            </Button>
          ) : (
            <Button variant="destructive" onClick={onPurchase}>
              {t('pricing.purchase')}
            </Button>
          )}
        </>
      )}
    </div>
  )
}
