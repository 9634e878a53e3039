import { HeartOffIcon, Trash2Icon } from 'lucide-react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { ListingSummaryCard } from '@/components/listings/listing-summary-card'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useDiscoverTranslation } from '@/lib/i18n/discover'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

import { groupSaved, useSavedListings, type SavedEntry } from '../api/get-saved-listings'
import { useToggleSaved } from '../api/toggle-saved'

const browseLinks: readonly { to: string; label: MessageKey }[] = [
  { to: paths.properties, label: 'nav.properties' },
  { to: paths.marketplace, label: 'nav.marketplace' },
  { to: paths.lands, label: 'nav.lands' },
  { to: paths.services, label: 'nav.services' },
]

/** Remove: takes the listing off the saved list at once (rolled back if the server refuses). */
function RemoveButton({ userId, entry, title }: { userId: string; entry: SavedEntry; title: string }) {
  const { td } = useDiscoverTranslation()
  const toggle = useToggleSaved()
  return (
    <Button
      type="button"
      variant="outline"
      size="sm"
      aria-label={td('saved.removeLabel', { title })}
      disabled={toggle.isPending}
      onClick={() =>
        toggle.mutate(
          { userId, kind: entry.kind, id: entry.id, save: false },
          { onError: (error) => toast({ title: td('saved.failed'), description: error.message || undefined, variant: 'destructive' }) },
        )
      }
    >
      <Trash2Icon aria-hidden="true" />
      {td('saved.remove')}
    </Button>
  )
}

/** A saved listing the user can no longer see: said so, with Remove. */
function UnavailableCard({ userId, entry }: { userId: string; entry: SavedEntry }) {
  const { td } = useDiscoverTranslation()
  return (
    <Card className="h-full gap-3 border-dashed bg-muted/40 py-4">
      <CardContent className="flex flex-1 flex-col gap-1.5 px-4">
        <HeartOffIcon className="size-6 text-muted-foreground" aria-hidden="true" />
        <h3 className="font-semibold">{td('saved.unavailable')}</h3>
        <p className="text-sm text-muted-foreground">{td('saved.unavailableHint')}</p>
      </CardContent>
      <CardFooter className="px-4">
        <RemoveButton userId={userId} entry={entry} title={td('saved.unavailableTitle')} />
      </CardFooter>
    </Card>
  )
}

function SavedCard({ userId, entry }: { userId: string; entry: SavedEntry }) {
  const { t } = useTranslation()
  if (!entry.listing) return <UnavailableCard userId={userId} entry={entry} />
  const title = entry.listing.title || t('property.untitled')
  return <ListingSummaryCard summary={entry.listing} footer={<RemoveButton userId={userId} entry={entry} title={title} />} />
}

/**
 * /saved: the user's saved listings grouped by kind (properties, products,
 * lands, services) with a count each; listings no longer visible say so;
 * Remove on each. Loading, failure with retry, and an empty state with
 * links to browse.
 */
export function SavedListings({ userId }: { userId: string }) {
  const { td, t } = useDiscoverTranslation()
  const query = useSavedListings(userId)

  if (query.isPending) return <ListLoading label={td('saved.loading')} />
  if (query.isError) return <ListError message={td('saved.loadFailed')} onRetry={() => void query.refetch()} />
  const groups = groupSaved(query.data)
  if (groups.length === 0) {
    return (
      <ListEmpty title={td('saved.empty')} hint={td('saved.emptyHint')}>
        <ul className="mt-2 flex flex-wrap justify-center gap-2">
          {browseLinks.map(({ to, label }) => (
            <li key={to}>
              <Button asChild variant="outline">
                <Link to={to}>{t(label)}</Link>
              </Button>
            </li>
          ))}
        </ul>
      </ListEmpty>
    )
  }

  return (
    <div className="flex flex-col gap-10">
      {groups.map((group) => {
        const headingId = `saved-${group.kind}`
        return (
          <section key={group.kind} aria-labelledby={headingId}>
            <h2 id={headingId} className="mb-4 flex items-baseline gap-2 text-xl font-semibold">
              {td(`discover.kind.${group.kind}`)}{' '}
              <span className="text-sm font-normal text-muted-foreground">{td('saved.count', { count: group.entries.length })}</span>
            </h2>
            <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              {group.entries.map((entry) => (
                <li key={`${entry.kind}:${entry.id}`}>
                  <SavedCard userId={userId} entry={entry} />
                </li>
              ))}
            </ul>
          </section>
        )
      })}
    </div>
  )
}
