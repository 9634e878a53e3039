import { CoinsIcon, GemIcon, KeyRoundIcon } from 'lucide-react'
import { useState } from 'react'
import { Link } from 'react-router'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { formatNestcoins } from '@/lib/format'
import { useWalletTranslation } from '@/lib/i18n/wallet'

import { currencies, useBalances, type Currency } from '../api/get-balances'
import { PackagesSheet } from './packages-sheet'

const icons: Record<Currency, typeof CoinsIcon> = { nestcoins: CoinsIcon, crystals: GemIcon, keys: KeyRoundIcon }

/**
 * The user's balance in each currency (nestcoins, crystals, keys) and the
 * entry point to buying Nestcoins (the packages sheet).
 */
export function BalancesCard({ userId }: { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const query = useBalances(userId)
  const [sheetOpen, setSheetOpen] = useState(false)

  return (
    <section aria-labelledby="wallet-balances" className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="wallet-balances" className="text-xl font-semibold">
          {tWallet('wallet.balancesTitle')}
        </h2>
        <div className="flex flex-wrap gap-2">
          <Button asChild variant="outline">
            <Link to={paths.pricing}>{tWallet('wallet.pricing')}</Link>
          </Button>
          <Button onClick={() => setSheetOpen(true)}>
            <CoinsIcon aria-hidden="true" />
            {tWallet('wallet.buy')}
          </Button>
        </div>
      </div>
      {query.isPending ? (
        <ListLoading label={tWallet('wallet.balancesLoading')} />
      ) : query.isError ? (
        <ListError message={tWallet('wallet.balancesFailed')} onRetry={() => void query.refetch()} />
      ) : (
        <dl className="grid gap-4 sm:grid-cols-3">
          {currencies.map((currency) => {
            const Icon = icons[currency]
            return (
              <div key={currency} className="flex flex-col gap-1 rounded-xl border bg-card p-5 shadow-sm">
                <dt className="flex items-center gap-2 text-sm text-muted-foreground">
                  <Icon className="size-5 shrink-0 text-primary" aria-hidden="true" />
                  {tWallet(`wallet.currency.${currency}`)}
                </dt>
                <dd className="text-3xl font-bold tabular-nums">{formatNestcoins(query.data[currency])}</dd>
              </div>
            )
          })}
        </dl>
      )}
      <PackagesSheet open={sheetOpen} onOpenChange={setSheetOpen} />
    </section>
  )
}
