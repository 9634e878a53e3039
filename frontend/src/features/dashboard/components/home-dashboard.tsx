import { QueryClientProvider } from '@tanstack/react-query'
import { ArrowLeftRightIcon, BuildingIcon, CoinsIcon, HandshakeIcon, LandPlotIcon, PackageIcon, TruckIcon, type LucideIcon } from 'lucide-react'
import { useId, type ReactNode } from 'react'
import { Link } from 'react-router'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { paths } from '@/config/paths'
import { formatNestcoins } from '@/lib/format'
import type { WalletKey } from '@/lib/i18n/en-wallet'
import { useWalletTranslation } from '@/lib/i18n/wallet'
import { getAppQueryClient } from '@/lib/query-client'
import { useInjectedQueryClient } from '@/lib/query-client-slot'
import { cn } from '@/lib/utils'

import { listingSources, useDashboardSummary, type ListingCounts, type ListingSourceKey, type ListingState } from '../api/get-dashboard-summary'

/** The P2P trades screen (another issue builds it); the dashboard only links there. */
const tradesPath = `${paths.p2p}/trades`

const listingCards: Record<ListingSourceKey, { title: WalletKey; to: string; icon: LucideIcon }> = {
  properties: { title: 'dashboard.properties', to: paths.myProperties, icon: BuildingIcon },
  products: { title: 'dashboard.products', to: paths.myProducts, icon: PackageIcon },
  lands: { title: 'dashboard.lands', to: paths.myLands, icon: LandPlotIcon },
  services: { title: 'dashboard.services', to: paths.myServices, icon: TruckIcon },
}

const stateLabels: Record<ListingState, WalletKey> = {
  active: 'dashboard.active',
  pending: 'dashboard.pending',
  unpaid: 'dashboard.unpaid',
  rejected: 'dashboard.rejected',
  expiring: 'dashboard.expiring',
}

/** States worth the owner's attention are highlighted when not zero. */
const attention: ReadonlySet<ListingState> = new Set(['unpaid', 'rejected', 'expiring'])

function SummaryCard({ title, to, icon: Icon, children }: { title: string; to: string; icon: LucideIcon; children: ReactNode }) {
  const id = useId()
  return (
    <li>
      <article aria-labelledby={id} className="flex h-full flex-col gap-3 rounded-xl border bg-card p-5 shadow-sm">
        <h3 id={id} className="flex items-center gap-2 font-semibold">
          <Icon className="size-5 text-primary" aria-hidden="true" />
          <Link to={to} className="hover:underline">
            {title}
          </Link>
        </h3>
        {children}
      </article>
    </li>
  )
}

/** A list of labelled numbers; zero rows are muted, attention rows stand out. */
function Counts({ rows }: { rows: { label: string; value: number; highlight?: boolean }[] }) {
  return (
    <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm">
      {rows.map(({ label, value, highlight }) => (
        <div key={label} className="contents">
          <dt className={cn(value === 0 && 'text-muted-foreground', highlight && value > 0 && 'font-medium text-destructive')}>{label}</dt>
          <dd className={cn('text-right font-semibold tabular-nums', value === 0 && 'text-muted-foreground')}>{formatNestcoins(value)}</dd>
        </div>
      ))}
    </dl>
  )
}

function DashboardCards({ userId }: { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const query = useDashboardSummary(userId)
  if (query.isPending) return <ListLoading label={tWallet('dashboard.loading')} />
  if (query.isError) return <ListError message={tWallet('dashboard.failed')} onRetry={() => void query.refetch()} />
  const summary = query.data
  const listingRows = (counts: ListingCounts) =>
    (Object.keys(stateLabels) as ListingState[]).map((state) => ({
      label: tWallet(stateLabels[state]),
      value: counts[state],
      highlight: attention.has(state),
    }))

  return (
    <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      {listingSources.map(({ key }) => {
        const card = listingCards[key]
        const counts = summary.listings[key]
        return (
          <SummaryCard key={key} title={tWallet(card.title)} to={card.to} icon={card.icon}>
            <Counts rows={listingRows(counts)} />
            {counts.unpaid > 0 && (
              <Link to={card.to} className="mt-auto self-start text-sm font-medium text-primary hover:underline">
                {tWallet('dashboard.continue')}
              </Link>
            )}
          </SummaryCard>
        )
      })}
      <SummaryCard title={tWallet('dashboard.offers')} to={paths.myP2pOffers} icon={ArrowLeftRightIcon}>
        <Counts
          rows={[
            { label: tWallet('dashboard.active'), value: summary.offers.active },
            { label: tWallet('dashboard.expiring'), value: summary.offers.expiring, highlight: true },
            { label: tWallet('dashboard.allOffers'), value: summary.offers.total },
          ]}
        />
      </SummaryCard>
      <SummaryCard title={tWallet('dashboard.balance')} to={paths.wallet} icon={CoinsIcon}>
        <p className="text-3xl font-bold tabular-nums">{formatNestcoins(summary.nestcoins)}</p>
        <Link to={paths.wallet} className="mt-auto self-start text-sm font-medium text-primary hover:underline">
          {tWallet('dashboard.openWallet')}
        </Link>
      </SummaryCard>
      <SummaryCard title={tWallet('dashboard.trades')} to={tradesPath} icon={HandshakeIcon}>
        <p className="text-3xl font-bold tabular-nums">{formatNestcoins(summary.openTrades)}</p>
        <p className="text-sm text-muted-foreground">{tWallet('dashboard.tradesHint')}</p>
        <Link to={tradesPath} className="mt-auto self-start text-sm font-medium text-primary hover:underline">
          {tWallet('dashboard.viewTrades')}
        </Link>
      </SummaryCard>
    </ul>
  )
}

/**
 * The signed-in user's dashboard on /home: the six My pages in numbers
 * (listings by state, P2P offers), the Nestcoin balance and open P2P trades,
 * each linking to its page. Its own chunk with its own query provider, so
 * the landing page's visitors never download it.
 */
export function HomeDashboard({ userId }: { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const client = useInjectedQueryClient() ?? getAppQueryClient()
  return (
    <section aria-labelledby="dashboard-heading" className="mx-auto w-full max-w-7xl px-4 pt-12">
      <div className="mb-6">
        <h2 id="dashboard-heading" className="text-2xl font-bold">
          {tWallet('dashboard.title')}
        </h2>
        <p className="text-muted-foreground">{tWallet('dashboard.intro')}</p>
      </div>
      <QueryClientProvider client={client}>
        <DashboardCards userId={userId} />
      </QueryClientProvider>
    </section>
  )
}
