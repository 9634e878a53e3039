import { ArrowRightIcon, SearchIcon } from 'lucide-react'
import { useState, type FormEvent } from 'react'
import { useSearchParams } from 'react-router'

import { NavItemLink } from '@/components/layouts/nav-item-link'
import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { ListingSummaryCard } from '@/components/listings/listing-summary-card'
import { Button, buttonVariants } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { useDiscoverTranslation } from '@/lib/i18n/discover'
import type { ListingKind } from '@/lib/listing-fees'

import { cleanSearch, MAX_SEARCH_LENGTH } from '../api/search-filter'
import { searchOverview, useListingSearch, type SearchGroup } from '../api/search-listings'

/**
 * Each kind's own screen with the search in the parameter it reads, and
 * whether that screen needs sign-in from the navigation (spec §2: Properties,
 * Marketplace and Lands do, Services does not), as the nav bar links it.
 */
const seeAll: Record<ListingKind, { to(q: string): string; requiresAuth: boolean }> = {
  property: { to: (q) => `${paths.properties}?query=${encodeURIComponent(q)}`, requiresAuth: true },
  product: { to: (q) => `${paths.marketplace}?query=${encodeURIComponent(q)}`, requiresAuth: true },
  land: { to: (q) => `${paths.lands}?search=${encodeURIComponent(q)}`, requiresAuth: true },
  service: { to: (q) => `${paths.services}?search=${encodeURIComponent(q)}`, requiresAuth: false },
}

/** One kind's results: heading with the count and 'See all', then up to six cards; or its own loading or failure. */
function ResultGroup({ group, q }: { group: SearchGroup; q: string }) {
  const { td } = useDiscoverTranslation()
  const kindLabel = td(`discover.kind.${group.kind}`)
  const headingId = `search-${group.kind}`
  if (group.status === 'pending') {
    return <Spinner label={td('search.groupLoading', { kind: kindLabel })} className="justify-start py-4" />
  }
  if (group.status === 'error') {
    return (
      <section aria-labelledby={headingId}>
        <h2 id={headingId} className="mb-3 text-xl font-semibold">
          {kindLabel}
        </h2>
        <ListError message={td('search.groupFailed', { kind: kindLabel })} onRetry={group.retry} />
      </section>
    )
  }
  const count = group.results?.count ?? 0
  if (count === 0) return null
  const target = seeAll[group.kind]
  return (
    <section aria-labelledby={headingId}>
      <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={headingId} className="flex items-baseline gap-2 text-xl font-semibold">
          {kindLabel}{' '}
          <span className="text-sm font-normal text-muted-foreground">
            {count === 1 ? td('search.countOne') : td('search.count', { count })}
          </span>
        </h2>
        <NavItemLink
          to={target.to(q)}
          requiresAuth={target.requiresAuth}
          aria-label={`${td('search.seeAll')} ${kindLabel}`}
          className={buttonVariants({ variant: 'link', size: 'sm' })}
        >
          {td('search.seeAll')}
          <ArrowRightIcon aria-hidden="true" />
        </NavItemLink>
      </div>
      <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {group.results?.items.map((item) => (
          <li key={item.id}>
            <ListingSummaryCard summary={item} />
          </li>
        ))}
      </ul>
    </section>
  )
}

/** The results below the box for a non-empty query. */
function SearchResults({ q }: { q: string }) {
  const { td } = useDiscoverTranslation()
  const groups = useListingSearch(q)
  const overview = searchOverview(groups)
  if (overview === 'loading') return <ListLoading label={td('search.loading')} />
  if (overview === 'error') {
    return <ListError message={td('search.failed')} onRetry={() => groups.forEach((group) => group.status === 'error' && group.retry())} />
  }
  if (overview === 'empty') return <ListEmpty title={td('search.empty', { q })} hint={td('search.emptyHint')} />
  return (
    <div className="flex flex-col gap-10">
      <p className="sr-only" aria-live="polite">
        {td('search.resultsFor', { q })}
      </p>
      {groups.map((group) => (
        <ResultGroup key={group.kind} group={group} q={q} />
      ))}
    </div>
  )
}

/**
 * /search: one box over properties, products, lands and services. The query
 * lives in the URL (?q=); results come grouped by kind, up to six each with
 * a count and 'See all' on the kind's own screen.
 */
export function SearchPage() {
  const { td } = useDiscoverTranslation()
  const [params, setParams] = useSearchParams()
  const q = cleanSearch(params.get('q') ?? '')
  // The box follows the URL (back button, a new link); a local edit lasts until the URL's query changes.
  const [text, setText] = useState(q)
  const [shownQ, setShownQ] = useState(q)
  if (shownQ !== q) {
    setShownQ(q)
    setText(q)
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const next = cleanSearch(text)
    setText(next)
    setParams(next ? { q: next } : {})
  }

  return (
    <div className="flex flex-col gap-8">
      <form role="search" onSubmit={onSubmit} className="flex gap-2">
        <label htmlFor="site-search" className="sr-only">
          {td('search.label')}
        </label>
        <Input
          id="site-search"
          type="search"
          value={text}
          maxLength={MAX_SEARCH_LENGTH}
          placeholder={td('search.placeholder')}
          autoComplete="off"
          enterKeyHint="search"
          onChange={(event) => setText(event.target.value)}
        />
        <Button type="submit">
          <SearchIcon aria-hidden="true" />
          {td('search.submit')}
        </Button>
      </form>
      {q ? (
        <SearchResults key={q} q={q} />
      ) : (
        <div className="flex flex-col items-center gap-2 py-16 text-center">
          <SearchIcon className="size-10 text-muted-foreground" aria-hidden="true" />
          <h2 className="text-lg font-semibold">{td('search.prompt')}</h2>
          <p className="text-muted-foreground">{td('search.promptHint')}</p>
        </div>
      )}
    </div>
  )
}
