import { useId } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Pagination, PastLastPage } from '@/components/listings/pagination'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Field, FieldLabel } from '@/components/ui/field'
import { NativeSelect } from '@/components/ui/input'
import { paths } from '@/config/paths'
import { formatNestcoins } from '@/lib/format'
import { useWalletTranslation } from '@/lib/i18n/wallet'
import { pageCount, parsePage } from '@/lib/pagination'
import { useUrlFilters } from '@/lib/search-params'
import { cn } from '@/lib/utils'

import { currencies, type Currency } from '../api/get-balances'
import { parseListingReference, useListingFees, type ListingFeeSummary } from '../api/get-listing-fees'
import { ledgerKinds, useWalletHistory, type LedgerKind, type WalletHistoryRow, type WalletHistoryFilters } from '../api/get-wallet-history'
import { formatDateTime, formatSigned, listingDetail } from './wallet-format'

/** The URL parameters of the history filters (besides `page`). */
const filterParams = ['currency', 'kind'] as const

/** Reads the history filters from the URL; unknown values are ignored. */
export function readHistoryFilters(params: URLSearchParams): WalletHistoryFilters {
  const currency = params.get('currency')
  const kind = params.get('kind')
  return {
    currency: (currencies as readonly string[]).includes(currency ?? '') ? (currency as Currency) : undefined,
    kind: (ledgerKinds as readonly string[]).includes(kind ?? '') ? (kind as LedgerKind) : undefined,
    page: parsePage(params.get('page')),
  }
}

/** What a posting was about: the listing (with its title), the P2P trade, the M-Pesa receipt, and the memo. */
function Details({ row, fees }: { row: WalletHistoryRow; fees: Map<string, ListingFeeSummary> }) {
  const { tWallet } = useWalletTranslation()
  const listing = parseListingReference(row.reference)
  let subject = null
  if (listing) {
    const summary = fees.get(`${listing.kind}:${listing.id}`)
    const kindLabel = tWallet('wallet.refListing', { kind: tWallet(`wallet.listingKind.${listing.kind}`) })
    const title = summary ? (summary.exists ? (summary.title ?? tWallet('wallet.untitledListing')) : tWallet('wallet.deletedListing')) : kindLabel
    subject =
      summary && !summary.exists ? (
        <span>{title}</span>
      ) : (
        <Link to={listingDetail[listing.kind](listing.id)} className="font-medium text-primary hover:underline">
          {title}
        </Link>
      )
  } else if (row.trade_id) {
    subject = (
      <Link to={`${paths.p2p}/trades/${row.trade_id}`} className="font-medium text-primary hover:underline">
        {tWallet('wallet.refTrade')}
      </Link>
    )
  } else if (row.kind === 'purchase' && row.reference) {
    subject = <span>{tWallet('wallet.refReceipt', { reference: row.reference })}</span>
  }
  return (
    <div className="flex flex-col">
      {subject}
      {row.memo && <span className="text-muted-foreground">{row.memo}</span>}
    </div>
  )
}

/**
 * The ledger history of the user's wallets: filterable by currency and kind
 * (in the URL, so a filtered view can be shared and survives reload),
 * paginated on the server, newest first, amounts signed from the user's side.
 */
