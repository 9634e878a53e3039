import { LogInIcon, PlusIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { Link, useLocation } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { paths, type LoginRedirectState } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'

type MyListingsPageProps<Item> = {
  title: string
  intro: string
  /** The header's 'List New …' link (and any other header links). */
  actions: ReactNode
  /** A filter row above the cards, shown once listings exist. */
  filter?: ReactNode
  query: { isPending: boolean; isError: boolean; data: Item[] | undefined; refetch(): unknown }
  /** The items to show after filtering; defaults to every loaded item. */
  visible?: Item[]
  loadingLabel: string
  errorMessage: string
  empty: { title: string; hint?: string; actions: ReactNode }
  /** Shown when a filter hides every item. */
  filteredEmpty?: string
  renderItem(item: Item): ReactNode
  itemKey(item: Item): string
}

/**
 * The frame every My listing page shares (spec §2): a header with its
 * actions, then loading, error (with Try Again), empty, or the owner's cards
 * in a 1/2/3-column grid.
 */
export function MyListingsPage<Item>({
  title,
  intro,
  actions,
  filter,
  query,
  visible,
  loadingLabel,
  errorMessage,
  empty,
  filteredEmpty,
  renderItem,
  itemKey,
}: MyListingsPageProps<Item>) {
  const items = query.data ?? []
  const shown = visible ?? items
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-10">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{title}</h1>
          <p className="mt-1 text-muted-foreground">{intro}</p>
        </div>
        <div className="flex flex-wrap gap-2">{actions}</div>
      </header>
      {query.isPending ? (
        <ListLoading label={loadingLabel} />
      ) : query.isError ? (
        <ListError message={errorMessage} onRetry={() => void query.refetch()} />
      ) : items.length === 0 ? (
        <ListEmpty title={empty.title} hint={empty.hint}>
          <div className="mt-2 flex flex-wrap justify-center gap-2">{empty.actions}</div>
        </ListEmpty>
      ) : (
        <>
          {filter}
          {shown.length === 0 ? (
            <ListEmpty title={filteredEmpty ?? empty.title} />
          ) : (
            <ul className="grid gap-6 md:grid-cols-2 lg:grid-cols-3">
              {shown.map((item) => (
                <li key={itemKey(item)} className="flex flex-col">
                  {renderItem(item)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  )
}

/** A header or empty-state link styled as a button, e.g. 'List New Property'. */
export function LinkButton({ to, children, variant = 'default', icon = false }: { to: string; children: ReactNode; variant?: 'default' | 'outline'; icon?: boolean }) {
  return (
    <Button asChild variant={variant}>
      <Link to={to}>
        {icon && <PlusIcon aria-hidden="true" />}
        {children}
      </Link>
    </Button>
  )
}

/**
 * A signed-in page whose signed-out visitor gets the page's own screen
 * instead of the redirect (spec §2: /my-properties 'Sign In Required',
 * /my-p2p-offers 'You must be logged in…'): a heading, the message and a
 * sign-in link that brings them back here afterwards.
 */
export function SignedInOnly({ title, message, signIn, children }: { title: string; message: string; signIn: string; children: ReactNode }) {
  const { status } = useAuth()
  const { t } = useTranslation()
  const location = useLocation()
  if (status === 'loading') return <Spinner label={t('app.loading')} className="py-24" />
  if (status === 'signed-in') return children
  const state: LoginRedirectState = { from: `${location.pathname}${location.search}` }
  return (
    <div className="mx-auto flex max-w-md flex-col items-center gap-4 px-4 py-24 text-center">
      <LogInIcon className="size-10 text-primary" aria-hidden="true" />
      <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
      <p className="text-muted-foreground">{message}</p>
      <Button asChild>
        <Link to={paths.login} state={state}>
          {signIn}
        </Link>
      </Button>
    </div>
  )
}
