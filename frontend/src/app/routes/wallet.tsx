import { RequireAuth } from '@/features/auth/components/require-auth'
import { BalancesCard } from '@/features/wallet/components/balances-card'
import { ListingFeesTable } from '@/features/wallet/components/listing-fees-table'
import { WalletHistory } from '@/features/wallet/components/wallet-history'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useWalletTranslation } from '@/lib/i18n/wallet'

function WalletPage() {
  const { t, tWallet } = useWalletTranslation()
  const { user } = useAuth()
  useDocumentMeta(`${tWallet('wallet.title')} | ${t('app.name')}`, tWallet('wallet.intro'))
  if (!user) return null

  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-10 px-4 py-10">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{tWallet('wallet.title')}</h1>
        <p className="mt-1 text-muted-foreground">{tWallet('wallet.intro')}</p>
      </header>
      <BalancesCard userId={user.id} />
      <WalletHistory userId={user.id} />
      <ListingFeesTable userId={user.id} />
    </div>
  )
}

/**
 * /wallet: balances per currency, the ledger history (filtered and
 * paginated through the URL), listing fees per listing, and buying
 * Nestcoins. Signed-in users only.
 */
export function WalletRoute() {
  return (
    <RequireAuth>
      <WalletPage />
    </RequireAuth>
  )
}