export function WalletHistory({ userId }: { userId: string }) {
  const { tWallet } = useWalletTranslation()
  const id = useId()
  const { params, get, set, clear } = useUrlFilters()
  const filters = readHistoryFilters(params)
  const query = useWalletHistory(userId, filters)
  const fees = useListingFees(userId)
  const feesByReference = new Map((fees.data ?? []).map((summary) => [summary.reference, summary]))
  const filtered = Boolean(filters.currency || filters.kind)
  const count = query.data?.count ?? 0

  return (
    <section aria-labelledby={`${id}-title`} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id={`${id}-title`} className="text-xl font-semibold">
            {tWallet('wallet.historyTitle')}
          </h2>
          {query.isSuccess && (
            <p className="text-sm text-muted-foreground" aria-live="polite">
              {count === 1 ? tWallet('wallet.historyCountOne') : tWallet('wallet.historyCount', { count: formatNestcoins(count) })}
            </p>
          )}
        </div>
        <div role="group" aria-label={tWallet('wallet.filtersLabel')} className="flex flex-wrap items-end gap-3">
          <Field className="w-44">
            <FieldLabel htmlFor={`${id}-currency`}>{tWallet('wallet.filterCurrency')}</FieldLabel>
            <NativeSelect id={`${id}-currency`} value={get('currency')} onChange={(event) => set({ currency: event.target.value })}>
              <option value="">{tWallet('wallet.filterAllCurrencies')}</option>
              {currencies.map((currency) => (
                <option key={currency} value={currency}>
                  {tWallet(`wallet.currency.${currency}`)}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field className="w-52">
            <FieldLabel htmlFor={`${id}-kind`}>{tWallet('wallet.filterKind')}</FieldLabel>
            <NativeSelect id={`${id}-kind`} value={get('kind')} onChange={(event) => set({ kind: event.target.value })}>
              <option value="">{tWallet('wallet.filterAllKinds')}</option>
              {ledgerKinds.map((kind) => (
                <option key={kind} value={kind}>
                  {tWallet(`wallet.kind.${kind}`)}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {filtered && (
            <Button variant="outline" onClick={() => clear(filterParams)}>
              {tWallet('wallet.clearFilters')}
            </Button>
          )}
        </div>
      </div>

      {query.isPending ? (
        <ListLoading label={tWallet('wallet.historyLoading')} />
      ) : query.isError ? (
        <ListError message={tWallet('wallet.historyFailed')} onRetry={() => void query.refetch()} />
      ) : count === 0 ? (
        filtered ? (
          <ListEmpty title={tWallet('wallet.historyFilteredEmpty')}>
            <Button variant="outline" className="mt-2" onClick={() => clear(filterParams)}>
              {tWallet('wallet.clearFilters')}
            </Button>
          </ListEmpty>
        ) : (
          <ListEmpty title={tWallet('wallet.historyEmpty')} hint={tWallet('wallet.historyEmptyHint')} />
        )
      ) : filters.page > pageCount(count) ? (
        <PastLastPage page={filters.page} count={count} />
      ) : (
        <>
          {/* A table from sm up; on phones each row stacks (type and amount, details, date). The
              explicit roles keep the table semantics that a changed display can drop. */}
          <div className={cn('rounded-lg border', query.isPlaceholderData && 'opacity-60')} aria-busy={query.isFetching}>
            <table role="table" className="w-full text-sm">
              <caption className="sr-only">{tWallet('wallet.historyTitle')}</caption>
              <thead role="rowgroup" className="hidden bg-muted text-left sm:table-header-group">
                <tr role="row">
                  <th role="columnheader" scope="col" className="px-4 py-2 font-medium">
                    {tWallet('wallet.colDate')}
                  </th>
                  <th role="columnheader" scope="col" className="px-4 py-2 font-medium">
                    {tWallet('wallet.colType')}
                  </th>
                  <th role="columnheader" scope="col" className="px-4 py-2 font-medium">
                    {tWallet('wallet.colDetails')}
                  </th>
                  <th role="columnheader" scope="col" className="px-4 py-2 text-right font-medium">
                    {tWallet('wallet.colAmount')}
                  </th>
                </tr>
              </thead>
              <tbody role="rowgroup">
                {query.data.items.map((row) => (
                  <tr
                    role="row"
                    key={`${row.id}:${row.currency}`}
                    className="grid grid-cols-[1fr_auto] items-start gap-x-3 gap-y-1 px-4 py-3 not-first:border-t sm:table-row sm:border-t sm:p-0 sm:align-top"
                  >
                    <td role="cell" className="order-4 col-span-2 text-xs text-muted-foreground sm:table-cell sm:px-4 sm:py-3 sm:text-sm sm:whitespace-nowrap sm:text-foreground">
                      <time dateTime={row.created_at}>{formatDateTime(row.created_at)}</time>
                    </td>
                    <td role="cell" className="order-1 sm:table-cell sm:px-4 sm:py-3">
                      <Badge variant="outline">{tWallet(`wallet.kind.${row.kind}`)}</Badge>
                    </td>
                    <td role="cell" className="order-3 col-span-2 sm:table-cell sm:px-4 sm:py-3">
                      <Details row={row} fees={feesByReference} />
                    </td>
                    <td
                      role="cell"
                      className={cn(
                        'order-2 text-right font-semibold whitespace-nowrap tabular-nums sm:table-cell sm:px-4 sm:py-3',
                        row.amount > 0 ? 'text-success' : 'text-destructive',
                      )}
                    >
                      <span aria-hidden="true">
                        {formatSigned(row.amount)} {tWallet(`wallet.currency.${row.currency}`)}
                      </span>
                      <span className="sr-only">
                        {tWallet(row.amount > 0 ? 'wallet.amountIn' : 'wallet.amountOut', {
                          amount: formatNestcoins(Math.abs(row.amount)),
                          currency: tWallet(`wallet.currency.${row.currency}`),
                        })}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination page={filters.page} count={count} />
        </>
      )}
    </section>
  )
}
