import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { feeCategories, ratesOf, type FeeCategory, type FeeRate } from '@/lib/listing-fees'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { feeRateLabel } from '@/lib/i18n/terms'

export const feeCategoryLabels: Record<FeeCategory, MessageKey> = {
  sale: 'pricing.tabSale',
  rent: 'pricing.tabRent',
  services: 'pricing.tabServices',
  market: 'pricing.tabMarket',
  land: 'pricing.tabLand',
}

/** The per-day tables, one tab per category (Sale, Rent, Services, Market, Land). */
export function FeeTables({ rates }: { rates: readonly FeeRate[] }) {
  const { t } = useTranslation()
  return (
    <Tabs defaultValue="sale">
      <TabsList aria-label={t('pricing.tablesLabel')}>
        {feeCategories.map((category) => (
          <TabsTrigger key={category} value={category}>
            {t(feeCategoryLabels[category])}
          </TabsTrigger>
        ))}
      </TabsList>
      {feeCategories.map((category) => (
        <TabsContent key={category} value={category}>
          <table className="w-full overflow-hidden rounded-lg border text-sm">
            <caption className="sr-only">{t(feeCategoryLabels[category])}</caption>
            <thead className="bg-muted text-left">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  {t('pricing.colType')}
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium">
                  {t('pricing.colPerDay')}
                </th>
              </tr>
            </thead>
            <tbody>
              {ratesOf(rates, category).map((rate) => (
                <tr key={rate.label} className="border-t">
                  <td className="px-4 py-2">{feeRateLabel(rate.label)}</td>
                  <td className="px-4 py-2 text-right font-semibold tabular-nums">{rate.per_day}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TabsContent>
      ))}
    </Tabs>
  )
}
