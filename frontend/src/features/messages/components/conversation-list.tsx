import { MessagesSquareIcon } from 'lucide-react'
import { Link } from 'react-router'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { Button } from '@/components/ui/button'
import { conversationPath, paths } from '@/config/paths'
import type { InboxKey } from '@/lib/i18n/en-inbox'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { formatRelativeTime } from '@/lib/relative-time'
import { cn } from '@/lib/utils'

import { useConversations, type ConversationSummary } from '../api/get-conversations'
import { UnreadCount } from './unread-count'

/** The catalogue key naming a listing kind, e.g. "Property". */
export const listingKindKeys: Record<ConversationSummary['listing_kind'], InboxKey> = {
  property: 'inbox.kind.property',
  product: 'inbox.kind.product',
  land: 'inbox.kind.land',
  service: 'inbox.kind.service',
}

function ConversationItem({ conversation, userId, active }: { conversation: ConversationSummary; userId: string; active: boolean }) {
  const { tInbox, lang } = useInboxTranslation()
  const unread = Number(conversation.unread_count) || 0
  const mine = conversation.last_sender_id === userId
  const last = conversation.last_message ?? ''
  return (
    <Link
      to={conversationPath(conversation.id)}
      aria-current={active ? 'page' : undefined}
      data-unread={unread > 0 || undefined}
      className={cn(
        'flex flex-col gap-1 rounded-lg border border-transparent px-3 py-3 transition-colors hover:bg-accent',
        active && 'border-border bg-accent',
      )}
    >
      <span className="flex items-baseline justify-between gap-2">
        <span className={cn('truncate', unread > 0 ? 'font-semibold' : 'font-medium')}>{conversation.other_party_name}</span>
        <time dateTime={conversation.last_message_at} className="shrink-0 text-xs text-muted-foreground">
          {formatRelativeTime(conversation.last_message_at, lang)}
        </time>
      </span>
      <span className="truncate text-xs text-muted-foreground">
        {tInbox(listingKindKeys[conversation.listing_kind] ?? 'inbox.kind.property')} ·{' '}
        {conversation.listing_title ?? tInbox('inbox.notif.untitledListing')}
      </span>
      <span className="flex items-center justify-between gap-2">
        <span className={cn('truncate text-sm', unread > 0 ? 'text-foreground' : 'text-muted-foreground')}>
          {mine ? tInbox('inbox.list.you', { message: last }) : last}
        </span>
        <UnreadCount count={unread} label={tInbox('inbox.unreadCount', { count: unread })} />
      </span>
    </Link>
  )
}

/**
 * The caller's conversations, newest message first, with each one's other
 * party, listing, last message, time and unread count; loading, empty and
 * failed states. `activeId` marks the open conversation.
 */
export function ConversationList({ userId, activeId }: { userId: string; activeId?: string }) {
  const { tInbox } = useInboxTranslation()
  const conversations = useConversations(userId)

  if (conversations.isPending) return <ListLoading label={tInbox('inbox.list.loading')} />
  if (conversations.isError) return <ListError message={tInbox('inbox.list.loadFailed')} onRetry={() => void conversations.refetch()} />
  if (conversations.data.length === 0) {
    return (
      <div className="flex flex-col items-center gap-2 px-4 py-16 text-center">
        <MessagesSquareIcon className="size-10 text-muted-foreground" aria-hidden="true" />
        <h2 className="text-lg font-semibold">{tInbox('inbox.list.empty')}</h2>
        <p className="text-sm text-muted-foreground">{tInbox('inbox.list.emptyHint')}</p>
        <Button asChild variant="outline" className="mt-2">
          <Link to={paths.properties}>{tInbox('inbox.list.browse')}</Link>
        </Button>
      </div>
    )
  }
  return (
    <nav aria-label={tInbox('inbox.list.label')}>
      <ul className="flex flex-col gap-1">
        {conversations.data.map((conversation) => (
          <li key={conversation.id}>
            <ConversationItem conversation={conversation} userId={userId} active={conversation.id === activeId} />
          </li>
        ))}
      </ul>
    </nav>
  )
}
