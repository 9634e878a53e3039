import type { ReactNode } from 'react'

import { pageCount, type Page } from '@/lib/pagination'
import { cn } from '@/lib/utils'

import { ListEmpty, ListError, ListLoading } from './list-states'
import { Pagination, PastLastPage } from './pagination'

/** The parts of a TanStack query result the results grid reads. */
type PageQuery<T> = {
  isPending: boolean
  isError: boolean
  data: Page<T> | undefined
  refetch(): unknown
}

type ListingResultsProps<T extends { id: string }> = {
  query: PageQuery<T>
  /** The current 1-based page (from the URL). */
  page: number
  texts: { loading: string; failed: string; empty: string; emptyHint: string }
  /** Grid columns, e.g. 'sm:grid-cols-2 lg:grid-cols-3'. */
  columns: string
  renderItem(item: T): ReactNode
  /** Shown above the grid, e.g. the result count. */
  summary?(count: number): ReactNode
}

/**
 * One page of listings with its states: loading, failure with 'Try Again',
 * the empty state (or, past the last page, a way back to it), or the grid
 * followed by the pages.
 */
export function ListingResults<T extends { id: string }>({ query, page, texts, columns, renderItem, summary }: ListingResultsProps<T>) {
  if (query.isPending) return <ListLoading label={texts.loading} />
  if (query.isError || !query.data) return <ListError message={texts.failed} onRetry={() => void query.refetch()} />
  const { items, count } = query.data
  if (items.length === 0 && count > 0 && page > pageCount(count)) return <PastLastPage page={page} count={count} />
  if (items.length === 0) return <ListEmpty title={texts.empty} hint={texts.emptyHint} />
  return (
    <>
      {summary?.(count)}
      <ul className={cn('grid gap-4', columns)}>
        {items.map((item) => (
          <li key={item.id}>{renderItem(item)}</li>
        ))}
      </ul>
      <Pagination page={page} count={count} />
    </>
  )
}
