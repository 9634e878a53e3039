import { CoinsIcon, WalletIcon } from 'lucide-react'
import { useState } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { useNestcoinBalance } from '@/features/wallet/api/get-balance'
import { useFeeRates } from '@/features/wallet/api/get-fee-rates'
import { CostCalculator } from '@/features/wallet/components/cost-calculator'
import { FeeTables } from '@/features/wallet/components/fee-tables'
import { PackagesSheet } from '@/features/wallet/components/packages-sheet'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { formatNestcoins } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'

/** `/pricing`: per-day fees, the cost calculator, the balance and the packages sheet. */
export function PricingRoute() {
  const { t } = useTranslation()
  const { user } = useAuth()
  const { rates } = useFeeRates()
  const balanceQuery = useNestcoinBalance(user?.id)
  const balance = user ? (balanceQuery.data ?? 0) : 0
  const [sheetOpen, setSheetOpen] = useState(false)
  useDocumentMeta(`${t('pricing.title')} | ${t('app.name')}`, t('pricing.intro'))

  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-8 px-4 py-12">
      <header>
        <h1 className="text-4xl font-bold tracking-tight">{t('pricing.title')}</h1>
        <p className="mt-2 text-muted-foreground">{t('pricing.intro')}</p>
      </header>

      <Card>
        <CardContent className="flex flex-wrap items-center gap-4">
          <WalletIcon className="size-8 text-primary" aria-hidden="true" />
          <div className="flex-1">
            <p className="text-sm text-muted-foreground">{t('pricing.balanceLabel')}</p>
            <p className="text-2xl font-bold" data-testid="wallet-balance">
              {t('pricing.nestcoins', { count: formatNestcoins(balance) })}
            </p>
          </div>
          <Button variant="outline" onClick={() => setSheetOpen(true)}>
            <CoinsIcon aria-hidden="true" />
            {t('pricing.purchase')}
          </Button>
          <Button asChild>
            <Link to={paths.wallet}>{t('pricing.goToWallet')}</Link>
          </Button>
        </CardContent>
      </Card>

      <div className="grid gap-8 lg:grid-cols-[3fr_2fr]">
        <section aria-labelledby="fees-heading">
          <h2 id="fees-heading" className="mb-4 text-2xl font-bold">
            {t('pricing.tablesTitle')}
          </h2>
          <FeeTables rates={rates} />
        </section>
        <Card>
          <CardHeader>
            <CardTitle>
              <h2>{t('pricing.calcTitle')}</h2>
            </CardTitle>
          </CardHeader>
          <CardContent>
            <CostCalculator rates={rates} balance={balance} onPurchase={() => setSheetOpen(true)} />
          </CardContent>
        </Card>
      </div>

      <PackagesSheet open={sheetOpen} onOpenChange={setSheetOpen} />
    </div>
  )
}
