import { useId, type ReactNode } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { paths } from '@/config/paths'
import { formatNestcoins } from '@/lib/format'
import { useWalletTranslation } from '@/lib/i18n/wallet'
import type { ListingKind } from '@/lib/listing-fees'
import { cn } from '@/lib/utils'

import { useListingFees, type ListingFeeSummary } from '../api/get-listing-fees'
import { formatDateTime, listingDetail } from './wallet-format'

const myPageOf: Record<ListingKind, string> = {
  property: paths.myProperties,
  product: paths.myProducts,
  land: paths.myLands,
  service: paths.myServices,
}

function ListingCell({ summary }: { summary: ListingFeeSummary }) {
  const { tWallet } = useWalletTranslation()
  const kind = tWallet(`wallet.listingKind.${summary.kind}`)
  if (!summary.exists) {
    return (
      <div className="flex flex-col">
        <span className="font-medium">{tWallet('wallet.deletedListing')}</span>
        <span className="text-muted-foreground">{kind}</span>
      </div>
    )
  }
  return (
    <div className="flex flex-col">
      <Link to={listingDetail[summary.kind](summary.listingId)} className="font-medium text-primary hover:underline">
        {summary.title?.trim() || tWallet('wallet.untitledListing')}
      </Link>
      <span className="text-muted-foreground">
        {kind} ·{' '}
        <Link to={myPageOf[summary.kind]} className="hover:underline">
          {tWallet('wallet.myPage')}
        </Link>
      </span>
    </div>
  )
}

/** A figure of a row: its label shown beside it on phones (the column header from sm up). */
function FigureCell({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <td role="cell" className={cn('flex justify-between gap-3 text-right tabular-nums sm:table-cell sm:px-4 sm:py-3', className)}>
      <span className="font-normal text-muted-foreground sm:hidden">{label}</span>
      <div>{children}</div>
    </td>
  )
}

/**
 * "Listing fees paid per listing": the listing_fee and listing_refund
 * postings grouped by the listing they paid for, with its title (or
 * 'Deleted listing'), linking to its detail page and its My page.
 */
export function ListingFeesTable({ userId }: { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const id = useId()
  const query = useListingFees(userId)

  return (
    <section aria-labelledby={`${id}-title`} className="flex flex-col gap-4">
      <div>
        <h2 id={`${id}-title`} className="text-xl font-semibold">
          {tWallet('wallet.feesTitle')}
        </h2>
        <p className="text-sm text-muted-foreground">{tWallet('wallet.feesIntro')}</p>
      </div>
      {query.isPending ? (
        <ListLoading label={tWallet('wallet.feesLoading')} />
      ) : query.isError ? (
        <ListError message={tWallet('wallet.feesFailed')} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <ListEmpty title={tWallet('wallet.feesEmpty')} />
      ) : (
        // A table from sm up; on phones each listing stacks, every figure with its label.
        <div className="rounded-lg border">
          <table role="table" className="w-full text-sm">
            <caption className="sr-only">{tWallet('wallet.feesTitle')}</caption>
            <thead role="rowgroup" className="hidden bg-muted text-left sm:table-header-group">
              <tr role="row">
                <th role="columnheader" scope="col" className="px-4 py-2 font-medium">
                  {tWallet('wallet.feesColListing')}
                </th>
                <th role="columnheader" scope="col" className="px-4 py-2 text-right font-medium">
                  {tWallet('wallet.feesColPaid')}
                </th>
                <th role="columnheader" scope="col" className="px-4 py-2 text-right font-medium">
                  {tWallet('wallet.feesColRefunded')}
                </th>
                <th role="columnheader" scope="col" className="px-4 py-2 text-right font-medium">
                  {tWallet('wallet.feesColNet')}
                </th>
                <th role="columnheader" scope="col" className="px-4 py-2 font-medium">
                  {tWallet('wallet.feesColLast')}
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {query.data.map((summary) => (
                <tr role="row" key={summary.reference} className="flex flex-col gap-1 px-4 py-3 not-first:border-t sm:table-row sm:border-t sm:p-0 sm:align-top">
                  <th role="rowheader" scope="row" className="pb-1 text-left font-normal sm:table-cell sm:px-4 sm:py-3">
                    <ListingCell summary={summary} />
                  </th>
                  <FigureCell label={tWallet('wallet.feesColPaid')}>
                    <div>{formatNestcoins(summary.paid)}</div>
                    <div className="text-muted-foreground">
                      {summary.payments === 1
                        ? tWallet('wallet.feesPaymentsOne')
                        : tWallet('wallet.feesPayments', { count: summary.payments })}
                    </div>
                  </FigureCell>
                  <FigureCell label={tWallet('wallet.feesColRefunded')}>{formatNestcoins(summary.refunded)}</FigureCell>
                  <FigureCell label={tWallet('wallet.feesColNet')} className="font-semibold">
                    {formatNestcoins(summary.paid - summary.refunded)}
                  </FigureCell>
                  <FigureCell label={tWallet('wallet.feesColLast')} className="sm:text-left sm:whitespace-nowrap">
                    <time dateTime={summary.lastAt}>{formatDateTime(summary.lastAt)}</time>
                  </FigureCell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
