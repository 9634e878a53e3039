import { ArrowRightIcon, FilterIcon, PlusIcon, SearchIcon, WalletIcon } from 'lucide-react'
import { useDeferredValue, useEffect, useId, useRef, useState } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Field, FieldLabel } from '@/components/ui/field'
import { Input, NativeSelect } from '@/components/ui/input'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { BOARD_PAGE_SIZE, OPEN_TRADE_STATUSES, P2P_CURRENCIES, p2pPaths, type P2pAction, type P2pCurrency } from '@/config/p2p'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import { defaultBoardQuery, useBoard, type BoardSort } from '../api/get-board'
import { useMyTrades } from '../api/get-trade'
import { useBoardRealtime, useMyTradesRealtime } from '../api/realtime'
import { CreateOfferDialog } from './create-offer-dialog'
import { currencyLabel } from './format'
import { OfferCard } from './offer-card'

type ActionFilter = 'all' | P2pAction
type CurrencyFilter = 'all' | P2pCurrency

/** The filter popover: action and currency, Clear Filters; the button's badge counts active filters (0-2). */
function FilterPopover({
  action,
  currency,
  onAction,
  onCurrency,
  onClear,
}: {
  action: ActionFilter
  currency: CurrencyFilter
  onAction(a: ActionFilter): void
  onCurrency(c: CurrencyFilter): void
  onClear(): void
}) {
  const { tP2p } = useP2pTranslation()
  const [open, setOpen] = useState(false)
  const panelId = useId()
  const root = useRef<HTMLDivElement>(null)
  const active = (action !== 'all' ? 1 : 0) + (currency !== 'all' ? 1 : 0)
  useEffect(() => {
    if (!open) return
    const onDown = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false)
    }
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false)
    document.addEventListener('mousedown', onDown)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('mousedown', onDown)
      document.removeEventListener('keydown', onKey)
    }
  }, [open])
  return (
    <div ref={root} className="relative">
      <Button variant="outline" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
        <FilterIcon aria-hidden="true" />
        {tP2p('p2p.filter')}
        {active > 0 && (
          <Badge aria-label={tP2p('p2p.filterCount', { count: active })} data-testid="filter-badge">
            {active}
          </Badge>
        )}
      </Button>
      {open && (
        <div
          id={panelId}
          role="group"
          aria-label={tP2p('p2p.filter')}
          className="absolute right-0 z-40 mt-2 flex w-64 flex-col gap-3 rounded-md border bg-popover p-4 text-popover-foreground shadow-md"
        >
          <p className="font-medium">{tP2p('p2p.filter')}</p>
          <Field>
            <FieldLabel htmlFor={`${panelId}-action`}>{tP2p('p2p.filterAction')}</FieldLabel>
            <NativeSelect id={`${panelId}-action`} value={action} onChange={(e) => onAction(e.target.value as ActionFilter)}>
              <option value="all">{tP2p('p2p.filterAll')}</option>
              <option value="buy">{tP2p('p2p.action.buy')}</option>
              <option value="sell">{tP2p('p2p.action.sell')}</option>
            </NativeSelect>
          </Field>
          <Field>
            <FieldLabel htmlFor={`${panelId}-currency`}>{tP2p('p2p.filterCurrency')}</FieldLabel>
            <NativeSelect id={`${panelId}-currency`} value={currency} onChange={(e) => onCurrency(e.target.value as CurrencyFilter)}>
              <option value="all">{tP2p('p2p.filterAll')}</option>
              {P2P_CURRENCIES.map((c) => (
                <option key={c} value={c}>
                  {currencyLabel(c)}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Button variant="ghost" onClick={onClear}>
            {tP2p('p2p.clearFilters')}
          </Button>
        </div>
      )}
    </div>
  )
}

/** The caller's open trades, live, so an offer owner sees a new trade at once. */
function OpenTradesStrip({ userId }: { userId: string }) {
  const { tP2p } = useP2pTranslation()
  const trades = useMyTrades(userId)
  const open = (trades.data ?? []).filter((t) => (OPEN_TRADE_STATUSES as readonly string[]).includes(t.status))
  if (open.length === 0) return null
  return (
    <section aria-labelledby="p2p-open-trades" className="rounded-lg border bg-muted/40 p-4">
      <h2 id="p2p-open-trades" className="mb-2 font-semibold">
        {tP2p('p2p.openTrades')}
      </h2>
      <ul className="flex flex-col gap-2">
        {open.map((t) => (
          <li key={t.id}>
            <Link to={p2pPaths.trade(t.id)} className="flex flex-wrap items-center gap-2 text-sm hover:underline">
              <Badge variant="outline">{tP2p(`p2p.status.${t.status}`)}</Badge>
              {t.buyer_id === userId
                ? tP2p('p2p.trades.buy', { amount: t.amount, currency: currencyLabel(t.currency) })
                : tP2p('p2p.trades.sell', { amount: t.amount, currency: currencyLabel(t.currency) })}
              <span className="text-muted-foreground">{tP2p('p2p.trades.with', { name: t.counterparty_name ?? 'User' })}</span>
              <ArrowRightIcon className="size-4" aria-hidden="true" />
            </Link>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** /p2p signed in (spec §2): the live offer board. */
export function OfferBoard({ userId }: { userId: string }) {
  const { tP2p } = useP2pTranslation()
  const [action, setAction] = useState<ActionFilter>('all')
  const [currency, setCurrency] = useState<CurrencyFilter>('all')
  const [search, setSearch] = useState('')
  const [sort, setSort] = useState<BoardSort>('newest')
  const [limit, setLimit] = useState(BOARD_PAGE_SIZE)
  const [creating, setCreating] = useState(false)
  const deferredSearch = useDeferredValue(search)
  const query = {
    ...defaultBoardQuery,
    action: action === 'all' ? null : action,
    currency: currency === 'all' ? null : currency,
    search: deferredSearch,
    sort,
    limit,
  }
  const board = useBoard(query)
  useBoardRealtime(true)
  useMyTradesRealtime(userId)
  const filtered = action !== 'all' || currency !== 'all' || search.trim() !== ''
  const offers = board.data ?? []
  const clear = () => {
    setAction('all')
    setCurrency('all')
    setSearch('')
  }

  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-10">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tP2p('p2p.title')}</h1>
          <p className="mt-1 max-w-2xl text-muted-foreground">{tP2p('p2p.intro')}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" asChild>
            <Link to={p2pPaths.wallet}>
              <WalletIcon aria-hidden="true" />
              {tP2p('p2p.wallet')}
            </Link>
          </Button>
          <Button variant="outline" asChild>
            <Link to={p2pPaths.trades}>{tP2p('p2p.myTrades')}</Link>
          </Button>
          <Button onClick={() => setCreating(true)}>
            <PlusIcon aria-hidden="true" />
            {tP2p('p2p.createOffer')}
          </Button>
        </div>
      </header>

      <OpenTradesStrip userId={userId} />

      <div className="flex flex-col gap-3 md:flex-row md:items-center">
        <Tabs value={action} onValueChange={(v) => setAction(v as ActionFilter)}>
          <TabsList aria-label={tP2p('p2p.tabsLabel')}>
            <TabsTrigger value="all">{tP2p('p2p.tabAll')}</TabsTrigger>
            <TabsTrigger value="sell">{tP2p('p2p.tabSell')}</TabsTrigger>
            <TabsTrigger value="buy">{tP2p('p2p.tabBuy')}</TabsTrigger>
          </TabsList>
        </Tabs>
        <div className="relative flex-1">
          <SearchIcon className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
          <Input
            type="search"
            aria-label={tP2p('p2p.searchLabel')}
            placeholder={tP2p('p2p.search')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="pl-9"
          />
        </div>
        <label className="flex items-center gap-2 text-sm">
          <span className="whitespace-nowrap">{tP2p('p2p.sort')}</span>
          <NativeSelect value={sort} onChange={(e) => setSort(e.target.value as BoardSort)} className="w-44">
            <option value="newest">{tP2p('p2p.sortNewest')}</option>
            <option value="rate_asc">{tP2p('p2p.sortRateAsc')}</option>
            <option value="rate_desc">{tP2p('p2p.sortRateDesc')}</option>
          </NativeSelect>
        </label>
        <FilterPopover action={action} currency={currency} onAction={setAction} onCurrency={setCurrency} onClear={clear} />
      </div>

      {board.isPending ? (
        <ListLoading label={tP2p('p2p.loading')} />
      ) : board.isError ? (
        <ListError message={tP2p('p2p.loadFailed')} onRetry={() => void board.refetch()} />
      ) : offers.length === 0 ? (
        <ListEmpty title={tP2p('p2p.empty')} hint={filtered ? tP2p('p2p.emptyFiltered') : tP2p('p2p.emptyFirst')}>
          <Button className="mt-2" onClick={() => setCreating(true)}>
            {tP2p('p2p.createFirst')}
          </Button>
        </ListEmpty>
      ) : (
        <>
          <ul className="grid grid-cols-1 gap-4 md:grid-cols-2 lg:grid-cols-3" aria-label={tP2p('p2p.title')} aria-busy={board.isFetching}>
            {offers.map((offer) => (
              <li key={offer.id}>
                <OfferCard offer={offer} userId={userId} />
              </li>
            ))}
          </ul>
          {offers.length >= limit && (
            <Button variant="outline" className="self-center" onClick={() => setLimit((l) => l + BOARD_PAGE_SIZE)}>
              {tP2p('p2p.showMore')}
            </Button>
          )}
        </>
      )}
      <CreateOfferDialog userId={userId} open={creating} onOpenChange={setCreating} />
    </div>
  )
}
